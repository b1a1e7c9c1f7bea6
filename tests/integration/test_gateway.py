"""What the local gateway does on its own, beyond routing: proxy events, failures, URL details."""

from __future__ import annotations

import pytest
import requests

from .stack_config import DASHBOARD_ORIGIN


@pytest.fixture(scope="module")
def three_players(stack, api):
    stack.reset_tables()
    for pid, score in [("one", 1), ("two", 2), ("three", 3)]:
        assert api.post("/scores", {"player_id": pid, "score": score}).status_code == 200


def test_trailing_slash_is_the_same_route(api, three_players):
    assert api.get("/leaderboard/").json()["entries"][0]["player_id"] == "three"


def test_repeated_query_keys_take_the_last_value_like_api_gateway(api, three_players):
    assert len(api.get("/leaderboard?limit=1&limit=2").json()["entries"]) == 2


def test_query_values_are_url_decoded(api, stack):
    assert api.post("/scores", {"player_id": "me@host:1", "score": 4}).status_code == 200
    resp = api.get("/player?player_id=me%40host%3A1")
    assert resp.status_code == 200 and resp.json()["player_id"] == "me@host:1"


def test_each_response_has_a_request_id(api):
    ids = {api.get("/leaderboard").headers["x-amzn-RequestId"] for _ in range(3)}
    assert len(ids) == 3


def test_the_handler_sees_a_rest_v1_proxy_event(api, stack, monkeypatch):
    """The event has the fields API Gateway sends; the handler's result goes back as is."""
    seen = {}

    def spy(event, context):
        seen.update(event=event, remaining=context.get_remaining_time_in_millis())
        return {
            "statusCode": 299,
            "headers": {"X-Spy": "1"},
            "multiValueHeaders": {"X-Multi": ["a", "b"]},
            "body": "ok",
        }

    monkeypatch.setitem(stack.gateway.handlers, "leaderboard.handlers.leaderboard_query.handler", spy)
    resp = requests.get(f"{api.url}/leaderboard/?period=daily&limit=2&limit=3", headers={"X-Test": "t"}, timeout=10)
    assert (resp.status_code, resp.text, resp.headers["X-Spy"], resp.headers["X-Multi"]) == (299, "ok", "1", "a, b")
    event = seen["event"]
    assert (event["httpMethod"], event["path"], event["resource"]) == ("GET", "/leaderboard", "/leaderboard")
    assert event["queryStringParameters"] == {"period": "daily", "limit": "3"}
    assert event["multiValueQueryStringParameters"] == {"period": ["daily"], "limit": ["2", "3"]}
    assert event["headers"]["X-Test"] == "t" and event["multiValueHeaders"]["X-Test"] == ["t"]
    assert event["body"] is None and event["isBase64Encoded"] is False and event["pathParameters"] is None
    ctx = event["requestContext"]
    assert (
        ctx["httpMethod"] == "GET"
        and ctx["resourcePath"] == "/leaderboard"
        and ctx["identity"]["sourceIp"] == "127.0.0.1"
    )
    assert ctx["requestId"] == resp.headers["x-amzn-RequestId"]
    assert 0 < seen["remaining"] <= 10_000


@pytest.mark.parametrize(
    "broken",
    [
        lambda event, context: 1 / 0,
        lambda event, context: {"body": "no status code"},
        lambda event, context: None,
    ],
    ids=["raises", "no-status", "none"],
)
def test_a_failing_handler_is_a_502_without_details(api, stack, monkeypatch, capfd, broken):
    monkeypatch.setitem(stack.gateway.handlers, "leaderboard.handlers.leaderboard_query.handler", broken)
    resp = requests.get(api.url + "/leaderboard", headers={"Origin": DASHBOARD_ORIGIN}, timeout=10)
    assert resp.status_code == 502 and resp.json() == {"error": "internal error"}
    assert resp.headers["Access-Control-Allow-Origin"] == DASHBOARD_ORIGIN
    assert "Traceback" in capfd.readouterr().err  # logged for the developer, not sent to the client
