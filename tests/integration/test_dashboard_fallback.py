"""Without nginx, Python serves the site and the same two proxies (dashboard_ec2/nginx.conf's
/api/ and /admin-api/), so `make run` still gives a working dashboard."""

from __future__ import annotations

import pytest
import requests

from local import dashboard, static_proxy
from local.dynamodb_local import free_port

from .stack_config import ADMIN_KEY


@pytest.fixture(scope="module")
def site(stack, tmp_path_factory):
    port = free_port()
    root = dashboard.prepare_site(tmp_path_factory.mktemp("site") / "site", stack.api_url)
    server = static_proxy.serve(port, root, stack.api_url, ADMIN_KEY, "admin", "pw")
    yield f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()


def test_serves_the_site_and_a_local_config(site):
    assert requests.get(f"{site}/config.json", timeout=10).json()["apiBase"] == "/api"
    index = requests.get(f"{site}/", timeout=10)
    assert index.status_code == (200 if (dashboard.SITE_SRC / "index.html").exists() else 404)


def test_proxies_public_reads_without_credentials(site, api):
    api.post("/scores", {"player_id": "fallback", "score": 5})
    assert requests.get(f"{site}/api/leaderboard?limit=100", timeout=10).json()["entries"]
    assert requests.post(f"{site}/api/scores", json={"player_id": "x", "score": 1}, timeout=10).status_code == 405


def test_admin_routes_need_the_password_and_add_the_key(site):
    assert requests.get(f"{site}/admin-api/session", timeout=10).status_code == 401
    assert "WWW-Authenticate" not in requests.get(f"{site}/admin-api/session", timeout=10).headers
    assert requests.post(f"{site}/admin-api/simulate", json={"players": 2}, timeout=30).status_code == 401
    ok = requests.post(f"{site}/admin-api/simulate", json={"players": 2}, auth=("admin", "pw"), timeout=30)
    assert ok.status_code == 200 and ok.json()["players"] == 2
    assert requests.get(f"{site}/admin-api/session", auth=("admin", "pw"), timeout=10).status_code == 204
    assert requests.post(f"{site}/admin-api/scores", json={}, auth=("admin", "pw"), timeout=10).status_code == 404
