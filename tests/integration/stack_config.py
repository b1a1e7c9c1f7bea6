"""Settings of the test session's local stack, shared by conftest.py and the tests."""

API_KEY = "integration-test-key"  # the game key: score submissions
ADMIN_KEY = "integration-admin-key"  # the admin key: boards, snapshots, the simulator
# Two allowed origins, so tests can tell "echoes the caller's origin" from "always the first".
DASHBOARD_ORIGIN = "http://127.0.0.1:8080"
OTHER_ORIGIN = "https://scores.example.com"
