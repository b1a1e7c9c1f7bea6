"""Pushing changed tops to WebSocket subscribers (the `live-broadcaster` function), off the scores table's stream.

For every board period a batch of stream records touched, and only if someone follows it:
 1. read what was last pushed for it (when, and a digest of the top), strongly consistent;
 2. if that was less than LIVE_MIN_INTERVAL_SECONDS ago, wait out the rest (at most that long);
 3. read the top 25 through the same read as the REST top (waiting, bounded, until the rank index shows the
    batch's entries as the table now holds them: a global secondary index lags its table);
 4. unchanged digest: nothing to push. Otherwise claim the push with a conditional write on the "last pushed"
    item (only if nobody pushed since step 1) and post the top to every subscriber, then move the push's time to
    when the posts ended (so the next one is a full interval after subscribers got this one); a lost claim (a
    parallel invocation on another stream shard pushed meanwhile) goes back to step 1.
So a board period gets at most one push per interval however many invocations run side by side, and the last
change of a burst is never lost: each batch ends only once a top read after its writes was pushed (by it or by
whoever won the claim after reading later), or equals what was pushed.

Subscribers of a period kind (`daily`) get the current period's pushes; a subscription to a concrete id
(`daily-2026-11-30`) gets that period's. A connection found gone (GoneException) is removed with its
subscriptions. A board period nobody follows costs one index query per batch and nothing else.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from . import board_registry, boards, keys, live, schema
from .clock import now_utc
from .data import connections, entries
from .errors import NotFound
from .limits import LIVE_MIN_INTERVAL_SECONDS, LIVE_TOP
from .settings import get_settings

logger = logging.getLogger("leaderboard")

VISIBILITY_WAIT_SECONDS = 2.0  # how long a push waits for the rank index to show the batch's writes
VISIBILITY_POLL_SECONDS = 0.1
CLAIM_ROUNDS = 5  # lost claims in a row before giving up (each lost one means someone else pushed)
SENT_STATE_DAYS = 2  # "last pushed" items expire after this long without a push
POST_THREADS = 16


@dataclass
class Stats:
    board_periods: int = 0
    pushes: int = 0
    messages: int = 0
    gone: int = 0
    unchanged: int = 0
    waited_seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "board_periods": self.board_periods,
            "pushes": self.pushes,
            "messages": self.messages,
            "gone": self.gone,
            "unchanged": self.unchanged,
            "waited_seconds": round(self.waited_seconds, 3),
        }


def apply(records: list[dict[str, Any]], stats: Stats | None = None) -> Stats:
    stats = stats or Stats()
    touched: dict[tuple[str, str], set[tuple[str, str]]] = {}  # (board, period id) -> {(player, partition)}
    for record in records:
        entry = keys.entry_of_record(record)
        if entry is not None:
            touched.setdefault(keys.board_and_period(entry[1]), set()).add(entry)
    stats.board_periods = len(touched)
    if not touched:
        return stats
    threads = max(1, min(get_settings().recount_threads, len(touched)))
    with ThreadPoolExecutor(threads, thread_name_prefix="live-broadcaster") as pool:
        list(pool.map(lambda item: push(item[0][0], item[0][1], item[1], stats), touched.items()))
    return stats


def _topics(config: boards.BoardConfig, period_id: str, now: datetime) -> list[str]:
    """The subscription topics a change of this board period concerns: its id, and its kind while current."""
    found = [live.topic(config.board_id, period_id)]
    current = next((p for p in config.current_periods(now) if p.period_id == period_id), None)
    if current is not None and current.kind != period_id:
        found.append(live.topic(config.board_id, current.kind))
    return found


def push(board_id: str, period_id: str, changed: set[tuple[str, str]], stats: Stats) -> None:
    now = now_utc()
    try:
        config = board_registry.get_board(board_id)
    except NotFound:
        return  # deleted meanwhile: its subscribers got their last top
    followers = {t: connections.subscribers(t) for t in _topics(config, period_id, now)}
    if not any(followers.values()):
        return
    board_period = live.topic(config.board_id, period_id)
    for _ in range(CLAIM_ROUNDS):
        sent = connections.last_sent(board_period)
        previous_ms = int(sent["sent_at_ms"]) if sent else None
        if previous_ms is not None:
            wait = min(LIVE_MIN_INTERVAL_SECONDS, previous_ms / 1000 + LIVE_MIN_INTERVAL_SECONDS - time.time())
            if wait > 0:
                time.sleep(wait)
                stats.waited_seconds += wait
        top = _visible_top(config, period_id, changed)
        digest = hashlib.sha256(json.dumps(top["entries"], sort_keys=True).encode()).hexdigest()
        if sent and sent.get("digest") == digest:
            stats.unchanged += 1
            return
        now_s = time.time()
        claimed_ms = int(now_s * 1000)
        expires_at = int(now_s) + SENT_STATE_DAYS * 86400
        if not connections.claim_send(board_period, previous_ms, claimed_ms, digest, expires_at):
            continue  # someone pushed since we read: read again, and push only what is newer
        stats.pushes += 1
        _post_all(config, period_id, top["entries"], followers, stats)
        connections.finish_send(board_period, claimed_ms, int(time.time() * 1000))
        return
    logger.warning("gave up pushing %s: claims kept being taken", board_period)


def _post_all(config, period_id: str, entries_: list[dict], followers: dict[str, list[str]], stats: Stats) -> None:
    jobs = []
    for t, connection_ids in followers.items():
        followed = t.split("#", 1)[1]
        data = json.dumps(live.top_message(config, followed, period_id, entries_), separators=(",", ":")).encode()
        jobs += [(connection_id, data) for connection_id in connection_ids]

    def post(job: tuple[str, bytes]) -> bool:
        delivered = connections.post(*job)
        if not delivered:
            connections.remove_connection(job[0])
        return delivered

    with ThreadPoolExecutor(min(POST_THREADS, len(jobs)), thread_name_prefix="live-post") as pool:
        results = list(pool.map(post, jobs))
    stats.messages += sum(results)
    stats.gone += len(results) - sum(results)


def _visible_top(config: boards.BoardConfig, period_id: str, changed: set[tuple[str, str]]) -> dict[str, Any]:
    """The top, once the rank index shows the changed entries as the table holds them now (bounded wait)."""
    present = {p: item for (p, _), item in entries.get(changed).items() if schema.RANK_INDEX_SORT_KEY in item}
    gone = {p for p, _ in changed} - set(present)
    deadline = time.monotonic() + VISIBILITY_WAIT_SECONDS
    while True:
        top = live.read_top(config, period_id)
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
