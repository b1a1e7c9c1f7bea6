"""What the API does, independent of HTTP: boards, submissions with ranks, rankings, snapshots."""

from __future__ import annotations

import json
import secrets
import time
from datetime import datetime, timedelta
from typing import Any

from . import boards, cursors, keys, metrics, periods, ranking, scoring
from .boards import BoardConfig
from .clock import iso, now_utc
from .data import boards as board_items
from .data import counters, entries, snapshots as snapshot_items
from .errors import BadRequest, Conflict, NotFound
from .settings import get_settings

BOARD_CACHE_SECONDS = 30  # how long a function instance trusts a board's config before reading it again


class _BoardCache:
    """Configs of boards stored in the table, as last read by this function instance."""

    def __init__(self) -> None:
        self.read_at: dict[str, tuple[float, BoardConfig]] = {}

    def get(self, board_id: str) -> BoardConfig | None:
        hit = self.read_at.get(board_id)
        return hit[1] if hit and time.monotonic() - hit[0] < BOARD_CACHE_SECONDS else None

    def put(self, config: BoardConfig) -> None:
        self.read_at[config.board_id] = (time.monotonic(), config)

    def forget(self, board_id: str) -> None:
        self.read_at.pop(board_id, None)

    def cache_clear(self) -> None:
        self.read_at.clear()


board_cache = _BoardCache()


# --- boards ---------------------------------------------------------------------------------


def declared_boards() -> dict[str, BoardConfig]:
    """The built-in board and the boards declared in the stack's props (no table item: nothing to create)."""
    declared = [boards.parse_new_board(b, created_at=None) for b in get_settings().declared_boards]
    return {b.board_id: b for b in [boards.DEFAULT_BOARD, *declared]}


def get_board(board_id: str) -> BoardConfig:
    """A board's config; stored boards are cached for BOARD_CACHE_SECONDS (writes re-check theirs)."""
    if board_id in (builtin := declared_boards()):
        return builtin[board_id]
    if (cached := board_cache.get(board_id)) is not None:
        return cached
    item = board_items.get(boards.board_id(board_id))
    if item is None or item.get("status") == "deleting":
        board_cache.forget(board_id)
        raise NotFound(f"no leaderboard {board_id}")
    config = BoardConfig.from_item(item)
    board_cache.put(config)
    return config


def board_view(config: BoardConfig, now: datetime | None = None) -> dict[str, Any]:
    now = now or now_utc()
    view = config.to_item()
    view["periods"] = [
        {"period": p.kind, "current": p.period_id, "next_reset": p.next_reset()}
        for p in periods.current(now, config.periods)
    ]
    return view


def create_board(body: dict[str, Any], now: datetime | None = None) -> dict[str, Any]:
    now = now or now_utc()
    config = boards.parse_new_board(body, created_at=iso(now))
    if config.board_id in declared_boards() or not board_items.put(config.to_item()):
        raise Conflict(f"leaderboard {config.board_id} already exists")
    return board_view(config, now)


def list_boards(now: datetime | None = None) -> dict[str, Any]:
    stored = [BoardConfig.from_item(i) for i in board_items.all_boards() if i.get("status") != "deleting"]
    return {"leaderboards": [board_view(c, now) for c in [*declared_boards().values(), *stored]]}


def delete_board(board_id: str, budget: int = 5000, now: datetime | None = None) -> tuple[bool, dict[str, Any]]:
    """Remove a board and its entries; returns (done, view). Large boards finish in later calls.

    The config stays as a 'deleting' tombstone until the last entry is gone, so the board
    vanishes at once for readers and its id cannot be reused mid-purge.
    """
    if board_id in declared_boards():
        raise BadRequest(f"{board_id} is built in or declared in the stack: remove it from the stack's props instead")
    item = board_items.get(boards.board_id(board_id))
    if item is None:
        raise NotFound(f"no leaderboard {board_id}")
    config = BoardConfig.from_item(item)
    if item.get("status") != "deleting":
        board_items.set_status(board_id, "deleting")
    board_cache.forget(board_id)
    deleted = 0
    for period_id in _period_ids_within_retention(config, now or now_utc()):
        for part in config.partitions(period_id):
            done_here, done = entries.delete_partition(part, budget - deleted)
            deleted += done_here
            if not done:
                return False, {"board_id": board_id, "status": "deleting", "deleted_entries": deleted}
            for level in (keys.BUCKETS, keys.SEGMENTS):
                counters.replace_all(part, level, [])
    board_items.delete(board_id)
    return True, {"board_id": board_id, "status": "deleted", "deleted_entries": deleted}


