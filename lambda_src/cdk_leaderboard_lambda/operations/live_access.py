"""Who may follow a board live, and the kill switch ("Live with a ceiling").

A subscriber needs a live subscribe token: a JWT signed with the deployment's token key (tokens.py) for the audience
`leaderboard:live` (a player or run token is refused here, and a live token is refused everywhere else: the audience
is checked strictly), naming one board, living limits.LIVE_TOKEN_SECONDS. GET /leaderboards/{board}/scores hands
one out to anyone, at most limits.LIVE_TOKENS_PER_BOARD_MINUTE a board a minute (one conditional write each), so the
bound is in what one token buys and how many are handed out: the Event API's Lambda
authorizer (`authorize`, AWS AppSync Events' AWS_LAMBDA mode on connect and subscribe) admits a token for
limits.LIVE_TOKEN_OPERATIONS connects and subscribes in all (each one counted by one conditional write, in the
per-player counter store under item_keys.live_token_counter), subscribes only to its own board's channels, and nothing
while the kill switch is off. Its answer is never cached by AppSync (ttlOverride 0), or a cached "yes" would let a
token's copies connect uncounted. docs/SECURITY.md ("Live updates") states the bound per client and its cost.

The kill switch is an item of the scores table (item_keys.live_switch_key), written by `make live-off` / `make live-on`
(ops/live_switch.py), read here at most every limits.LIVE_SWITCH_CACHE_SECONDS per instance.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..domain import boards, tokens
from ..shared import item_keys, limits, live_channels
from ..shared.errors import TooManyRequests, Unauthorized

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

LIVE_AUDIENCE = tokens.LIVE_AUDIENCE
CONNECT, SUBSCRIBE = "EVENT_CONNECT", "EVENT_SUBSCRIBE"
ISSUED = "*issued"  # the counter of a board's tokens handed out per minute (a token's own counter is its hex jti)
logger = logging.getLogger("leaderboard")


class LiveSwitch:
    """The kill switch as this function instance last read it (its runtime holds one): re-read at most every
    LIVE_SWITCH_CACHE_SECONDS, so `make live-off` takes effect within that time without a read per request."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._read: tuple[float, bool] | None = None  # (monotonic seconds, off)

    def off(self, read: Callable[[], bool]) -> bool:
        now = time.monotonic()
        with self._lock:
            if self._read is not None and now - self._read[0] < limits.LIVE_SWITCH_CACHE_SECONDS:
                return self._read[1]
        off = read()
        with self._lock:
            self._read = (now, off)
        return off

    def forget(self) -> None:
        """Read the item again on the next call (tests; the local stack after a switch)."""
        with self._lock:
            self._read = None


def issue(runtime: Runtime, config: boards.BoardConfig) -> dict[str, Any]:
    """A subscribe token for this board's channels: {"token", "expires_at" (epoch s), "operations"}. Handed out
    while the kill switch is off too (the authorizer refuses it): the client then keeps polling, as without live."""
    now = runtime.clock.now().timestamp()
    minute = int(now) // 60
    issued = runtime.rate_limits.take(
        item_keys.live_token_counter(ISSUED),
        config.board_id,
        minute,
        1,
        limits.LIVE_TOKENS_PER_BOARD_MINUTE,
        minute * 60 + 3600,
    )
    if not issued:
        raise TooManyRequests(
            f"this board hands out {limits.LIVE_TOKENS_PER_BOARD_MINUTE} live tokens a minute: poll, and ask again",
            retry_after=(minute + 1) * 60 - int(now),
        )
    token, expires = tokens.issue(
        runtime.token_keys,
        runtime.settings.token_issuer,
        LIVE_AUDIENCE,
        config.board_id,
        limits.LIVE_TOKEN_SECONDS,
        {"jti": uuid.uuid4().hex},
        now=now,
    )
    return {"token": token, "expires_at": expires, "operations": limits.LIVE_TOKEN_OPERATIONS}


def authorize(runtime: Runtime, event: dict[str, Any]) -> dict[str, Any]:
    """AppSync Events' Lambda authorizer: {"isAuthorized", "ttlOverride"} for a connect or a subscribe carrying a
    live token in `authorizationToken`. Anything else (a publish: the namespace takes IAM only) is refused."""
    context = event.get("requestContext") or {}
    operation, channel = context.get("operation"), context.get("channel")
    allowed = _allowed(runtime, event.get("authorizationToken"), operation, channel)
    return {"isAuthorized": allowed, "ttlOverride": 0}


def _allowed(runtime: Runtime, token: object, operation: object, channel: object) -> bool:
    if operation not in (CONNECT, SUBSCRIBE) or switched_off(runtime):
        return False
    try:
        claims = tokens.verify(
            runtime.token_keys, runtime.settings.token_issuer, token, LIVE_AUDIENCE, now=runtime.clock.now().timestamp()
        )
    except Unauthorized:
        return False
    board_id, token_id = claims.get("sub"), claims.get("jti")
    if not isinstance(board_id, str) or not isinstance(token_id, str):
        return False
    if operation == SUBSCRIBE:
        parsed = live_channels.parse(channel) if isinstance(channel, str) else None
        if parsed is None or parsed[0] != board_id:
            return False
    # One conditional write: the token's count of connects and subscribes, refused past its allowance.
    window = int(claims["exp"]) // 60
    counted = runtime.rate_limits.take(
        item_keys.live_token_counter(token_id),
        board_id,
        window,
        1,
        limits.LIVE_TOKEN_OPERATIONS,
        int(claims["exp"]) + 3600,
    )
    if not counted:
        logger.info("live token past its allowance", extra={"board": board_id})
    return counted


def is_authorizer_request(event: object) -> bool:
    """Whether a Lambda event is AppSync's authorizer request (rather than API Gateway's proxy event)."""
    return isinstance(event, dict) and "authorizationToken" in event and "httpMethod" not in event


def switched_off(runtime: Runtime) -> bool:
    """The kill switch, read from its item at most every LIVE_SWITCH_CACHE_SECONDS in this instance."""
    return runtime.live_switch.off(runtime.live_state.switched_off)


def forget_switch(runtime: Runtime) -> None:
    """Drop this instance's cached switch (tests)."""
    runtime.live_switch.forget()
