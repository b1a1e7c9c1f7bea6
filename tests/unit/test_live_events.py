"""The AppSync Events publish client against a real local HTTP endpoint (what it sends, how it is signed, how it
fails) and discovery: GET /leaderboards/{board}'s `live` field."""

from __future__ import annotations

import json
import re

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from cdk_leaderboard_lambda.data import live_events
from cdk_leaderboard_lambda.shared import live_channels
from local import invocation
from tests.support import openapi_check
from tests.support.lambda_api import call
from tests.support.live_endpoint import Endpoint

KEY_ID, SECRET, TOKEN, REGION = "AKIDLIVETEST", "live-test-secret", "live-test-session-token", "eu-west-1"
AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[a-z0-9-]+)/(?P<service>[a-z]+)"
    r"/aws4_request, SignedHeaders=(?P<signed>[a-z0-9;-]+), Signature=(?P<signature>[0-9a-f]{64})"
)


def expected_signature(received: dict, url: str, signed_headers: list[str]) -> str:
    """The signature AppSync would compute for this request with our credentials (botocore's SigV4)."""
    lowered = {k.lower(): v for k, v in received["headers"].items()}
    request = AWSRequest(method="POST", url=url, data=received["body"], headers={h: lowered[h] for h in signed_headers})
    request.context["timestamp"] = lowered["x-amz-date"]
    auth = SigV4Auth(Credentials(KEY_ID, SECRET, TOKEN), "appsync", REGION)
    return auth.signature(auth.string_to_sign(request, auth.canonical_request(request)), request)


@pytest.fixture
def endpoint(monkeypatch, reconfigure):
    server = Endpoint()
    for name, value in {
        "SCORES_TABLE": "scores",
        "SNAPSHOTS_TABLE": "snapshots",
        "LIVE_EVENTS_HTTP_URL": server.url,
        "AWS_ACCESS_KEY_ID": KEY_ID,
        "AWS_SECRET_ACCESS_KEY": SECRET,
        "AWS_SESSION_TOKEN": TOKEN,
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
    }.items():
        monkeypatch.setenv(name, value)
    reconfigure()
    yield server
    server.close()
    reconfigure()


def top_event(n: int = 1) -> dict:
    return {"type": "top", "board": "global", "period": "daily", "period_id": "daily-2026-12-01", "entries": [n]}


def test_publish_posts_the_documented_body_signed_with_sigv4_for_appsync(endpoint):
    channel = live_channels.channel("global", "daily")
    invocation.runtime().live.publish(channel, [top_event(1), top_event(2)])

    (received,) = endpoint.requests
    assert received["path"] == "/event"
    headers = {k.lower(): v for k, v in received["headers"].items()}
    assert headers["content-type"] == "application/json"
    body = json.loads(received["body"])
    compact = [json.dumps(top_event(n), separators=(",", ":")) for n in (1, 2)]
    assert body == {"channel": "/leaderboard/global/daily", "events": compact}
    assert [json.loads(e) for e in body["events"]] == [top_event(1), top_event(2)]  # each a JSON string

    signed = AUTHORIZATION.fullmatch(headers["authorization"])
    assert signed, headers["authorization"]
    assert (signed["key"], signed["region"], signed["service"]) == (KEY_ID, REGION, "appsync")
    assert headers["x-amz-date"].startswith(signed["date"]) and re.fullmatch(r"\d{8}T\d{6}Z", headers["x-amz-date"])
    assert headers["x-amz-security-token"] == TOKEN  # temporary credentials (a Lambda role's) send their token
    names = signed["signed"].split(";")
    assert {"host", "x-amz-date", "x-amz-security-token"} <= set(names)
    assert headers["host"] == endpoint.url.removeprefix("http://")
    assert signed["signature"] == expected_signature(received, endpoint.url + "/event", names)


def test_a_tampered_body_does_not_verify(endpoint):
    """The signature check above can fail: the same headers over another body give another signature."""
    invocation.runtime().live.publish("/leaderboard/global/daily", [top_event()])
    (received,) = endpoint.requests
    headers = {k.lower(): v for k, v in received["headers"].items()}
    signed = AUTHORIZATION.fullmatch(headers["authorization"])
    tampered = {**received, "body": received["body"].replace(b"global", b"gl0bal")}
    names = signed["signed"].split(";")
    assert signed["signature"] != expected_signature(tampered, endpoint.url + "/event", names)


@pytest.mark.parametrize("status", [400, 401, 403, 500])
def test_a_non_2xx_answer_raises_with_the_status_and_answer(endpoint, status):
    endpoint.status, endpoint.answer = status, {"errors": [{"errorType": "UnauthorizedException"}]}
    with pytest.raises(live_events.PublishFailed, match=f"answered {status}.*UnauthorizedException") as raised:
        invocation.runtime().live.publish("/leaderboard/global/daily", [top_event()])
    assert raised.value.status == status


