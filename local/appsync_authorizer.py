"""AppSync Events' AWS_LAMBDA authorization mode, as the local stand-in applies it to connects and subscribes (the
stack's Event API: connect and subscribe by Lambda authorizer,
lambda_src/cdk_leaderboard_lambda/operations/live_access.py).

AppSync ("Configuring authorization and authentication to secure Event APIs", AWS_LAMBDA; the API reference's
LambdaAuthorizerConfig): the client puts its token in the `Authorization` field of its authorization (the
`header-` subprotocol on connect, the `authorization` object of a subscribe message, next to `host`); AppSync calls
the function with `{"authorizationToken", "requestContext": {"apiId", "accountId", "requestId", "operation"
(EVENT_CONNECT, EVENT_SUBSCRIBE, EVENT_PUBLISH), "channelNamespaceName", "channel"}, "requestHeaders"}` and takes
`{"isAuthorized", "ttlOverride", "handlerContext"}`. A false `isAuthorized`, a function error or a missing token is
refused as any unauthorized call (UnauthorizedException). An answer is cached for `ttlOverride` seconds, else the
API's AuthorizerResultTtlInSeconds (0: not cached), per token, operation and channel. A token that does not match
the API's IdentityValidationExpression is refused before the function is called ("A regular expression for
validation of tokens before the Lambda function is called"); `calls` counts the function's invocations.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections.abc import Callable

from local.appsync_protocol import NAMESPACES

EVENT_CONNECT, EVENT_SUBSCRIBE = "EVENT_CONNECT", "EVENT_SUBSCRIBE"
API_ID, ACCOUNT_ID = "local-events-api", "123456789012"
MAX_CACHED = 10_000  # answers kept at most (a stand-in's memory stays bounded whatever the clients send)
_LOG = logging.getLogger("local.appsync_events")


class LambdaAuthorizer:
    """The function (a Lambda handler `event -> answer`), with AppSync's result cache."""

    def __init__(
        self,
        function: Callable[[dict], dict],
        ttl_seconds: int,
        clock: Callable[[], float] = time.monotonic,
        validation: str | None = None,
    ) -> None:
        self.function, self.ttl_seconds, self.clock = function, ttl_seconds, clock
        self.validation = None if validation is None else re.compile(validation)
        self._cache: dict[tuple, tuple[float, bool]] = {}
        self._lock = threading.Lock()
        self.calls = 0  # how often the function was called (tests)
        self.refused_by_expression = 0  # tokens the expression refused, with no call

    def allows(self, authorization: object, operation: str, channel: str | None = None) -> bool:
        if not isinstance(authorization, dict):
            return False
        token = authorization.get("Authorization")
        if not isinstance(token, str) or not token:
            return False  # AWS_LAMBDA needs a token: no call
        if self.validation is not None and not self.validation.fullmatch(token):
            self.refused_by_expression += 1
            return False  # not shaped like a token: no call
        key = (token, operation, channel)
        now = self.clock()
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached[0] > now:
                return cached[1]
        context = {
            "apiId": API_ID,
            "accountId": ACCOUNT_ID,
            "requestId": str(uuid.uuid4()),
            "operation": operation,
        }
        if channel is not None:
            context |= {"channelNamespaceName": channel.strip("/").split("/")[0] or NAMESPACES[0], "channel": channel}
        headers = {k: v for k, v in authorization.items() if isinstance(v, str)}
        self.calls += 1
        try:
            answer = self.function({"authorizationToken": token, "requestContext": context, "requestHeaders": headers})
        except Exception:  # a failed authorizer refuses, as on AppSync
            _LOG.exception("the live authorizer failed")
            return False
        allowed = isinstance(answer, dict) and answer.get("isAuthorized") is True
        ttl = answer.get("ttlOverride", self.ttl_seconds) if isinstance(answer, dict) else 0
        if isinstance(ttl, int) and ttl > 0:
            with self._lock:
                if len(self._cache) >= MAX_CACHED:
                    self._cache.clear()
                self._cache[key] = (now + ttl, allowed)
        return allowed
