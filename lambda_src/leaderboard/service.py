"""What the API does, independent of HTTP: boards, submissions, rankings, snapshots."""

from __future__ import annotations

import base64
import binascii
import json
import secrets
from datetime import datetime, timedelta, timezone
from typing import Any

from . import boards, keys, periods, store
from .boards import BoardConfig
from .errors import BadRequest, Conflict, NotFound
from .settings import get_settings

INCREMENT_ATTEMPTS = 10


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
        done_here, done = store.delete_board_entries(config.leaderboard_id(period_id), budget - deleted)
        deleted += done_here
        if not done:
            return False, {"board_id": board_id, "status": "deleting", "deleted_entries": deleted}
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


def make_entry(config: BoardConfig, period: periods.Period, player_id: str, name: str, score: int, reached_ms: int,
           metadata: str | None) -> store.Entry:
    descending = config.order == boards.DESC
    return store.Entry(
        leaderboard_id=config.leaderboard_id(period.period_id),
        player_id=player_id,
        player_name=name,
        score=score,
        rank_key=keys.rank_key(score, reached_ms, player_id, descending),
        reached_at=reached_ms,
        expires_at=periods.expires_at(period, get_settings().period_retention_days),
        metadata=metadata,
    )


def submit(config: BoardConfig, player_id: str, name: str, score: int, metadata: dict | None = None,
           now: datetime | None = None, with_rank: bool = True) -> dict[str, Any]:
    """Apply the board's operator to every period it keeps; nothing is written if the score is out of bounds."""
    now = now or now_utc()
    reached_ms = _ms(now)
    meta = json.dumps(metadata, separators=(",", ":")) if metadata is not None else None
    current = periods.current(now, config.periods)
    if config.operator == boards.INCREMENT:
        results = _increment(config, current, player_id, name, score, reached_ms, meta)
    else:
        if not config.in_bounds(score):
            raise BadRequest(f"score must be between {config.min_score} and {config.max_score} on this board")
        results = []
        for period in current:
            entry = make_entry(config, period, player_id, name, score, reached_ms, meta)
            result = (
                store.write_if_better(entry, config.order == boards.DESC)
                if config.operator == boards.BEST
                else store.write_latest(entry)
            )
            results.append((period, result))
    out = []
    for period, result in results:
        row = {
            "leaderboard_id": config.leaderboard_id(period.period_id),
            "period": period.kind,
            "period_id": period.period_id,
            "score": result.score,
            "changed": result.changed,
        }
        if with_rank:
            row["rank"] = 1 + store.count_ahead(row["leaderboard_id"], result.rank_key)
        out.append(row)
    return {"board_id": config.board_id, "player_id": player_id, "player_name": name, "periods": out}


def _increment(config: BoardConfig, current: list[periods.Period], player_id: str, name: str, delta: int,
               reached_ms: int, meta: str | None) -> list[tuple[periods.Period, store.WriteResult]]:
    """Read, add, write back in one transaction conditioned on the values read; retry on a race."""
    ids = [config.leaderboard_id(p.period_id) for p in current]
    for _ in range(INCREMENT_ATTEMPTS):
        previous = store.current_scores(player_id, ids)
        totals = {lb: previous.get(lb, 0) + delta for lb in ids}
        if not all(config.in_bounds(t) for t in totals.values()):
            raise BadRequest(
                f"the total would leave [{config.min_score}, {config.max_score}] on at least one period; nothing stored"
            )
        entries = [make_entry(config, p, player_id, name, totals[lb], reached_ms, meta) for p, lb in zip(current, ids)]
        try:
            store.write_all_if_unchanged(entries, previous)
        except store.Conflict:
            continue
        return [(p, store.WriteResult(e.score, e.rank_key, delta != 0)) for p, e in zip(current, entries)]
    raise Conflict("too many concurrent increments for this player; retry")