def test_an_event_appsync_refused_in_a_200_answer_raises(endpoint):
    endpoint.answer = {"successful": [], "failed": [{"identifier": "x", "index": 0, "code": 400}]}
    with pytest.raises(live_events.PublishFailed, match="refused events"):
        invocation.runtime().live.publish("/leaderboard/global/daily", [top_event()])


def test_no_answer_within_the_timeout_raises(endpoint, monkeypatch):
    monkeypatch.setattr(live_events, "TIMEOUT_SECONDS", 0.2)
    endpoint.delay = 5.0  # released at teardown
    with pytest.raises(live_events.PublishFailed, match="got no answer"):
        invocation.runtime().live.publish("/leaderboard/global/daily", [top_event()])


def test_a_closed_port_raises(endpoint, monkeypatch):
    endpoint.close()
    with pytest.raises(live_events.PublishFailed, match="got no answer"):
        invocation.runtime().live.publish("/leaderboard/global/daily", [top_event()])


@pytest.mark.parametrize("count", [0, 6])
def test_a_publish_carries_one_to_five_events_and_sends_nothing_otherwise(endpoint, count):
    with pytest.raises(ValueError, match="1 to 5 events"):
        invocation.runtime().live.publish("/leaderboard/global/daily", [top_event(n) for n in range(count)])
    assert endpoint.requests == []


def test_publishing_without_an_endpoint_is_a_clear_error(endpoint, monkeypatch, reconfigure):
    monkeypatch.delenv("LIVE_EVENTS_HTTP_URL")
    reconfigure()
    with pytest.raises(RuntimeError, match="LIVE_EVENTS_HTTP_URL is not set"):
        invocation.runtime().live.publish("/leaderboard/global/daily", [top_event()])


# --- discovery ------------------------------------------------------------------------------------------


LIVE_ENV = {
    "LIVE_EVENTS_HTTP_URL": "https://abc123.appsync-api.eu-west-1.amazonaws.com",
    "LIVE_EVENTS_REALTIME_URL": "wss://abc123.appsync-realtime-api.eu-west-1.amazonaws.com/event/realtime",
    "LIVE_EVENTS_API_KEY": "da2-subscribeonlykey",
}


@pytest.fixture
def live_on(ddb, monkeypatch, reconfigure):
    for name, value in LIVE_ENV.items():
        monkeypatch.setenv(name, value)
    reconfigure()
    return ddb


def test_discovery_tells_how_to_follow_each_period_of_the_board(live_on):
    status, board = call("GET", "/leaderboards/global")[:2]
    assert status == 200
    host = "abc123.appsync-api.eu-west-1.amazonaws.com"
    assert board["live"] == {
        "realtime_url": LIVE_ENV["LIVE_EVENTS_REALTIME_URL"],
        "http_host": host,
        "token_path": "/leaderboards/global/scores",  # a token per connection; no API key is handed out
        "channels": {p["period"]: f"/leaderboard/global/{p['period']}" for p in board["periods"]},
    }
    assert set(board["live"]["channels"]) == {"all-time", "daily", "weekly"}


def test_discovery_encodes_board_ids_into_channel_paths_and_names_a_tournament_s_one_period(live_on):
    window = {"starts_at": "2026-01-01T00:00:00Z", "ends_at": "2099-01-01T00:00:00Z"}
    created = call("POST", "/leaderboards", body={"board_id": "cup_2026-", **window})
    assert created.status == 201, created.body
    board = call("GET", "/leaderboards/cup_2026-").body
    assert board["live"]["channels"] == {"tournament": "/leaderboard/cupU2026D/tournament"}
    assert live_channels.parse(board["live"]["channels"]["tournament"]) == ("cup_2026-", "tournament")


def test_no_live_field_when_live_updates_are_off(ddb, monkeypatch, reconfigure):
    for name in LIVE_ENV:
        monkeypatch.delenv(name, raising=False)
    reconfigure()
    status, board = call("GET", "/leaderboards/global")[:2]
    assert status == 200 and "live" not in board


def test_with_live_off_discovery_is_the_same_board_without_live_as_the_document_says(ddb, monkeypatch, reconfigure):
    """Live(enabled=False) gives the admin function none of LIVE_EVENTS_* (tests/infra/test_live_off.py): the
    answer is the live-on answer minus `live`, which the OpenAPI document's Board schema leaves optional (`call`
    validates the answer against it)."""
    for name, value in LIVE_ENV.items():
        monkeypatch.setenv(name, value)
    reconfigure()
    on = call("GET", "/leaderboards/global").body
    for name in LIVE_ENV:
        monkeypatch.delenv(name)
    reconfigure()
    off = call("GET", "/leaderboards/global")
    assert off.status == 200
    assert off.body == {k: v for k, v in on.items() if k != "live"} and "live" in on
    board_schema = openapi_check.DOCUMENT["components"]["schemas"]["Board"]
    assert "live" in board_schema["properties"] and "live" not in board_schema.get("required", [])
