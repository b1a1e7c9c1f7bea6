"""The Lambda code asset's root. In Lambda, `leaderboard` is a top-level package here; the construct ships this
folder as `cdk_leaderboard.runtime` and imports the package's route table and schema from it."""
