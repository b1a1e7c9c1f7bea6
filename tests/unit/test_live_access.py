"""Live subscribe tokens and the Event API's Lambda authorizer (live_access.py), through the score-submit function's
own handler as API Gateway and AppSync Events call it: a token buys LIVE_TOKEN_OPERATIONS connects and subscribes
to its own board's channels, nothing without one, nothing once the kill switch is off."""

from __future__ import annotations

import time

import pytest

from cdk_leaderboard_lambda.domain import tokens
from cdk_leaderboard_lambda.operations import live_access
from cdk_leaderboard_lambda.shared import limits, live_channels
from local import invocation
from tests.support.lambda_api import call


@pytest.fixture
def live_tokens_on(in_memory, monkeypatch, reconfigure):
    monkeypatch.setenv("LIVE_TOKENS", "1")
    reconfigure()
    live_access.forget_switch(invocation.runtime())
    yield
    live_access.forget_switch(invocation.runtime())


def authorizer_request(token: object, operation: str, channel: str | None = None) -> dict:
    """What AppSync Events sends its Lambda authorizer (AWS_LAMBDA mode) for a connect or a subscribe."""
    context = {"apiId": "local", "accountId": "123456789012", "requestId": "r", "operation": operation}
    if channel is not None:
        context |= {"channelNamespaceName": live_channels.NAMESPACE, "channel": channel}
    return {"authorizationToken": token, "requestContext": context, "requestHeaders": {}}


def authorize(token: object, operation: str, channel: str | None = None) -> dict:
    from cdk_leaderboard_lambda.handlers import score_submit

    return score_submit.handler_for(invocation.runtime())(authorizer_request(token, operation, channel))


def live_token(board: str = "global") -> str:
    reply = call("GET", f"/leaderboards/{board}/scores")
    assert reply.status == 200, reply.body
    assert reply.body["operations"] == limits.LIVE_TOKEN_OPERATIONS
    return reply.body["token"]


def test_a_token_connects_and_subscribes_to_its_board_and_the_answer_is_never_cached(live_tokens_on):
    token = live_token()
    assert authorize(token, live_access.CONNECT) == {"isAuthorized": True, "ttlOverride": 0}
    assert authorize(token, live_access.SUBSCRIBE, live_channels.channel("global", "daily"))["isAuthorized"]


def test_no_token_a_forged_one_or_a_player_token_is_refused(live_tokens_on):
    runtime = invocation.runtime()
    keys, issuer = runtime.token_keys, runtime.settings.token_issuer
    player_token, _ = tokens.issue(keys, issuer, tokens.PLAYER_AUDIENCE, "p1", 600, now=invocation.seconds())
    forged = live_token()[:-4] + "AAAA"
    for token in (None, "", "not-a-token", forged, player_token):
        assert authorize(token, live_access.CONNECT)["isAuthorized"] is False, token


def test_a_token_subscribes_to_its_own_board_only_and_never_publishes(live_tokens_on):
    token = live_token("global")
    assert authorize(token, live_access.SUBSCRIBE, live_channels.channel("other", "daily"))["isAuthorized"] is False
    assert authorize(token, live_access.SUBSCRIBE, "/leaderboard/*")["isAuthorized"] is False
    channel = live_channels.channel("global", "daily")
    assert authorize(token, "EVENT_PUBLISH", channel)["isAuthorized"] is False


def test_a_token_buys_a_bounded_number_of_connects_and_subscribes(live_tokens_on):
    token = live_token()
    answers = [authorize(token, live_access.CONNECT)["isAuthorized"] for _ in range(limits.LIVE_TOKEN_OPERATIONS + 3)]
    assert answers == [True] * limits.LIVE_TOKEN_OPERATIONS + [False] * 3
    assert authorize(live_token(), live_access.CONNECT)["isAuthorized"]  # a new token starts afresh


def test_an_expired_token_is_refused(live_tokens_on):
    lapsed = invocation.seconds() - limits.LIVE_TOKEN_SECONDS - tokens.LEEWAY_SECONDS - 1
    runtime = invocation.runtime()
    keys, issuer = runtime.token_keys, runtime.settings.token_issuer
    token, _ = tokens.issue(
        keys, issuer, tokens.LIVE_AUDIENCE, "global", limits.LIVE_TOKEN_SECONDS, {"jti": "old"}, now=lapsed
    )
    assert authorize(token, live_access.CONNECT)["isAuthorized"] is False


def test_the_kill_switch_refuses_new_connects_and_subscribes_and_the_switch_back_admits_them(live_tokens_on):
    token = live_token()
    invocation.runtime().live_state.set_switch(off=True, at=0)
    live_access.forget_switch(invocation.runtime())  # as an instance would after LIVE_SWITCH_CACHE_SECONDS
    assert authorize(token, live_access.CONNECT)["isAuthorized"] is False
    assert authorize(token, live_access.SUBSCRIBE, live_channels.channel("global", "daily"))["isAuthorized"] is False
    invocation.runtime().live_state.set_switch(off=False, at=1)
    live_access.forget_switch(invocation.runtime())
    assert authorize(token, live_access.CONNECT)["isAuthorized"] is True


def test_a_board_that_does_not_exist_has_no_token(live_tokens_on):
    assert call("GET", "/leaderboards/no-such-board/scores").status == 404


def test_without_live_updates_there_is_no_token(in_memory, monkeypatch, reconfigure):
    monkeypatch.delenv("LIVE_TOKENS", raising=False)  # Live(enabled=False): the stack sets no flag
    reconfigure()
    reply = call("GET", "/leaderboards/global/scores")
    assert reply.status == 404 and "live updates are off" in reply.body["error"]


def test_a_board_hands_out_a_bounded_number_of_tokens_a_minute(live_tokens_on, monkeypatch):
    monkeypatch.setattr(limits, "LIVE_TOKENS_PER_BOARD_MINUTE", 3)
    minute_left = 60 - int(invocation.seconds()) % 60
    if minute_left < 5:  # not across a minute's boundary (the test's clock is the system's)
        time.sleep(minute_left)
    answers = [call("GET", "/leaderboards/global/scores").status for _ in range(5)]
    assert answers == [200, 200, 200, 429, 429]
    refused = call("GET", "/leaderboards/global/scores")
    assert 0 < int(refused.headers["Retry-After"]) <= 60
