"""The app's own handlers package."""

OWNER = "user-app"