def submit_default(player_id: str, name: str, score: int, now: datetime | None = None) -> dict[str, Any]:
    """POST /scores, the original route: the default board, keep-best, its original response shape."""
    result = submit(boards.DEFAULT_BOARD, player_id, name, score, now=now, with_rank=False)
    return {
        "player_id": player_id,
        "player_name": name,
        "score": score,
        "boards": [
            {"leaderboard_id": r["leaderboard_id"], "period": r["period"], "best_score": r["score"], "improved": r["changed"]}
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


def _encode_cursor(leaderboard_id: str, item: dict, rank: int) -> str:
    raw = json.dumps({"b": leaderboard_id, "k": item["rank_key"], "r": rank}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def _decode_cursor(cursor: str | None, leaderboard_id: str) -> tuple[str | None, int]:
    """(rank key to continue after, rank of that entry); (None, 0) for the first page."""
    if not cursor:
        return None, 0
    try:
        data = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        key, rank = data["k"], int(data["r"])
        ok = data["b"] == leaderboard_id and isinstance(key, str) and rank >= 0
    except (ValueError, KeyError, TypeError, binascii.Error):
        ok = False
    if not ok:
        raise BadRequest("cursor is not valid for this board and period")
    return key, rank


def _paged(leaderboard_id: str, limit: int, cursor: str | None, between: tuple[str, str] | None = None):
    after, last_rank = _decode_cursor(cursor, leaderboard_id)
    items = store.page(leaderboard_id, limit + 1, after=after, between=between)  # one extra: is there more?
    more = len(items) > limit
    items = items[:limit]
    if items and after is None and between is not None:
        last_rank = store.count_ahead(leaderboard_id, items[0]["rank_key"])
    entries = _ranked(items, last_rank + 1)
    page = {"entries": entries}
    if more:
        page["next_cursor"] = _encode_cursor(leaderboard_id, items[-1], entries[-1]["rank"])
    return page


def top(config: BoardConfig, period: str | None, limit: int, cursor: str | None, now: datetime | None = None):
    p = periods.resolve(period, now or now_utc(), config.periods)
    lb = config.leaderboard_id(p.period_id)
    return {"board_id": config.board_id, "leaderboard_id": lb, "period": p.kind, "period_id": p.period_id,
            **_paged(lb, limit, cursor)}


def score_range(config: BoardConfig, period: str | None, low: int, high: int, limit: int, cursor: str | None,
                now: datetime | None = None):
    if low > high:
        raise BadRequest("min_score must not be greater than max_score")
    p = periods.resolve(period, now or now_utc(), config.periods)
    lb = config.leaderboard_id(p.period_id)
    between = keys.score_range(low, high, config.order == boards.DESC)
    return {"board_id": config.board_id, "leaderboard_id": lb, "period": p.kind, "period_id": p.period_id,
            "min_score": low, "max_score": high, **_paged(lb, limit, cursor, between)}


def percentile(rank: int, total: int) -> float:
    """The original design's definition: the share of the board ranked below the player."""
    return round((total - rank) / total * 100, 1)


def around(config: BoardConfig, period: str | None, player_id: str, window: int, now: datetime | None = None):
    p = periods.resolve(period, now or now_utc(), config.periods)
    lb = config.leaderboard_id(p.period_id)
    item = store.player_entry(player_id, lb)
    if item is None:
        raise NotFound(f"player {player_id} is not on {lb}")
    rank = 1 + store.count_ahead(lb, item["rank_key"])
    total = store.count_board(lb)
    above = list(reversed(store.page(lb, window, before=item["rank_key"]))) if window else []
    below = store.page(lb, window, after=item["rank_key"]) if window else []
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
    return {"leaderboard_id": page["leaderboard_id"], "period": page["period"],
            "entries": [{k: e[k] for k in ("rank", "player_id", "player_name", "score")} for e in page["entries"]]}


def player_stats(player_id: str, now: datetime | None = None) -> dict:
    """GET /player, the original route: every period of the default board the player is on."""
    now_s = int((now or now_utc()).timestamp())
    # Other boards' ids contain '#'. TTL deletes expired entries within days, not instantly: hide them meanwhile.
    entries = [
        e for e in store.player_entries(player_id)
        if "#" not in e["leaderboard_id"] and e.get("expires_at", now_s + 1) > now_s
    ]
    if not entries:
        raise NotFound(f"player {player_id} is on no leaderboard")
    result = []
    for entry in entries:
        rank = 1 + store.count_ahead(entry["leaderboard_id"], entry["rank_key"])
        total = store.count_board(entry["leaderboard_id"])
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
    # Millisecond timestamp plus a random suffix: two snapshots in the same ms stay distinct.
    taken_at = f"{_iso(now)}#{secrets.token_hex(3)}"
    snapshot = {
        "leaderboard_id": p.period_id,
        "taken_at": taken_at,
        "snapshot_id": f"{p.period_id}#{taken_at}",
        "period": p.kind,
        "entries": _ranked(store.top(p.period_id, limit)),
    }
    store.put_snapshot(snapshot)
    return snapshot


def snapshots(period: str | None, limit: int, now: datetime | None = None) -> dict:
    p = periods.resolve(period, now or now_utc(), boards.DEFAULT_BOARD.periods)
    items = store.list_snapshots(p.period_id, limit)
    return {
        "leaderboard_id": p.period_id,
        "period": p.kind,
        "snapshots": [{"snapshot_id": s["snapshot_id"], "taken_at": s["taken_at"], "entries": s["entries"]} for s in items],
    }
