"""The app's own leaderboard package."""

OWNER = "user-app"
