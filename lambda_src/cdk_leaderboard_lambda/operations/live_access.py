"""Who may follow a board live, and the kill switch ("Live with a ceiling").

A subscriber needs a live subscribe token: a JWT signed with the deployment's token key (tokens.py) for the audience
`leaderboard:live` (a player or run token is refused here, and a live token is refused everywhere else: the audience
is checked strictly), naming one board, living limits.LIVE_TOKEN_SECONDS. GET /leaderboards/{board}/scores hands
one out to any client, at most limits.LIVE_TOKENS_PER_CLIENT to one client (client_of: what it cannot forge) per
token life, and at most limits.LIVE_TOKENS_PER_BOARD_MINUTE a board a minute in all (one conditional write each), so
the bound is in what one token buys and how many are handed out: the Event API's Lambda authorizer (`authorize`, the
live-authorizer function: AWS AppSync Events' AWS_LAMBDA mode on connect and subscribe) admits a token for
limits.LIVE_TOKEN_OPERATIONS connects and subscribes in all (each one counted by one conditional write, in the
per-player counter store under item_keys.live_token_counter), subscribes only to the channels its board publishes,
and nothing while the kill switch is off. An admission is never cached by AppSync (ttlOverride 0), or a cached "yes"
would let a token's copies connect uncounted; a refusal is. docs/SECURITY.md ("Live updates") states the bound per
client and its cost.

The kill switch is an item of the scores table (item_keys.live_switch_key), written by `make live-off` / `make live-on`
(ops/live_switch.py), read here at most every limits.LIVE_SWITCH_CACHE_SECONDS per instance.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..domain import boards, tokens
from ..shared import item_keys, limits, live_channels
from ..shared.errors import NotFound, TooManyRequests, Unauthorized
from . import board_catalog

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

LIVE_AUDIENCE = tokens.LIVE_AUDIENCE
CONNECT, SUBSCRIBE = "EVENT_CONNECT", "EVENT_SUBSCRIBE"
ISSUED = "*issued"  # the counter of a board's tokens handed out per minute (a token's own counter is its hex jti)
EDGE_PROOF_CACHE_SECONDS = 600.0  # a new proof takes a deploy anyway (docs/SECURITY.md)
CLIENT = "*client*"  # + the client (client_of): the counter of one client's tokens of a board per token life
# Set by the stack's CloudFront edge on every origin request (stacks/leaderboard/waf.py names them the same): the
# viewer's address, and the proof that the edge, not a client, wrote it.
EDGE_PROOF_HEADER = "x-leaderboard-edge"
VIEWER_IP_HEADER = "x-leaderboard-viewer-ip"
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


class EdgeProof:
    """The edge's proof value as this function instance last read it (its runtime holds one): the settings' value
    (local runs, tests) or its secret's (on AWS), read at most every EDGE_PROOF_CACHE_SECONDS; None without one
    (no WAF, so no proof: the connecting address counts)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._read: tuple[float, str | None] | None = None  # (monotonic seconds, value)

    def value(self, runtime: Runtime) -> str | None:
        settings = runtime.settings
        if settings.edge_proof or not settings.edge_proof_secret_arn:
            return settings.edge_proof
        now = time.monotonic()
        with self._lock:
            if self._read is not None and now - self._read[0] < EDGE_PROOF_CACHE_SECONDS:
                return self._read[1]
        value = runtime.secrets.value(settings.edge_proof_secret_arn)
        with self._lock:
            self._read = (now, value)
        return value


def issue(runtime: Runtime, config: boards.BoardConfig, client: str) -> dict[str, Any]:
    """A subscribe token for this board's channels: {"token", "expires_at" (epoch s), "operations"}. Handed out
    while the kill switch is off too (the authorizer refuses it): the client then keeps polling, as without live.

    `client` (client_of) gets at most settings.live_tokens_per_client (limits.LIVE_TOKENS_PER_CLIENT) tokens of a
    board per token life, counted first, so a client past its own few never takes a token of the board's ceiling
    (limits.LIVE_TOKENS_PER_BOARD_MINUTE, whoever asks): one client cannot lock the others out."""
    now = runtime.clock.now().timestamp()
    life, few = int(now) // limits.LIVE_TOKEN_SECONDS, runtime.settings.live_tokens_per_client
    own = runtime.rate_limits.take(
        item_keys.live_token_counter(CLIENT + client),
        config.board_id,
        life,
        1,
        few,
        (life + 1) * limits.LIVE_TOKEN_SECONDS + 3600,
    )
    if not own:
        raise TooManyRequests(
            f"a client gets {few} live tokens of a board every {limits.LIVE_TOKEN_SECONDS} s: poll, and ask again",
            retry_after=(life + 1) * limits.LIVE_TOKEN_SECONDS - int(now),
        )
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


