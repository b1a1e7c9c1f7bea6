"""The app's own routes module."""

OWNER = "user-app"
