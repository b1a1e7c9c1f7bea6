"""The app's own schema module: a name the Lambda package also uses."""

OWNER = "user-app"
