OWNER = "user-app"  # a game studio's own `leaderboard` package: the construct must leave it alone
