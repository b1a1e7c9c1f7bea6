"""Shared runtime of the nine leaderboard functions (function_registry.FUNCTIONS): domain, key encoding, data
access, HTTP."""

# One name in every process: Lambda imports this package as top-level `leaderboard` (the asset's root is lambda_src),
# and so do the construct (cdk_leaderboard.paths), the tests and the local stack. Under a second name its modules
# would be loaded twice, each copy with its own state.
if __name__ != "leaderboard":
    raise ImportError(f"import the Lambda package as top-level `leaderboard` (as cdk_leaderboard does), not {__name__}")
