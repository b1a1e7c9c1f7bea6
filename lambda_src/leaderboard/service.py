"""What the API does, independent of HTTP: boards, submissions, rankings, snapshots."""

from __future__ import annotations

import json
import random
import secrets
import time
from datetime import datetime, timedelta, timezone
from typing import Any, Iterable

from . import boards, cursors, keys, metrics, periods, ranking, store
from .boards import BoardConfig
from .errors import BadRequest, Conflict, NotFound
from .settings import get_settings

WRITE_ATTEMPTS = 40  # one player's entry under many concurrent writers: each round one of them wins


def now_utc() -> datetime:
    return datetime.now(timezone.utc)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


# --- boards ---------------------------------------------------------------------------------


def declared_boards() -> dict[str, BoardConfig]:
    """The built-in board and the boards declared in the stack's props (no table item: nothing to create)."""
    declared = [boards.parse_new_board(b, created_at=None) for b in get_settings().declared_boards]
    return {b.board_id: b for b in [boards.DEFAULT_BOARD, *declared]}


def get_board(board_id: str) -> BoardConfig:
    if board_id in (builtin := declared_boards()):
        return builtin[board_id]
    item = store.get_board(boards.board_id(board_id))
    if item is None or item.get("status") == "deleting":
        raise NotFound(f"no leaderboard {board_id}")
    return BoardConfig.from_item(item)


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
    config = boards.parse_new_board(body, created_at=_iso(now))
    if config.board_id in declared_boards() or not store.put_board(config.to_item()):
        raise Conflict(f"leaderboard {config.board_id} already exists")
    return board_view(config, now)


def list_boards(now: datetime | None = None) -> dict[str, Any]:
    stored = [BoardConfig.from_item(i) for i in store.list_boards() if i.get("status") != "deleting"]
    return {"leaderboards": [board_view(c, now) for c in [*declared_boards().values(), *stored]]}


def delete_board(board_id: str, budget: int = 5000, now: datetime | None = None) -> tuple[bool, dict[str, Any]]:
    """Remove a board and its entries; returns (done, view). Large boards finish in later calls.

    The config stays as a 'deleting' tombstone until the last entry is gone, so the board
    vanishes at once for readers and its id cannot be reused mid-purge.
    """
    if board_id in declared_boards():
        raise BadRequest(f"{board_id} is built in or declared in the stack: remove it from the stack's props instead")
    item = store.get_board(boards.board_id(board_id))
    if item is None:
        raise NotFound(f"no leaderboard {board_id}")
    config = BoardConfig.from_item(item)
    if item.get("status") != "deleting":
        store.put_board_status(board_id, "deleting")
    deleted = 0
    for period_id in _period_ids_within_retention(config, now or now_utc()):
        for part in ranking.partitions(config, periods.from_id(period_id)):
            done_here, done = store.delete_board_entries(part, budget - deleted)
            deleted += done_here
            if not done:
                return False, {"board_id": board_id, "status": "deleting", "deleted_entries": deleted}
            for level in (ranking.BUCKETS, ranking.SEGMENTS):
                store.put_counters(part, level, [])
    store.delete_board(board_id)
    return True, {"board_id": board_id, "status": "deleted", "deleted_entries": deleted}


def _period_ids_within_retention(config: BoardConfig, now: datetime) -> list[str]:
    """Every period id that can still hold entries: older ones have been removed by TTL."""
    created = datetime.fromisoformat((config.created_at or _iso(now)).replace("Z", "+00:00"))
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


def make_entry(
    config: BoardConfig,
    period: periods.Period,
    player_id: str,
    name: str,
    score: int,
    reached_ms: int,
    metadata: str | None,
) -> store.Entry:
    return store.Entry(
        leaderboard_id=ranking.player_partition(config, period, player_id),
        player_id=player_id,
        player_name=name,
        score=score,
        rank_key=keys.rank_key(score, reached_ms, player_id, config.order == boards.DESC),
        reached_at=reached_ms,
        expires_at=periods.expires_at(period, get_settings().period_retention_days),
        metadata=metadata,
    )


