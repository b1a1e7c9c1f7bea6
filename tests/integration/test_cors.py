"""CORS as the deployed API does it: preflight by the gateway, headers on every response."""

from __future__ import annotations

import re

import pytest
import requests
from leaderboard import routes

from .stack_config import API_KEY, DASHBOARD_ORIGIN, OTHER_ORIGIN

# Every route path, with a sample value for each {parameter}.
PATHS = sorted({re.sub(r"\{[^}]+\}", "sample", r.path) for r in routes.ROUTES})


@pytest.mark.parametrize("path", PATHS)
def test_preflight_is_answered_by_the_gateway(api, path):
    """OPTIONS on every route path: 204 with the path's methods, the key header and a max age."""
    resp = requests.options(
        api.url + path,
        headers={
            "Origin": OTHER_ORIGIN,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-api-key",
        },
        timeout=10,
    )
    assert resp.status_code == 204 and resp.content == b""
    assert resp.headers["Access-Control-Allow-Origin"] == OTHER_ORIGIN
    methods = set(resp.headers["Access-Control-Allow-Methods"].split(","))
    assert methods == {r.method for r in routes.ROUTES if r.match(path) is not None} | {"OPTIONS"}
    allowed_headers = {h.strip().lower() for h in resp.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"content-type", "x-api-key", "authorization"} <= allowed_headers
    assert int(resp.headers["Access-Control-Max-Age"]) > 0


def test_preflight_of_an_unknown_path_is_a_404_with_cors(api):
    resp = requests.options(api.url + "/nope", headers={"Origin": DASHBOARD_ORIGIN}, timeout=10)
    assert resp.status_code == 404 and resp.headers["Access-Control-Allow-Origin"] == DASHBOARD_ORIGIN


def test_an_origin_that_is_not_allowed_is_never_echoed(api):
    """A foreign origin gets the first allowed origin back, which its browser rejects."""
    for resp in (
        requests.options(api.url + "/scores", headers={"Origin": "https://evil.example"}, timeout=10),
        requests.get(api.url + "/leaderboard", headers={"Origin": "https://evil.example"}, timeout=10),
        requests.get(api.url + "/nope", headers={"Origin": "https://evil.example"}, timeout=10),
    ):
        assert resp.headers["Access-Control-Allow-Origin"] == DASHBOARD_ORIGIN
        assert "Origin" in resp.headers["Vary"]


@pytest.mark.parametrize(
    "method, path, kwargs, status",
    [
        ("GET", "/leaderboard", {}, 200),
        ("POST", "/scores", {"json": {"player_id": "cors", "score": 1}, "headers": {"x-api-key": API_KEY}}, 200),
        ("POST", "/snapshot", {"json": {}, "headers": {"x-api-key": API_KEY}}, 201),
        ("GET", "/player?player_id=nobody", {}, 404),  # handler error
        (
            "POST",
            "/scores",
            {"json": {"player_id": "cors", "score": "x"}, "headers": {"x-api-key": API_KEY}},
            400,
        ),  # gateway validation
        ("POST", "/scores", {"data": "{", "headers": {"x-api-key": API_KEY}}, 400),
        ("POST", "/scores", {"json": {"player_id": "cors", "score": 1}}, 403),  # missing key
        ("GET", "/nope", {}, 404),
        ("DELETE", "/scores", {}, 405),
        ("POST", "/scores", {"data": b"x" * 70_000, "headers": {"x-api-key": API_KEY}}, 413),
    ],
)
def test_every_response_carries_cors_headers(api, method, path, kwargs, status):
    """Success and error alike: a browser page can read the answer (including why it failed)."""
    headers = {"Origin": OTHER_ORIGIN, **kwargs.pop("headers", {})}
    resp = requests.request(method, api.url + path, headers=headers, timeout=30, **kwargs)
    assert resp.status_code == status, resp.text
    assert resp.headers["Access-Control-Allow-Origin"] == OTHER_ORIGIN
    assert "Origin" in resp.headers["Vary"]
