"""Shared runtime of the five leaderboard functions: domain, key encoding, data access, HTTP."""
