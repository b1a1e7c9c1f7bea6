"""What the local gateway does on its own, beyond routing: proxy events, failures, URL details."""

from __future__ import annotations

import dataclasses
import hashlib
import threading
import time

import pytest
import requests

from cdk_leaderboard_lambda.web import routes

from .stack_config import ADMIN_KEY, API_KEY, DASHBOARD_ORIGIN, OTHER_ORIGIN


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

    monkeypatch.setitem(stack.gateway.handlers, "cdk_leaderboard_lambda.handlers.leaderboard_query.handler", spy)
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
    monkeypatch.setitem(stack.gateway.handlers, "cdk_leaderboard_lambda.handlers.leaderboard_query.handler", broken)
    resp = requests.get(api.url + "/leaderboard", headers={"Origin": DASHBOARD_ORIGIN}, timeout=10)
    assert resp.status_code == 502 and resp.json() == {"error": "Internal server error"}
    assert resp.headers["Access-Control-Allow-Origin"] == DASHBOARD_ORIGIN
    assert "Traceback" in capfd.readouterr().err  # logged for the developer, not sent to the client


def test_each_function_has_the_timeout_of_the_template(stack):
    timeouts = stack.gateway.config.timeouts
    assert set(timeouts) == {fn.name for fn in routes.FUNCTIONS}
    for res in stack.template["Resources"].values():
        if res["Type"] == "AWS::Lambda::Function":
            fn = next(f for f in routes.FUNCTIONS if f.handler == res["Properties"]["Handler"])
            assert timeouts[fn.name] == res["Properties"]["Timeout"]


def _slow(seconds):
    def handler(event, context):
        time.sleep(seconds)
        return {"statusCode": 200, "body": "{}"}

    return handler


def test_a_function_past_its_timeout_is_a_502_like_a_lambda_timeout(api, stack, monkeypatch):
    """Lambda stops the function at its timeout; API Gateway answers 502 (its DEFAULT_5XX response). The function
    runs until the test has its answer: an answer at all shows the gateway did not wait for it (no upper time bound
    to miss on a loaded machine)."""
    released = threading.Event()

    def held(event, context):
        released.wait(30)
        return {"statusCode": 200, "body": "{}"}

    monkeypatch.setitem(stack.gateway.config.timeouts, "leaderboard-query", 1)
    monkeypatch.setitem(stack.gateway.handlers, "cdk_leaderboard_lambda.handlers.leaderboard_query.handler", held)
    started = time.monotonic()
    try:
        resp = requests.get(api.url + "/leaderboard", headers={"Origin": OTHER_ORIGIN}, timeout=10)
    finally:
        released.set()
    assert resp.status_code == 502 and resp.json() == {"error": "Internal server error"}
    assert time.monotonic() - started >= 1  # not before the function's timeout
    assert resp.headers["Access-Control-Allow-Origin"] == DASHBOARD_ORIGIN  # a gateway answer: static origin


def test_a_function_longer_than_the_integration_timeout_is_a_504(api, stack, monkeypatch):
    """A function allowed more than API Gateway's 29 s still gets cut off by the gateway, with a 504."""
    config = dataclasses.replace(stack.gateway.config, integration_timeout=1)
    monkeypatch.setattr(stack.gateway, "config", config)
    monkeypatch.setitem(config.timeouts, "score-simulator", 60)
    monkeypatch.setitem(stack.gateway.handlers, "cdk_leaderboard_lambda.handlers.score_simulator.handler", _slow(3))
    resp = requests.post(api.url + "/simulate", json={"players": 1}, headers={"x-api-key": ADMIN_KEY}, timeout=10)
    assert resp.status_code == 504 and resp.json() == {"error": "Endpoint request timed out"}


def test_undeclared_methods_are_405_with_allow(api):
    for method in ("PUT", "PATCH", "TRACE", "DELETE", "HEAD"):
        resp = requests.request(method, api.url + "/leaderboards", timeout=10)
        assert resp.status_code == 405, method
        assert resp.headers["Allow"] == "GET, OPTIONS, POST"


def test_the_handler_sees_the_id_of_the_key_used(api, stack, monkeypatch):
    seen = []

    def spy(event, context):
        seen.append(event["requestContext"]["identity"])
        return {"statusCode": 200, "body": "{}"}

    monkeypatch.setitem(stack.gateway.handlers, "cdk_leaderboard_lambda.handlers.score_submit.handler", spy)
    monkeypatch.setitem(stack.gateway.handlers, "cdk_leaderboard_lambda.handlers.leaderboard_admin.handler", spy)
    api.post("/scores", {"player_id": "a", "score": 1})
    api.post("/leaderboards", {"board_id": "spied"})
    api.get("/leaderboards")
    game_id, admin_id = stack.keys.key_id(API_KEY), stack.keys.key_id(ADMIN_KEY)
    assert [i["apiKeyId"] for i in seen] == [game_id, admin_id, None]
    assert [i["apiKey"] for i in seen] == [API_KEY, ADMIN_KEY, None]  # the value the functions tell classes by
    # ids as API Gateway gives them: random, nothing to do with the value (a rotation gives a new one)
    assert game_id != admin_id and all(len(i) == 10 and i.isalnum() and i.islower() for i in (game_id, admin_id))
    assert hashlib.sha256(API_KEY.encode()).hexdigest()[:10] != game_id


def test_a_reset_past_the_engines_record_budget_runs_on_a_new_engine_at_the_same_endpoint(api, stack, monkeypatch):
    """The tests' `clean` resets start a new DynamoDB Local once dropped streams would slow it (see reset_tables):
    the handlers, the stream consumers and the endpoint carry on with it."""
    from local import backend, dynamodb_local

    def engine_pid() -> int:
        return next(p.pid for name, p in stack.procs.running() if name == dynamodb_local.PROCESS_NAME)

    assert api.post("/scores", {"player_id": "before-reset", "score": 5}).status_code == 200
    stack.settle()
    before = engine_pid()
    monkeypatch.setattr(backend, "FRESH_ENGINE_AFTER", 0)
    stack.reset_tables()
    assert engine_pid() != before
    assert api.get("/leaderboard").json()["entries"] == []
    assert api.post("/scores", {"player_id": "after-reset", "score": 7}).status_code == 200
    stack.settle()  # the consumers read the new engine's stream: the rank and total are counted
    me = api.get("/player", params={"player_id": "after-reset"}).json()
    assert [(b["rank"], b["total_players"]) for b in me["boards"]] == [(1, 1)] * 3


def test_a_request_line_past_the_gateways_limit_is_a_414_in_json(api):
    """The stdlib refuses a request line past 64 KiB before any route is matched: answered like the gateway's other
    errors (JSON with "error"), not its HTML page; the document declares 414 on every operation."""
    resp = requests.get(f"{api.url}/leaderboard", params={"period": "x" * 70_000}, timeout=30)
    assert resp.status_code == 414, resp.text
    assert resp.headers["Content-Type"] == "application/json" and "error" in resp.json()
    assert api.get("/leaderboard").status_code == 200  # and the gateway serves the next request
