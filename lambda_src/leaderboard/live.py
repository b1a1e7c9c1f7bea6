"""Live updates over WebSocket: the messages a client sends and receives, and the connection bookkeeping.

A client sends {"action": "subscribe", "board": "<board_id>", "period": "<period>"} and gets the board period's
top 25 at once ({"type": "top", ...}); the broadcaster (broadcasting.py) pushes it again whenever it changes.
`period` is optional (the board's default period) and is either a kind (`daily`: the current day, following the
day as it changes) or a concrete period id (`daily-2026-11-30`). {"action": "unsubscribe", ...} stops it.
Errors are {"type": "error", "status", "error"} and change nothing. Reads need no key, like the REST reads.
"""

from __future__ import annotations

import json
import re
import time
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from . import board_registry, boards, live_channels, periods, rankings
from .clock import now_utc
from .data import connections
from .errors import ApiError, BadRequest, TooManyRequests
from .limits import (
    CONNECTION_LIFETIME_SECONDS,
    LIVE_ACTIONS,
    LIVE_TOP,
    MAX_LIVE_MESSAGE_BYTES,
    MAX_SUBSCRIPTIONS_PER_CONNECTION,
)
from .settings import get_settings
from .text import unreadable_text

SUBSCRIBE, UNSUBSCRIBE = LIVE_ACTIONS
# A connection's items outlive API Gateway's longest connection by a margin: TTL removes what a lost
# $disconnect left behind (DynamoDB deletes expired items within a few days; readers skip them meanwhile).
EXPIRY_MARGIN_SECONDS = 600
_FIELDS = {"action", "board", "period"}


def topic(board_id: str, followed: str) -> str:
    """What a subscription follows: one board and a period kind (the current one) or a concrete period id."""
    return f"{board_id}#{followed}"


def top_message(config: boards.BoardConfig, followed: str, period_id: str, entries: list[dict]) -> dict[str, Any]:
    return {
        "type": "top",
        "board": config.board_id,
        "period": followed,
        "period_id": period_id,
        "entries": entries,
    }


def discovery(config: boards.BoardConfig, now: datetime | None = None) -> dict[str, Any] | None:
    """How a client follows this board live (GET /leaderboards/{board}'s `live`): AppSync Events' real-time
    endpoint, the host and API key a subscriber sends as its authorization, and the channel of each period kind
    the board keeps. None when live updates are off (no Event API configured)."""
    settings = get_settings()
    http_url, realtime_url, api_key = (
        settings.live_events_http_url,
        settings.live_events_realtime_url,
        settings.live_events_api_key,
    )
    if not (http_url and realtime_url and api_key):
        return None
    http_host = urlsplit(http_url).netloc
    kinds = [p.kind for p in config.current_periods(now or now_utc())]
    return {
        "realtime_url": realtime_url,
        "http_host": http_host,
        "auth": {"host": http_host, "x-api-key": api_key},
        "channels": {kind: live_channels.channel(config.board_id, kind) for kind in kinds},
    }


def read_top(config: boards.BoardConfig, period_id: str, now: datetime | None = None) -> dict[str, Any]:
    """The board period's top LIVE_TOP, through the same read as GET /leaderboards/{board}/top."""
    return rankings.top(config, period_id, LIVE_TOP, None, now=now)


def error(err: ApiError, action: object = None) -> dict[str, Any]:
    message: dict[str, Any] = {"type": "error", "status": err.status, "error": err.message}
    if isinstance(action, str) and action in LIVE_ACTIONS:
        message["action"] = action
    return message


def parse(body: object) -> dict[str, Any]:
    """A client's message: a JSON object of at most MAX_LIVE_MESSAGE_BYTES with the known fields only."""
    if not isinstance(body, str) or not body:
        raise BadRequest('a message is a JSON object such as {"action": "subscribe", "board": "global"}')
    if len(body.encode()) > MAX_LIVE_MESSAGE_BYTES:
        raise BadRequest(f"a message is at most {MAX_LIVE_MESSAGE_BYTES} bytes")
    try:
        message = json.loads(body, parse_constant=_refuse_constant)
    except ValueError as err:
        raise BadRequest("a message is a JSON object (this one is not valid JSON)") from err
    if not isinstance(message, dict):
        raise BadRequest("a message is a JSON object")
    unreadable = unreadable_text(message)
    if unreadable:  # before any error echoes a field: the answer must be text every client reads
        raise BadRequest(f"text must be Unicode scalar values: {unreadable.replace('body', 'message', 1)}")
    unknown = sorted(set(message) - _FIELDS)
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(unknown)}; a message has {', '.join(sorted(_FIELDS))}")
    if message.get("action") not in LIVE_ACTIONS:
        raise BadRequest(f"unknown action {message.get('action')!r}: use {' or '.join(LIVE_ACTIONS)}")
    return message


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


def _followed(config: boards.BoardConfig, requested: object, now: datetime) -> tuple[str, periods.Period]:
    """(what the subscription follows, the period it means now), checked like the REST routes' period."""
    if requested is not None and not isinstance(requested, str):
        raise BadRequest("period must be a string")
    period = config.resolve_period(requested, now)
    follows_kind = requested is None or requested == period.kind
    return (period.kind if follows_kind else period.period_id), period


def _board_id(value: object) -> str:
    try:
        return boards.board_id(value)
    except BadRequest as err:  # the field is `board` here
        raise BadRequest(err.message.replace("board_id", "board", 1)) from err


def connect(connection_id: str, now_s: float | None = None) -> None:
    now_s = time.time() if now_s is None else now_s
    connections.put_connection(
        connection_id, int(now_s * 1000), int(now_s) + CONNECTION_LIFETIME_SECONDS + EXPIRY_MARGIN_SECONDS
    )


def disconnect(connection_id: str) -> int:
    return connections.remove_connection(connection_id)


def subscribe(connection_id: str, message: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """Follow a board period: checked like GET /leaderboards/{board}/top (unknown board: 404, nothing stored);
    answers the top at once."""
    now = now or now_utc()
    config = board_registry.get_board(_board_id(message.get("board")))
    followed, period = _followed(config, message.get("period"), now)
    try:
        connections.add_subscription(
            connection_id,
            topic(config.board_id, followed),
            MAX_SUBSCRIPTIONS_PER_CONNECTION,
            {"board": config.board_id, "period": followed},
        )
    except connections.TooManySubscriptions as err:
        raise TooManyRequests(
            f"a connection follows at most {MAX_SUBSCRIPTIONS_PER_CONNECTION} board periods: unsubscribe first",
            retry_after=0,
        ) from err
    top = read_top(config, period.period_id, now)
    return top_message(config, followed, top["period_id"], top["entries"])


def unsubscribe(connection_id: str, message: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    """Stop following a board period (answered alike whether it was followed or not)."""
    now = now or now_utc()
    board_id = _board_id(message.get("board"))
    requested = message.get("period")
    try:
        followed, _ = _followed(board_registry.get_board(board_id), requested, now)
    except ApiError:
        # A board deleted since: what was followed is the period as given.
        every_period = periods.pattern((*periods.KINDS, periods.TOURNAMENT))
        if not isinstance(requested, str) or not re.fullmatch(every_period, requested):
            raise
        followed = requested
    connections.remove_subscription(connection_id, topic(board_id, followed))
    return {"type": "unsubscribed", "board": board_id, "period": followed}