def _period_ids_within_retention(config: BoardConfig, now: datetime) -> list[str]:
    """Every period id that can still hold entries: older ones have been removed by TTL."""
    created = datetime.fromisoformat((config.created_at or iso(now)).replace("Z", "+00:00"))
    start = max(created, now - timedelta(days=get_settings().period_retention_days + 31))
    ids: list[str] = []
    day = start
    while day <= now + timedelta(days=1):
        for p in periods.current(day, config.periods):
            if p.period_id not in ids:
                ids.append(p.period_id)
        day += timedelta(days=1)
    return ids


# --- submissions ----------------------------------------------------------------------------


def submit(config: BoardConfig, submission: scoring.Submission, now: datetime | None = None) -> dict[str, Any]:
    """A submission, answered with the player's rank on every period (rank reads on top of the write)."""
    outcome = scoring.submit(config, submission, now)
    view = outcome.view()
    for row, period in zip(view["periods"], outcome.periods):
        if period.rank_key is not None:
            metrics.count(metrics.RANK_READS, board=config.board_id)
            row["rank"] = ranking.rank_and_total(config.partitions(period.period.period_id), period.rank_key)[0]
    return view


def submit_bulk(config: BoardConfig, submissions: list[scoring.Submission | BadRequest]) -> dict[str, Any]:
    """Many submissions with per-entry results in input order (no ranks: they would cost reads per entry)."""
    results = []
    for index, outcome in enumerate(scoring.submit_many(config, submissions)):
        if isinstance(outcome, BadRequest):
            results.append({"index": index, "status": outcome.status, "error": outcome.message})
        else:
            results.append({"index": index, "status": 200, "result": outcome.view()})
    ok = sum(r["status"] == 200 for r in results)
    return {"board_id": config.board_id, "accepted": ok, "rejected": len(results) - ok, "results": results}


def submit_default(player_id: str, name: str | None, score: int, now: datetime | None = None) -> dict[str, Any]:
    """POST /scores, the original route: the default board, keep-best, its original response shape (no ranks)."""
    outcome = scoring.submit(boards.DEFAULT_BOARD, scoring.Submission(player_id, name, score), now)
    return {
        "player_id": player_id,
        "player_name": outcome.player_name,
        "score": score,
        "boards": [
            {"leaderboard_id": p.leaderboard_id, "period": p.period.kind, "best_score": p.score, "improved": p.changed}
            for p in outcome.periods
        ],
    }


# --- rankings -------------------------------------------------------------------------------


def _public(item: dict, rank: int) -> dict[str, Any]:
    entry = {
        "rank": rank,
        "player_id": item["player_id"],
        "player_name": item.get("player_name", item["player_id"]),
        "score": item["score"],
    }
    if item.get("metadata"):
        entry["metadata"] = json.loads(item["metadata"])
    return entry


def _ranked(items: list[dict], first_rank: int = 1) -> list[dict]:
    return [_public(it, r) for r, it in enumerate(items, start=first_rank)]


def _paged(
    config: BoardConfig, period: periods.Period, limit: int, cursor: str | None, between: tuple[str, str] | None = None
):
    """A page of the ranking: one Query per shard. A cursor continues after the last entry shown, numbering on
    from its rank: pages are consecutive, but a player whose score changes during a walk may appear on two
    pages or on none (as in any keyset pagination)."""
    leaderboard_id = config.leaderboard_id(period.period_id)
    # A cursor belongs to one board period (and one score range): it is signed for exactly that.
    binding = leaderboard_id if between is None else f"{leaderboard_id}|{between[0]}|{between[1]}"
    parts = config.partitions(period.period_id)
    position = cursors.read(cursor, binding) if cursor is not None else None
    after, last_rank = (position.last_key, position.last_rank) if position else (None, 0)
    items = ranking.merged_page(parts, limit + 1, between=between, after=after)  # one extra: is there more?
    more = len(items) > limit
    items = items[:limit]
    if items and cursor is None and between is not None:
        metrics.count(metrics.RANK_READS, board=config.board_id)
        last_rank = ranking.rank_and_total(parts, items[0]["rank_key"])[0] - 1
    entries_ = _ranked(items, last_rank + 1)
    page = {"entries": entries_}
    if more:
        page["next_cursor"] = cursors.issue(binding, items[-1]["rank_key"], entries_[-1]["rank"])
    return page


def _period_view(config: BoardConfig, p: periods.Period) -> dict[str, Any]:
    return {
        "board_id": config.board_id,
        "leaderboard_id": config.leaderboard_id(p.period_id),
        "period": p.kind,
        "period_id": p.period_id,
    }


def top(config: BoardConfig, period: str | None, limit: int, cursor: str | None, now: datetime | None = None):
    p = periods.resolve(period, now or now_utc(), config.periods)
    return {**_period_view(config, p), **_paged(config, p, limit, cursor)}