def _combine(config: BoardConfig, stored: int | None, submitted: int) -> int | None:
    """The board operator: the score to store, or None to leave the entry as it is."""
    if config.operator == boards.INCREMENT:
        return (stored or 0) + submitted
    if config.operator == boards.LATEST or stored is None:
        return submitted
    return submitted if config.better(submitted, stored) else None


def submit(
    config: BoardConfig,
    player_id: str,
    name: str | None,
    score: int,
    metadata: dict | None = None,
    now: datetime | None = None,
    with_rank: bool = True,
) -> dict[str, Any]:
    """Apply the board's operator on every period it keeps, entries and rank counters in one transaction.

    Nothing is written if a resulting score is out of bounds. A concurrent write to the same entry (or
    bucket) cancels the transaction: re-read and retry, so no update is lost or applied twice.
    """
    now = now or now_utc()
    reached_ms = _ms(now)
    meta = json.dumps(metadata, separators=(",", ":")) if metadata is not None else None
    if config.operator != boards.INCREMENT and not config.in_bounds(score):
        raise BadRequest(f"score must be between {config.min_score} and {config.max_score} on this board")
    current = periods.current(now, config.periods)
    parts = [ranking.player_partition(config, p, player_id) for p in current]
    for attempt in range(WRITE_ATTEMPTS):
        stored = store.get_entries(player_id, parts)
        changes, rows = [], []
        for period, part in zip(current, parts):
            old = stored.get(part)
            new_score = _combine(config, old["score"] if old else None, score)
            if new_score is not None and not config.in_bounds(new_score):
                raise BadRequest(
                    f"the result would leave [{config.min_score}, {config.max_score}] on {period.kind}; nothing stored"
                )
            if new_score is None or (old is not None and new_score == old["score"]):
                rows.append((period, part, old["score"], old["rank_key"], False))
                continue
            # No name given: keep the one stored (or show the id for a newcomer).
            entry_name = name or (old.get("player_name") if old else None) or player_id
            entry = make_entry(config, period, player_id, entry_name, new_score, reached_ms, meta)
            where = ranking.locate(part, [entry.rank_key] + ([old["rank_key"]] if old else []))
            new_place = where[entry.rank_key]
            changes.append(
                store.Change(
                    entry,
                    old["score"] if old else None,
                    where[old["rank_key"]] if old else None,
                    new_place if new_place[0] is not None else None,
                    replaced=old,
                )
            )
            rows.append((period, part, new_score, entry.rank_key, True))
        if not changes:
            break
        try:
            store.apply_changes(changes, ranking.FIRST_LO, ranking.LAST_HI, get_settings().page_snapshot_seconds)
            break
        except store.Conflict:
            metrics.count(metrics.WRITE_RETRIES, board=config.board_id)
            time.sleep(random.uniform(0, 0.01 * (attempt + 1)))  # jitter: let the other writer finish
    else:
        raise Conflict("too many concurrent writes to this entry; retry")
    metrics.count(metrics.SUBMISSIONS, board=config.board_id)
    for change in changes:
        if change.new is not None and change.new[0].count + 1 > get_settings().bucket_capacity:
            ranking.split_if_full(change.entry.leaderboard_id, change.entry.rank_key)
    out = []
    for period, part, stored_score, key, changed in rows:
        row = {
            "leaderboard_id": config.leaderboard_id(period.period_id),
            "period": period.kind,
            "period_id": period.period_id,
            "score": stored_score,
            "changed": changed,
        }
        if with_rank:
            metrics.count(metrics.RANK_READS, board=config.board_id)
            row["rank"] = ranking.rank_and_total(ranking.partitions(config, period), key)[0]
        out.append(row)
    shown = name or next((e["player_name"] for e in stored.values() if e.get("player_name")), player_id)
    return {"board_id": config.board_id, "player_id": player_id, "player_name": shown, "periods": out}


