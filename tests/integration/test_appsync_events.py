"""The local AppSync Events stand-in's HTTP publish endpoint (`POST <LIVE_EVENTS_HTTP_URL>/event`), over HTTP as the
broadcaster calls it: SigV4-signed with the local fake credentials (botocore, service appsync), at most 5 events,
each a JSON string; an API-key publish, a wrong signature, an unknown namespace and bad bodies get AppSync's
answers. (The WebSocket side is in test_live.py.)"""

from __future__ import annotations

import asyncio
import json

import pytest
import requests
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from bench.live_subscribers import Subscriber
from local.dynamodb_local import FAKE_CREDENTIALS

from .stack_config import ADMIN_KEY

REGION = FAKE_CREDENTIALS["AWS_DEFAULT_REGION"]


def _signed_post(url: str, body: bytes, secret: str = FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"], region: str = REGION):
    request = AWSRequest(method="POST", url=url, data=body, headers={"content-type": "application/json"})
    SigV4Auth(Credentials(FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"], secret), "appsync", region).add_auth(request)
    prepared = request.prepare()
    return requests.post(prepared.url, data=prepared.body, headers=dict(prepared.headers), timeout=30)


def _publish(stack, channel: str, events: list, **kw) -> requests.Response:
    body = json.dumps({"channel": channel, "events": events}).encode()
    return _signed_post(f"{stack.live.http_url}/event", body, **kw)


def _error_type(response: requests.Response) -> str:
    return response.json()["errors"][0]["errorType"]


# A board of its own, never written to, so that no broadcast uses its channel (a live token subscribes only to the
# channels its board publishes).
BOARD = "appsync-http"
CHANNEL = f"/leaderboard/{BOARD}/all-time"


def _live(stack) -> dict:
    """What a subscriber needs: the endpoints, and where to get a live token (each Subscriber gets its own)."""
    board = requests.post(
        f"{stack.api_url}/leaderboards",
        json={"board_id": BOARD, "periods": ["all-time"]},
        headers={"x-api-key": ADMIN_KEY},
        timeout=30,
    )
    assert board.status_code in (201, 409), board.text  # 409: made by an earlier test of this stack
    return {
        "realtime_url": stack.live.realtime_url,
        "http_host": stack.live.http_host,
        "api_url": stack.api_url,
        "token_path": f"/leaderboards/{BOARD}/scores",
    }


def test_a_signed_publish_reaches_a_subscriber_as_a_data_message(stack):
    live = _live(stack)

    async def scenario():
        subscriber = await Subscriber(live, CHANNEL).open()
        try:
            events = [json.dumps({"n": 1}), json.dumps("two"), json.dumps([3])]
            answer = await asyncio.to_thread(_publish, stack, CHANNEL, events)
            assert answer.status_code == 200, answer.text
            assert [s["index"] for s in answer.json()["successful"]] == [0, 1, 2] and answer.json()["failed"] == []
            while len(subscriber.events()) < 3:
                await asyncio.sleep(0.02)
            raw = json.loads(subscriber.frames[0][1])
            assert raw == {"type": "data", "id": subscriber.subscription_id, "event": events[0]}
            return [event for _, event in subscriber.events()]
        finally:
            await subscriber.close()

    assert asyncio.run(scenario()) == [{"n": 1}, "two", [3]]


def test_publishing_with_the_api_key_is_refused(stack):
    r = requests.post(
        f"{stack.live.http_url}/event",
        json={"channel": "/leaderboard/global/all-time", "events": ["{}"]},
        headers={"x-api-key": stack.live_api_key},
        timeout=30,
    )
    assert r.status_code == 401 and _error_type(r) == "UnauthorizedException"
    assert r.headers["x-amzn-ErrorType"] == "UnauthorizedException"


def test_publishing_without_auth_is_refused(stack):
    r = requests.post(f"{stack.live.http_url}/event", json={"channel": "/leaderboard/g/all-time", "events": ["{}"]})
    assert r.status_code == 401 and _error_type(r) == "UnauthorizedException"


@pytest.mark.parametrize(
    "signing", [{"secret": "not-the-secret"}, {"region": "eu-west-1"}], ids=["wrong-secret", "wrong-region"]
)
def test_a_wrong_signature_is_refused(stack, signing):
    r = _publish(stack, "/leaderboard/global/all-time", ["{}"], **signing)
    assert r.status_code == 403 and _error_type(r) == "BadRequestException"
    assert "signature" in r.json()["errors"][0]["message"]


def test_a_body_changed_after_signing_is_refused(stack):
    body = json.dumps({"channel": "/leaderboard/global/all-time", "events": ["{}"]}).encode()
    request = AWSRequest(method="POST", url=f"{stack.live.http_url}/event", data=body)
    SigV4Auth(
        Credentials(FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"], FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"]), "appsync", REGION
    ).add_auth(request)
    prepared = request.prepare()
    tampered = body.replace(b"global", b"other1")
    r = requests.post(prepared.url, data=tampered, headers=dict(prepared.headers), timeout=30)
    assert r.status_code == 403 and _error_type(r) == "BadRequestException"


@pytest.mark.parametrize(
    ("channel", "events", "says"),
    [
        ("/other/global/all-time", ["{}"], "namespace"),
        ("/leaderboard/global/all-time", ["{}"] * 6, "at most 5"),
        ("/leaderboard/global/all-time", [], "non-empty"),
        ("/leaderboard/global/all-time", [{"not": "a string"}], "stringified"),
        ("/leaderboard/global/all-time", ["not json"], "stringified"),
        ("/leaderboard/global/all-time", [json.dumps("x" * (240 * 1024))], "240 kb"),
        ("/leaderboard/bad_part", ["{}"], "channel"),
    ],
    ids=["unknown-namespace", "six-events", "no-events", "not-a-string", "not-json", "over-240-KB", "bad-channel"],
)
def test_a_bad_publish_gets_bad_request(stack, channel, events, says):
    r = _publish(stack, channel, events)
    assert r.status_code == 400 and _error_type(r) == "BadRequestException", r.text
    assert says in r.json()["errors"][0]["message"].lower()


def test_only_post_event_is_served(stack):
    assert requests.get(f"{stack.live.http_url}/event", timeout=30).status_code == 404
    r = _signed_post(f"{stack.live.http_url}/graphql", b"{}")
    assert r.status_code == 404


def test_the_period_closer_renews_the_stand_in_s_key_through_the_local_stack(stack):
    """The renewal task, run with the local stack's runtime (its settings name the stand-in's key and control plane),
    extends the stand-in's key to 90 days ahead of the stack's clock through the same boto3 client as on AWS (SigV4
    checked); the key's value is unchanged."""
    from cdk_leaderboard_lambda.handlers import period_closer
    from cdk_leaderboard_lambda.shared import limits
    from local import invocation

    # The stack's own schedule ran it once at start (AppSync's 7 days would otherwise apply) ...
    assert (stack.live.key.expires - stack.clock.now().timestamp()) / 86400 > 80
    stack.live.key.expires -= 30 * 86400  # ... as if the last renewal were a month old
    answer = period_closer.handler_for(invocation.runtime())({"task": limits.RENEW_LIVE_KEY_TASK})
    assert stack.live.key.expires == answer["live_key_expires"]
    assert 89 < (answer["live_key_expires"] - stack.clock.now().timestamp()) / 86400 <= 90
    # (The key admits no subscriber: test_live.py's connection test shows it refused.)
