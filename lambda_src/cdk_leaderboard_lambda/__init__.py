"""The Lambda code of cdk-leaderboard: the ten leaderboard functions (shared/function_registry.FUNCTIONS) in layers,
each a folder: handlers/ (one module per function), web/ (HTTP, validation, the route table, the OpenAPI document), the
composition root (composition.py), data/ (the stores on DynamoDB and in memory), operations/ (what a handler calls),
domain/ (the rules, the formats, the stores' ports) and shared/ (leaves every layer reads)."""

# One name in every process: Lambda imports this package as top-level `cdk_leaderboard_lambda` (the asset's root is
# lambda_src), and so do the construct (cdk_leaderboard.paths), the tests and the local stack. Under a second name its
# modules would be loaded twice, each copy with its own state. The name is the distribution's own, so that a user's
# app keeps its `leaderboard`, `routes`, `schema` or `handlers` modules.
if __name__ != "cdk_leaderboard_lambda":
    raise ImportError(
        f"import the Lambda package as top-level `cdk_leaderboard_lambda` (as cdk_leaderboard does), not {__name__}"
    )