def client_of(runtime: Runtime, event: dict[str, Any], authorization: str | None) -> str:
    """Who asks for a live token, by what the client cannot write: the player of a valid player token
    (`Authorization: Bearer`), else the viewer address the edge wrote (VIEWER_IP_HEADER) when the request carries
    the edge's proof (EDGE_PROOF_HEADER equal to the deployment's: only CloudFront sets it), else the address
    that connected to API Gateway (requestContext.identity.sourceIp). An IPv6 address counts by its /64, which
    one host usually holds whole. A forged or expired token, a viewer header without the proof: not trusted,
    the connecting address counts."""
    try:
        token = tokens.bearer(authorization)
        if token is not None:
            claims = tokens.verify(
                runtime.token_keys,
                runtime.settings.token_issuer,
                token,
                tokens.PLAYER_AUDIENCE,
                now=runtime.clock.now().timestamp(),
            )
            return "p:" + str(claims["sub"])
    except Unauthorized:
        pass
    headers = {str(k).lower(): v for k, v in (event.get("headers") or {}).items()}
    proof, viewer = headers.get(EDGE_PROOF_HEADER), headers.get(VIEWER_IP_HEADER)
    expected = runtime.edge_proof.value(runtime)
    if expected and isinstance(proof, str) and hmac.compare_digest(proof.encode(), expected.encode()):
        address = _address(viewer)
        if address is not None:
            return "v:" + address
    source = ((event.get("requestContext") or {}).get("identity") or {}).get("sourceIp")
    return "a:" + (_address(source) or "unknown")


def _address(text: object) -> str | None:
    """An IPv4 address as is, an IPv6 address as its /64; None for anything that is not an address."""
    if not isinstance(text, str):
        return None
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if address.version == 6:
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


def authorize(runtime: Runtime, event: dict[str, Any]) -> dict[str, Any]:
    """AppSync Events' Lambda authorizer: {"isAuthorized", "ttlOverride"} for a connect or a subscribe carrying a
    live token in `authorizationToken`. Anything else (a publish: the namespace takes IAM only) is refused.

    A "yes" is never cached (ttlOverride 0): each connect and subscribe is counted, so no copy of a token connects
    uncounted. A "no" keeps the API's AuthorizerResultTtlInSeconds (limits.LIVE_AUTHORIZER_CACHE_SECONDS, a token's
    life): the same string asked again is refused by AppSync without a call, and a token refused once (forged,
    spent, expired, wrong board or channel, switched off) is never worth admitting later within its own life."""
    context = event.get("requestContext") or {}
    operation, channel = context.get("operation"), context.get("channel")
    allowed = _allowed(runtime, event.get("authorizationToken"), operation, channel)
    return {"isAuthorized": True, "ttlOverride": 0} if allowed else {"isAuthorized": False}


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
    if operation == SUBSCRIBE and not _published(runtime, board_id, channel):
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


def _published(runtime: Runtime, board_id: str, channel: object) -> bool:
    """Whether `channel` is, exactly, one the board publishes on: one per period kind it keeps
    (live_channels.channel; no other kind, no trailing slash, no wildcard). The board is read through the
    instance's board cache."""
    if not isinstance(channel, str) or (parsed := live_channels.parse(channel)) is None or parsed[0] != board_id:
        return False
    try:
        config = board_catalog.get_board(runtime, board_id)
    except NotFound:
        return False
    kinds = {p.kind for p in config.current_periods(runtime.clock.now())}
    return channel in {live_channels.channel(board_id, kind) for kind in kinds}


def switched_off(runtime: Runtime) -> bool:
    """The kill switch, read from its item at most every LIVE_SWITCH_CACHE_SECONDS in this instance."""
    return runtime.live_switch.off(runtime.live_state.switched_off)


def forget_switch(runtime: Runtime) -> None:
    """Drop this instance's cached switch (tests)."""
    runtime.live_switch.forget()