INSERT_CHUNK = 40  # new entries per transaction, with their counter updates: under the 100-item limit


def bulk_load(config: BoardConfig, entries: Iterable[store.Entry]) -> int:
    """Insert many NEW entries (the simulator's fresh players, benchmarks) with their counters.

    Each chunk of one partition is one transaction: the entries (only if absent) and every counter
    they change, so bulk loads are exact next to live traffic and to each other.
    """
    by_part: dict[str, list[store.Entry]] = {}
    written = 0
    for entry in entries:
        chunk = by_part.setdefault(entry.leaderboard_id, [])
        chunk.append(entry)
        if len(chunk) == INSERT_CHUNK:
            written += _insert_counted(entry.leaderboard_id, chunk)
            by_part[entry.leaderboard_id] = []
    for part, chunk in by_part.items():
        if chunk:
            written += _insert_counted(part, chunk)
    return written


def _insert_counted(part: str, chunk: list[store.Entry]) -> int:
    for attempt in range(WRITE_ATTEMPTS):
        where = ranking.locate(part, [e.rank_key for e in chunk])
        deltas: dict[tuple[int, str], tuple[ranking.Bucket, int]] = {}
        for entry in chunk:
            for level, counter in enumerate(where[entry.rank_key]):
                if counter is not None:
                    _, n = deltas.get((level, counter.lo), (counter, 0))
                    deltas[(level, counter.lo)] = (counter, n + 1)
        try:
            store.insert_counted(part, chunk, list(deltas.items()), ranking.FIRST_LO, ranking.LAST_HI)
            break
        except store.Conflict:
            metrics.count(metrics.WRITE_RETRIES, partition=part)
            time.sleep(random.uniform(0, 0.01 * (attempt + 1)))
    else:
        raise Conflict("too many concurrent writes while seeding; retry")
    for (level, _), (counter, n) in deltas.items():
        if level == ranking.BUCKETS and counter.count + n > get_settings().bucket_capacity:
            ranking.split_if_full(part, counter.lo)
    if not deltas:  # the partition had no counters: the first ones hold the whole chunk
        ranking.split_if_full(part, chunk[0].rank_key)
    return len(chunk)