def score_range(
    config: BoardConfig,
    period: str | None,
    low: int,
    high: int,
    limit: int,
    cursor: str | None,
    now: datetime | None = None,
):
    if low > high:
        raise BadRequest("min_score must not be greater than max_score")
    p = periods.resolve(period, now or now_utc(), config.periods)
    between = keys.score_range(low, high, config.order == boards.DESC)
    return {
        **_period_view(config, p),
        "min_score": low,
        "max_score": high,
        **_paged(config, p, limit, cursor, between),
    }


def percentile(rank: int, total: int) -> float:
    """The original design's definition: the share of the board ranked below the player."""
    return round((total - rank) / total * 100, 1)


def around(config: BoardConfig, period: str | None, player_id: str, window: int, now: datetime | None = None):
    p = periods.resolve(period, now or now_utc(), config.periods)
    item = entries.one(player_id, config.player_partition(p.period_id, player_id))
    if item is None:
        raise NotFound(f"player {player_id} is not on {config.leaderboard_id(p.period_id)}")
    parts = config.partitions(p.period_id)
    metrics.count(metrics.RANK_READS, board=config.board_id)
    rank, total = ranking.rank_and_total(parts, item["rank_key"])
    above = list(reversed(ranking.merged_page(parts, window, before=item["rank_key"]))) if window else []
    below = ranking.merged_page(parts, window, after=item["rank_key"]) if window else []
    return {
        **_period_view(config, p),
        **_public(item, rank),
        "total_players": total,
        "percentile": percentile(rank, total),
        "metadata": json.loads(item["metadata"]) if item.get("metadata") else None,
        "above": _ranked(above, rank - len(above)),
        "below": _ranked(below, rank + 1),
    }


def leaderboard(period: str | None, limit: int, now: datetime | None = None) -> dict:
    """GET /leaderboard, the original route: top N of the default board."""
    page = top(boards.DEFAULT_BOARD, period, limit, None, now)
    return {
        "leaderboard_id": page["leaderboard_id"],
        "period": page["period"],
        "entries": [{k: e[k] for k in ("rank", "player_id", "player_name", "score")} for e in page["entries"]],
    }


def player_stats(player_id: str, now: datetime | None = None) -> dict:
    """GET /player, the original route: every period of the default board the player is on."""
    now_s = int((now or now_utc()).timestamp())
    # Other boards' ids contain '#'. TTL deletes expired entries within days, not instantly: hide them meanwhile.
    found = [
        e
        for e in entries.of_player(player_id)
        if "#" not in e["leaderboard_id"] and e.get("expires_at", now_s + 1) > now_s
    ]
    if not found:
        raise NotFound(f"player {player_id} is on no leaderboard")
    result = []
    for entry in found:
        metrics.count(metrics.RANK_READS, board=boards.DEFAULT_BOARD.board_id)
        rank, total = ranking.rank_and_total([entry["leaderboard_id"]], entry["rank_key"])
        result.append(
            {
                "leaderboard_id": entry["leaderboard_id"],
                "period": periods.from_id(entry["leaderboard_id"]).kind,
                "score": entry["score"],
                "rank": rank,
                "total_players": total,
                "percentile": percentile(rank, total),
            }
        )
    order = {k: i for i, k in enumerate(periods.KINDS)}
    result.sort(key=lambda b: (order[b["period"]], b["leaderboard_id"]))
    newest = max(found, key=lambda e: e.get("reached_at", 0))
    return {"player_id": player_id, "player_name": newest.get("player_name", player_id), "boards": result}


# --- snapshots ------------------------------------------------------------------------------


def take_snapshot(period: str | None, limit: int, now: datetime | None = None) -> dict:
    now = now or now_utc()
    p = periods.resolve(period, now, boards.DEFAULT_BOARD.periods)
    # The sort key is the time plus a random suffix: two snapshots in the same ms stay distinct.
    sort_key = f"{iso(now)}#{secrets.token_hex(3)}"
    snapshot = {
        "leaderboard_id": p.period_id,
        "taken_at": sort_key,
        "snapshot_id": f"{p.period_id}#{sort_key}",
        "period": p.kind,
        "entries": _ranked(entries.page(p.period_id, limit)),
    }
    snapshot_items.put(snapshot)
    return {**snapshot, "taken_at": iso(now)}


def snapshots(period: str | None, limit: int, now: datetime | None = None) -> dict:
    p = periods.resolve(period, now or now_utc(), boards.DEFAULT_BOARD.periods)
    items = snapshot_items.newest(p.period_id, limit)
    return {
        "leaderboard_id": p.period_id,
        "period": p.kind,
        "snapshots": [
            {"snapshot_id": s["snapshot_id"], "taken_at": s["taken_at"].split("#")[0], "entries": s["entries"]}
            for s in items
        ],
    }
