"""The Lambda code asset's root: `cdk_leaderboard_lambda` is a top-level package here, in Lambda and everywhere else.
The construct ships this folder as `cdk_leaderboard.runtime` and imports the package from it as
`cdk_leaderboard_lambda` (cdk_leaderboard.paths)."""