def submit_default(player_id: str, name: str | None, score: int, now: datetime | None = None) -> dict[str, Any]:
    """POST /scores, the original route: the default board, keep-best, its original response shape."""
    result = submit(boards.DEFAULT_BOARD, player_id, name, score, now=now, with_rank=False)
    return {
        "player_id": player_id,
        "player_name": result["player_name"],
        "score": score,
        "boards": [
            {
                "leaderboard_id": r["leaderboard_id"],
                "period": r["period"],
                "best_score": r["score"],
                "improved": r["changed"],
            }
            for r in result["periods"]
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
    """A page of the ranking. A walk of pages shows the ranking as it stood at its first page (replaced
    versions are kept a while for that), so every entry appears exactly once and ranks stay consecutive."""
    leaderboard_id = config.leaderboard_id(period.period_id)
    # A cursor belongs to one board period (and one score range): it is signed for exactly that.
    binding = leaderboard_id if between is None else f"{leaderboard_id}|{between[0]}|{between[1]}"
    parts = ranking.partitions(config, period)
    if cursor is not None:
        position = cursors.read(cursor, binding)
        after, last_rank, as_of = position.last_key, position.last_rank, position.issued_ms
        query = {"after": after, "as_of": as_of, "with_history": True}
    else:
        last_rank, as_of, query = 0, int(time.time() * 1000), {}
    items = ranking.merged_page(parts, limit + 1, between=between, **query)  # one extra: is there more?
    more = len(items) > limit
    items = items[:limit]
    if items and cursor is None and between is not None:
        metrics.count(metrics.RANK_READS, board=config.board_id)
        last_rank = ranking.rank_and_total(parts, items[0]["rank_key"])[0] - 1
    entries = _ranked(items, last_rank + 1)
    page = {"entries": entries}
    if more:
        page["next_cursor"] = cursors.issue(binding, items[-1]["rank_key"], entries[-1]["rank"], issued_ms=as_of)
    return page


def top(config: BoardConfig, period: str | None, limit: int, cursor: str | None, now: datetime | None = None):
    p = periods.resolve(period, now or now_utc(), config.periods)
    lb = config.leaderboard_id(p.period_id)
    return {
        "board_id": config.board_id,
        "leaderboard_id": lb,
        "period": p.kind,
        "period_id": p.period_id,
        **_paged(config, p, limit, cursor),
    }


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
    lb = config.leaderboard_id(p.period_id)
    between = keys.score_range(low, high, config.order == boards.DESC)
    return {
        "board_id": config.board_id,
        "leaderboard_id": lb,
        "period": p.kind,
        "period_id": p.period_id,
        "min_score": low,
        "max_score": high,
        **_paged(config, p, limit, cursor, between),
    }


def percentile(rank: int, total: int) -> float:
    """The original design's definition: the share of the board ranked below the player."""
    return round((total - rank) / total * 100, 1)


def around(config: BoardConfig, period: str | None, player_id: str, window: int, now: datetime | None = None):
    p = periods.resolve(period, now or now_utc(), config.periods)
    lb = config.leaderboard_id(p.period_id)
    item = store.player_entry(player_id, ranking.player_partition(config, p, player_id))
    if item is None:
        raise NotFound(f"player {player_id} is not on {lb}")
    parts = ranking.partitions(config, p)
    metrics.count(metrics.RANK_READS, board=config.board_id)
    rank, total = ranking.rank_and_total(parts, item["rank_key"])
    above = list(reversed(ranking.merged_page(parts, window, before=item["rank_key"]))) if window else []
    below = ranking.merged_page(parts, window, after=item["rank_key"]) if window else []
    return {
        "board_id": config.board_id,
        "leaderboard_id": lb,
        "period": p.kind,
        "period_id": p.period_id,
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
    entries = [
        e
        for e in store.player_entries(player_id)
        if "#" not in e["leaderboard_id"] and e.get("expires_at", now_s + 1) > now_s
    ]
    if not entries:
        raise NotFound(f"player {player_id} is on no leaderboard")
    result = []
    for entry in entries:
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
    newest = max(entries, key=lambda e: e.get("reached_at", 0))
    return {"player_id": player_id, "player_name": newest.get("player_name", player_id), "boards": result}


# --- snapshots ------------------------------------------------------------------------------


def take_snapshot(period: str | None, limit: int, now: datetime | None = None) -> dict:
    now = now or now_utc()
    p = periods.resolve(period, now, boards.DEFAULT_BOARD.periods)
    # The sort key is the time plus a random suffix: two snapshots in the same ms stay distinct.
    sort_key = f"{_iso(now)}#{secrets.token_hex(3)}"
    snapshot = {
        "leaderboard_id": p.period_id,
        "taken_at": sort_key,
        "snapshot_id": f"{p.period_id}#{sort_key}",
        "period": p.kind,
        "entries": _ranked(store.page(p.period_id, limit)),
    }
    store.put_snapshot(snapshot)
    return {**snapshot, "taken_at": _iso(now)}


def snapshots(period: str | None, limit: int, now: datetime | None = None) -> dict:
    p = periods.resolve(period, now or now_utc(), boards.DEFAULT_BOARD.periods)
    items = store.list_snapshots(p.period_id, limit)
    return {
        "leaderboard_id": p.period_id,
        "period": p.kind,
        "snapshots": [
            {"snapshot_id": s["snapshot_id"], "taken_at": s["taken_at"].split("#")[0], "entries": s["entries"]}
            for s in items
        ],
    }
