"""Publishing changed tops to AWS AppSync Events (the `live-broadcaster` function), off the scores table's stream.

For every current board period a batch of stream records touched:
 1. read what was last published for it (when, and a digest of the top), strongly consistent;
 2. if that was less than LIVE_MIN_INTERVAL_SECONDS ago, wait out the rest (at most that long);
 3. read the top 25 through the same read as the REST top (waiting, bounded, until the rank index shows the
    batch's entries as the table now holds them: a global secondary index lags its table);
 4. unchanged digest: nothing to publish. Otherwise claim the publish with a conditional write on the "last sent"
    item (only if nobody published since step 1) and publish the top as one event to the board period's channel
    (live_channels.channel(board, kind)), then move the publish's time to when AppSync took it (the next one is a
    full interval later); a lost claim (a parallel invocation on another stream shard published meanwhile) goes
    back to step 1. A failed publish releases its claim and fails the batch: Lambda retries it.
So a board period gets at most one publish per interval however many invocations run side by side, and the last
change of a burst is never lost: each batch ends only once a top read after its writes was published (by it or by
whoever won the claim after reading later), or equals what was published.

AppSync delivers each event to every subscriber of the channel: there is no subscriber list here, so a current
board period whose top changes is published whether anyone follows it or not (one publish operation per change,
at most one a second per board period). A change to a period that is no longer current is not published (its
channel now carries the next period).
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..domain import boards
from ..domain.changes import EntryChange
from ..domain.ports import LiveState
from ..shared import live_channels, schema
from ..shared.clock import Clock
from ..shared.errors import NotFound
from ..shared.limits import LIVE_MIN_INTERVAL_SECONDS, LIVE_TOP
from . import board_catalog, live, live_access

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

logger = logging.getLogger("leaderboard")

VISIBILITY_WAIT_SECONDS = 2.0  # how long a publish waits for the rank index to show the batch's writes
VISIBILITY_POLL_SECONDS = 0.1
CLAIM_ROUNDS = 5  # lost claims in a row before giving up (each lost one means someone else published)
SENT_STATE_DAYS = 2  # "last sent" items expire after this long without a publish

Publisher = Callable[[str, list[dict[str, Any]]], None]  # LivePublisher.publish: (channel, events)


@dataclass
class Stats:
    board_periods: int = 0
    publishes: int = 0
    unchanged: int = 0
    waited_seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "board_periods": self.board_periods,
            "publishes": self.publishes,
            "unchanged": self.unchanged,
            "waited_seconds": round(self.waited_seconds, 3),
        }


def apply(
    runtime: Runtime, changes: Iterable[EntryChange], stats: Stats | None = None, publish: Publisher | None = None
) -> Stats:
    """Publish the changed tops of the board periods these changes of entries touched (publish: AppSync's client
    unless given, tests give an in-memory one; without one and with no Event API configured, nothing happens)."""
    stats = stats or Stats()
    if publish is None:
        if not runtime.settings.live_events_http_url:
            return stats  # live updates off (no Event API configured): nothing to publish to, nothing to read
        publish = runtime.live.publish
    touched: dict[tuple[str, str], set[tuple[str, str]]] = {}  # (board, period id) -> {(player, partition)}
    for change in changes:
        touched.setdefault((change.board_id, change.period_id), set()).add(change.key)
    stats.board_periods = len(touched)
    if not touched:
        return stats
    threads = max(1, min(runtime.settings.recount_threads, len(touched)))
    with ThreadPoolExecutor(threads, thread_name_prefix="live-broadcaster") as pool:
        pushes = [
            pool.submit(push, runtime, board_id, period_id, changed, stats, publish)
            for (board_id, period_id), changed in touched.items()
        ]
        for pushed in pushes:
            pushed.result()  # an exception in any push (a failed publish) fails the batch, so Lambda retries it
    return stats


def current_kind(config: boards.BoardConfig, period_id: str, now: datetime) -> str | None:
    """The kind whose channel carries this board period (`daily` for today's daily period), None if not current."""
    return next((p.kind for p in config.current_periods(now) if p.period_id == period_id), None)


def push(
    runtime: Runtime, board_id: str, period_id: str, changed: set[tuple[str, str]], stats: Stats, publish: Publisher
) -> None:
    try:
        config = board_catalog.get_board(runtime, board_id)
    except NotFound:
        return  # deleted meanwhile: its subscribers got their last top
    kind = current_kind(config, period_id, runtime.clock.now())
    if kind is None or live_access.switched_off(runtime):  # `make live-off`: open subscriptions get nothing more
        return
    live_state: LiveState = runtime.live_state
    clock = runtime.clock
    for _ in range(CLAIM_ROUNDS):
        sent = live_state.last_sent(config.board_id, period_id)
        previous_ms = int(sent["sent_at_ms"]) if sent else None
        if previous_ms is not None:
            wait = min(LIVE_MIN_INTERVAL_SECONDS, previous_ms / 1000 + LIVE_MIN_INTERVAL_SECONDS - _seconds(clock))
            if wait > 0:
                time.sleep(wait)
                stats.waited_seconds += wait
        top = _visible_top(runtime, config, period_id, changed)
        digest = hashlib.sha256(json.dumps(top["entries"], sort_keys=True).encode()).hexdigest()
        if sent and sent.get("digest") == digest:
            stats.unchanged += 1
            return
        now_s = _seconds(clock)
        claimed_ms = int(now_s * 1000)
        expires_at = int(now_s) + SENT_STATE_DAYS * 86400
        if not live_state.claim_send(config.board_id, period_id, previous_ms, claimed_ms, digest, expires_at):
            continue  # someone published since we read: read again, and publish only what is newer
        message = live.top_message(config, kind, period_id, top["entries"])
        try:
            publish(live_channels.channel(config.board_id, kind), [message])
        except Exception:
            live_state.release(config.board_id, period_id, claimed_ms)
            raise
        stats.publishes += 1
        live_state.finish_send(config.board_id, period_id, claimed_ms, int(_seconds(clock) * 1000))
        return
    logger.warning("gave up publishing %s/%s: claims kept being taken", config.board_id, period_id)


def _seconds(clock: Clock) -> float:
    """Epoch seconds by the runtime's clock (the interval between publishes, and the sent state's times)."""
    return clock.now().timestamp()


def _visible_top(
    runtime: Runtime, config: boards.BoardConfig, period_id: str, changed: set[tuple[str, str]]
) -> dict[str, Any]:
    """The top, once the rank index shows the changed entries as the table holds them now (bounded wait)."""
    present = {p: item for (p, _), item in runtime.entries.get(changed).items() if schema.RANK_INDEX_SORT_KEY in item}
    gone = {p for p, _ in changed} - set(present)
    deadline = time.monotonic() + VISIBILITY_WAIT_SECONDS
    while True:
        top = live.read_top(runtime, config, period_id)
        shown = {e["player_id"]: e["score"] for e in top["entries"]}
        if _reflects(config, top["entries"], shown, present, gone) or time.monotonic() > deadline:
            return top
        time.sleep(VISIBILITY_POLL_SECONDS)


def _reflects(config: boards.BoardConfig, top: list[dict], shown: dict, present: dict, gone: set[str]) -> bool:
    """Whether a top read agrees with the entries as the table holds them: a gone entry is not shown; a present
    one is shown with its score, or the top is full and it does not rank ahead of the last shown."""
    if any(player in shown for player in gone):
        return False
    last = top[-1]["score"] if len(top) >= LIVE_TOP else None
    for player, item in present.items():
        if player in shown:
            if shown[player] != item["score"]:
                return False
        elif last is None or config.better(item["score"], last):
            return False
    return True
