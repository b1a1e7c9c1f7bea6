"""CORS as the deployed API does it: preflight by the gateway, headers on every response."""

from __future__ import annotations

import re

import pytest
import requests

from cdk_leaderboard_lambda.web import routes

from .stack_config import ADMIN_KEY, API_KEY, DASHBOARD_ORIGIN, OTHER_ORIGIN

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
    """A foreign origin gets the first allowed origin back, which its browser rejects (public reads answer "*" to
    every origin: test_edge.py)."""
    for resp in (
        requests.options(api.url + "/scores", headers={"Origin": "https://evil.example"}, timeout=10),
        requests.post(api.url + "/scores", json={}, headers={"Origin": "https://evil.example"}, timeout=10),
        requests.get(api.url + "/nope", headers={"Origin": "https://evil.example"}, timeout=10),
    ):
        assert resp.headers["Access-Control-Allow-Origin"] == DASHBOARD_ORIGIN
        assert "Origin" in resp.headers["Vary"]


# The handlers answer with the caller's origin when it is allowed, and "*" on public reads (no credentials; one
# answer cached at the edge serves every origin). API Gateway's own answers (gateway responses:
# bad key, unknown route, failed validation; the mock 405) carry ONE static origin, "*" or the first allowed one,
# whatever the caller's: a page on another allowed origin cannot read why the gateway refused it.
HANDLER, GATEWAY, PUBLIC_READ = OTHER_ORIGIN, DASHBOARD_ORIGIN, "*"


@pytest.mark.parametrize(
    "method, path, kwargs, status, origin",
    [
        ("GET", "/leaderboard", {}, 200, PUBLIC_READ),
        (
            "POST",
            "/scores",
            {"json": {"player_id": "cors", "score": 1}, "headers": {"x-api-key": API_KEY}},
            200,
            HANDLER,
        ),
        ("POST", "/snapshot", {"json": {}, "headers": {"x-api-key": ADMIN_KEY}}, 201, HANDLER),
        ("GET", "/player?player_id=nobody", {}, 404, PUBLIC_READ),  # a public read's handler error
        (
            "POST",
            "/scores",
            {"json": {"player_id": "cors", "score": "x"}, "headers": {"x-api-key": API_KEY}},
            400,
            GATEWAY,
        ),  # the body model (application/json)
        (
            "POST",
            "/scores",
            {
                "data": '{"player_id": "cors", "score": "x"}',
                "headers": {"x-api-key": API_KEY, "Content-Type": "text/plain"},
            },
            400,
            HANDLER,
        ),  # another content type: no model applies, the handler refuses it
        ("POST", "/scores", {"data": "{", "headers": {"x-api-key": API_KEY}}, 400, GATEWAY),
        ("POST", "/scores", {"json": {"player_id": "cors", "score": 1}}, 403, GATEWAY),  # missing key
        ("GET", "/nope", {}, 404, GATEWAY),
        ("DELETE", "/scores", {}, 405, GATEWAY),
        (
            "POST",
            "/scores",
            {"data": b"x" * 70_000, "headers": {"x-api-key": API_KEY, "Content-Type": "text/plain"}},
            413,
            HANDLER,
        ),  # the API's 64 KiB limit is the handler's
    ],
)
def test_every_response_carries_cors_headers(api, method, path, kwargs, status, origin):
    """Success and error alike: a browser page can read the answer (including why it failed)."""
    headers = {"Origin": OTHER_ORIGIN, **kwargs.pop("headers", {})}
    resp = requests.request(method, api.url + path, headers=headers, timeout=30, **kwargs)
    assert resp.status_code == status, resp.text
    assert resp.headers["Access-Control-Allow-Origin"] == origin
    assert ("Origin" in resp.headers.get("Vary", "")) == (origin != PUBLIC_READ)


def test_gateway_answers_carry_the_origin_of_the_templates_gateway_responses(stack):
    """Without origins of its own, the local stack takes the static origin from the synthesized template."""
    from local import template as tpl

    origin = tpl.gateway_response_origin(stack.template)
    assert origin is not None
    answers = tpl.api_definition(stack.template)["x-amazon-apigateway-gateway-responses"].values()
    values = {r["responseParameters"]["gatewayresponse.header.Access-Control-Allow-Origin"] for r in answers}
    assert values == {f"'{origin}'"}
