"""Leaves every layer reads: settings, the clock, errors, value types, table facts, item keys, limits."""
