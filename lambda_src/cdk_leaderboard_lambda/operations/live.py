"""Live updates through AWS AppSync Events: the message a subscriber receives, and how a client finds its channels.

The broadcaster (broadcasting.py) publishes a board period's top 25 to the channel of its period kind
(live_channels.channel(board, kind)) whenever it changes, as one event: {"type": "top", "board", "period" (the
kind), "period_id", "entries"}. AppSync delivers it to every subscriber of the channel; subscribing is AppSync's
own protocol with a short-lived subscribe token (live_access.py; discovery, GET /leaderboards/{board}'s `live`, says
where to get one).
docs/API.md ("Live updates") has the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..domain import boards
from ..shared import live_channels
from ..shared.limits import LIVE_TOP
from . import ranking_reads

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime


def top_message(config: boards.BoardConfig, kind: str, period_id: str, entries: list[dict]) -> dict[str, Any]:
    return {
        "type": "top",
        "board": config.board_id,
        "period": kind,
        "period_id": period_id,
        "entries": entries,
    }


def discovery(runtime: Runtime, config: boards.BoardConfig) -> dict[str, Any] | None:
    """How a client follows this board live (GET /leaderboards/{board}'s `live`): AppSync Events' real-time
    endpoint and the host a subscriber names in its authorization, where to get a subscribe token (live_access.py:
    GET `token_path`, then `{"host", "Authorization": <token>}`), and the channel of each period kind the board
    keeps. None when live updates are off (no Event API configured)."""
    settings = runtime.settings
    http_url, realtime_url = settings.live_events_http_url, settings.live_events_realtime_url
    if not (http_url and realtime_url):
        return None
    http_host = urlsplit(http_url).netloc
    kinds = [p.kind for p in config.current_periods(runtime.clock.now())]
    return {
        "realtime_url": realtime_url,
        "http_host": http_host,
        "token_path": f"/leaderboards/{config.board_id}/scores",
        "channels": {kind: live_channels.channel(config.board_id, kind) for kind in kinds},
    }


def read_top(runtime: Runtime, config: boards.BoardConfig, period_id: str) -> dict[str, Any]:
    """The board period's top LIVE_TOP, through the same read as GET /leaderboards/{board}/top."""
    return ranking_reads.top(runtime, config, period_id, LIVE_TOP, None, runtime.clock.now())
