"""Operator tooling for a deployed (or about to be deployed) leaderboard stage, boto3 only.

    python -m ops preflight --stage dev          # before `cdk deploy`: is this account and region ready?
    python -m ops rotate-key --stage dev         # new game and admin API keys; old ones removed after a grace period
    python -m ops rotate-token-key --stage dev   # new player-token signing key; the old one verifies a grace more
    python -m ops rotate-cursor-key --stage prod # new page-cursor signing key; the old one verifies a cursor's life
    python -m ops rotate-digest-key --stage dev  # refused, with the reason: the digest key never rotates
    python -m ops rotate-password --stage dev    # new dashboard admin password
    python -m ops rotate-receipt-key --stage prod               # new receipt key; the old one listed as retired
    python -m ops revoke-receipt-key --stage prod --kid KID     # a leaked receipt key: nothing it signed verifies
    python -m ops renew-live-key --stage dev     # extend the live updates' API key now (a schedule does it too)

The Makefile wraps them: `make preflight`, `make rotate-key`, `make rotate-token-key`, `make rotate-cursor-key`,
`make rotate-digest-key`, `make rotate-password`, `make renew-live-key` (STAGE=dev|prod).
"""
