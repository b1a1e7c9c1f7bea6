"""Live subscribe tokens and the Event API's Lambda authorizer (live_access.py), through the score-submit function's
handler (the token route, as API Gateway calls it) and the live-authorizer function's (as AppSync Events calls it):
a client gets a few tokens of a board, a token buys LIVE_TOKEN_OPERATIONS connects and subscribes to the channels
its board publishes, nothing without one, nothing once the kill switch is off."""

from __future__ import annotations

import time

import pytest

from cdk_leaderboard_lambda.domain import tokens
from cdk_leaderboard_lambda.operations import board_catalog, live_access
from cdk_leaderboard_lambda.shared import limits, live_channels
from cdk_leaderboard_lambda.shared.errors import TooManyRequests
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
    from cdk_leaderboard_lambda.handlers import live_authorizer

    return live_authorizer.handler_for(invocation.runtime())(authorizer_request(token, operation, channel))


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
        # a refusal keeps the API's result cache (no ttlOverride): the same string again costs no call
        assert authorize(token, live_access.CONNECT) == {"isAuthorized": False}, token


def test_a_token_subscribes_to_its_own_board_only_and_never_publishes(live_tokens_on):
    token = live_token("global")
    assert authorize(token, live_access.SUBSCRIBE, live_channels.channel("other", "daily"))["isAuthorized"] is False
    assert authorize(token, live_access.SUBSCRIBE, "/leaderboard/*")["isAuthorized"] is False
    channel = live_channels.channel("global", "daily")
    assert authorize(token, "EVENT_PUBLISH", channel)["isAuthorized"] is False


def test_a_token_subscribes_only_to_the_channels_its_board_publishes(live_tokens_on):
    """One channel per period kind the board keeps, exactly: not a kind it does not keep or no board has, not the
    same path with a trailing slash or in another case."""
    token = live_token("global")
    runtime = invocation.runtime()
    kinds = {p.kind for p in board_catalog.get_board(runtime, "global").current_periods(runtime.clock.now())}
    assert "daily" in kinds and "monthly" not in kinds
    published = live_channels.channel("global", "daily")
    for channel in (
        live_channels.channel("global", "monthly"),  # a kind this board does not keep
        live_channels.channel("global", "hourly"),  # a kind no board has
        published + "/",
        published.upper(),
        published + "/x",
    ):
        assert authorize(token, live_access.SUBSCRIBE, channel)["isAuthorized"] is False, channel
    assert authorize(token, live_access.SUBSCRIBE, published)["isAuthorized"] is True


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


def test_one_client_past_its_few_tokens_does_not_lock_another_out(live_tokens_on):
    """The per-client budget is counted before the board's ceiling: a client refused for its own tokens takes none
    of the board's, so the 601st request of one client leaves every other client its tokens."""
    runtime = invocation.runtime()
    config = board_catalog.get_board(runtime, "global")
    greedy = [_issued(runtime, config, "a:192.0.2.7") for _ in range(limits.LIVE_TOKENS_PER_BOARD_MINUTE + 1)]
    assert greedy == [True] * limits.LIVE_TOKENS_PER_CLIENT + [False] * (
        limits.LIVE_TOKENS_PER_BOARD_MINUTE + 1 - limits.LIVE_TOKENS_PER_CLIENT
    )
    assert _issued(runtime, config, "a:198.51.100.9")  # another viewer
    assert _issued(runtime, config, "p:p-ada")  # a player, by their token


def _issued(runtime, config, client: str) -> bool:
    try:
        live_access.issue(runtime, config, client)
        return True
    except TooManyRequests as refused:
        assert 0 < refused.retry_after <= limits.LIVE_TOKEN_SECONDS
        return False


def _request(headers: dict | None = None, source: str = "203.0.113.5") -> dict:
    return {"headers": headers or {}, "requestContext": {"identity": {"sourceIp": source}}}


def test_a_client_is_what_it_cannot_write(live_tokens_on, monkeypatch, reconfigure):
    """The player of a valid player token; else the edge's viewer address, only with the edge's proof; else the
    connecting address (an IPv6 one by its /64)."""
    monkeypatch.setenv("LIVE_TOKENS", "1")
    runtime = invocation.runtime().with_settings(edge_proof="proof-value")
    keys, issuer = runtime.token_keys, runtime.settings.token_issuer
    player, _ = tokens.issue(keys, issuer, tokens.PLAYER_AUDIENCE, "p-ada", 600, now=invocation.seconds())
    viewer = {live_access.VIEWER_IP_HEADER: "198.51.100.20"}
    proven = {**viewer, live_access.EDGE_PROOF_HEADER: "proof-value"}
    assert live_access.client_of(runtime, _request(), f"Bearer {player}") == "p:p-ada"
    assert live_access.client_of(runtime, _request(proven), None) == "v:198.51.100.20"
    assert live_access.client_of(runtime, _request(viewer), None) == "a:203.0.113.5"  # no proof: not trusted
    wrong = {**viewer, live_access.EDGE_PROOF_HEADER: "guess"}
    assert live_access.client_of(runtime, _request(wrong), None) == "a:203.0.113.5"
    assert live_access.client_of(runtime, _request(), "Bearer forged.token.here") == "a:203.0.113.5"
    assert live_access.client_of(runtime, _request(source="2001:db8:1:2:3:4:5:6"), None) == "a:2001:db8:1:2::/64"
    without_proof = invocation.runtime().with_settings(edge_proof=None, edge_proof_secret_arn=None)
    assert live_access.client_of(without_proof, _request(proven), None) == "a:203.0.113.5"  # no WAF, no proof


def test_a_board_hands_out_a_bounded_number_of_tokens_a_minute(live_tokens_on, monkeypatch, reconfigure):
    monkeypatch.setattr(limits, "LIVE_TOKENS_PER_BOARD_MINUTE", 3)
    monkeypatch.setenv("LIVE_TOKENS_PER_CLIENT", "10")  # the board's ceiling, not the client's, refuses
    reconfigure()
    minute_left = 60 - int(invocation.seconds()) % 60
    if minute_left < 5:  # not across a minute's boundary (the test's clock is the system's)
        time.sleep(minute_left)
    answers = [call("GET", "/leaderboards/global/scores").status for _ in range(5)]
    assert answers == [200, 200, 200, 429, 429]
    refused = call("GET", "/leaderboards/global/scores")
    assert 0 < int(refused.headers["Retry-After"]) <= 60
