"""The AppSync Events stand-in's Lambda authorization mode (local/appsync_authorizer.py), without a network: what it
sends the function, that no token means no call, that a failing function refuses, and AppSync's result cache
(ttlOverride, else the API's TTL; 0: every call reaches the function)."""

from __future__ import annotations

from local.appsync_authorizer import EVENT_CONNECT, EVENT_SUBSCRIBE, LambdaAuthorizer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_function_gets_appsync_s_request_and_its_answer_decides():
    seen: list[dict] = []

    def function(event: dict) -> dict:
        seen.append(event)
        return {"isAuthorized": event["authorizationToken"] == "good", "ttlOverride": 0}

    authorizer = LambdaAuthorizer(function, 0)
    assert authorizer.allows({"host": "h", "Authorization": "good"}, EVENT_SUBSCRIBE, "/leaderboard/global/daily")
    assert not authorizer.allows({"host": "h", "Authorization": "bad"}, EVENT_CONNECT)
    first = seen[0]
    assert first["authorizationToken"] == "good"
    assert first["requestContext"]["operation"] == EVENT_SUBSCRIBE
    assert first["requestContext"]["channel"] == "/leaderboard/global/daily"
    assert first["requestContext"]["channelNamespaceName"] == "leaderboard"
    assert first["requestHeaders"] == {"host": "h", "Authorization": "good"}
    assert "channel" not in seen[1]["requestContext"]  # a connect names no channel


def test_no_token_is_refused_without_a_call_and_a_failing_function_refuses():
    calls: list[dict] = []
    authorizer = LambdaAuthorizer(lambda event: calls.append(event) or {"isAuthorized": True}, 0)
    for authorization in (None, "x", {}, {"x-api-key": "da2-key"}, {"Authorization": ""}):
        assert not authorizer.allows(authorization, EVENT_CONNECT)
    assert calls == []

    def failing(event: dict) -> dict:
        raise RuntimeError("boom")

    assert not LambdaAuthorizer(failing, 0).allows({"Authorization": "t"}, EVENT_CONNECT)
    assert not LambdaAuthorizer(lambda event: {"isAuthorized": "yes"}, 0).allows({"Authorization": "t"}, EVENT_CONNECT)


def test_answers_are_cached_for_their_ttl_and_not_at_all_with_zero():
    clock = Clock()
    answers = iter([True, False, False])
    authorizer = LambdaAuthorizer(lambda event: {"isAuthorized": next(answers), "ttlOverride": 60}, 0, clock=clock)
    token = {"Authorization": "t"}
    assert authorizer.allows(token, EVENT_CONNECT) and authorizer.allows(token, EVENT_CONNECT)
    assert authorizer.calls == 1  # the second came from the cache
    clock.now += 61
    assert not authorizer.allows(token, EVENT_CONNECT) and authorizer.calls == 2
    uncached = LambdaAuthorizer(lambda event: {"isAuthorized": True, "ttlOverride": 0}, 300, clock=clock)
    uncached.allows(token, EVENT_CONNECT)
    uncached.allows(token, EVENT_CONNECT)
    assert uncached.calls == 2


def test_a_token_the_expression_refuses_never_reaches_the_function(in_memory):
    """IdentityValidationExpression: AppSync checks the token's shape before it calls the function; the stack's
    expression (limits.LIVE_TOKEN_PATTERN) admits the live tokens the API hands out and nothing like junk."""
    from cdk_leaderboard_lambda.domain import tokens
    from cdk_leaderboard_lambda.shared import limits
    from local import invocation  # the clock tokens are issued by

    calls: list[dict] = []
    authorizer = LambdaAuthorizer(
        lambda event: calls.append(event) or {"isAuthorized": True, "ttlOverride": 0},
        limits.LIVE_AUTHORIZER_CACHE_SECONDS,
        validation=limits.LIVE_TOKEN_PATTERN,
    )
    junk = ["junk", "a.b.c", "x" * 5000, "eyJ.eyJ.short", "Bearer eyJhbGc.eyJzdWI.sig", "' OR 1=1 --"]
    for token in junk:
        assert not authorizer.allows({"Authorization": token}, EVENT_CONNECT), token
    assert calls == [] and authorizer.calls == 0 and authorizer.refused_by_expression == len(junk)
    runtime = in_memory
    for board in ("global", "b" * 48, "a_b-"):
        token, _ = tokens.issue(
            runtime.token_keys,
            runtime.settings.token_issuer,
            tokens.LIVE_AUDIENCE,
            board,
            limits.LIVE_TOKEN_SECONDS,
            {"jti": "0" * 32},
            now=invocation.seconds(),
        )
        assert authorizer.allows({"Authorization": token}, EVENT_CONNECT), token
    assert authorizer.calls == 3
