"""The Lambda code asset's root: `leaderboard` is a top-level package here, in Lambda and everywhere else. The
construct ships this folder as `cdk_leaderboard.runtime` and imports the package from it as `leaderboard`
(cdk_leaderboard.paths)."""
