"""What the API does, independent of HTTP: submit, top N, player stats, snapshots."""

from __future__ import annotations

import secrets
from datetime import datetime, timezone

from . import keys, periods, store
from .errors import NotFound
from .settings import get_settings


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def submit_score(player_id: str, player_name: str, score: int, now: datetime | None = None) -> dict:
    """Fan one score out to the all-time, daily and weekly boards, keeping each board's best."""
    now = now or _now()
    reached_ms = _ms(now)
    retention = get_settings().period_retention_days
    boards = []
    for board in periods.current_boards(now):
        result = store.put_if_better(
            board.leaderboard_id,
            player_id,
            player_name,
            score,
            keys.rank_key(score, reached_ms, player_id),
            reached_ms,
            periods.expires_at(board, retention),
        )
        boards.append(
            {
                "leaderboard_id": board.leaderboard_id,
                "period": board.period,
                "best_score": result.best_score,
                "improved": result.improved,
            }
        )
    return {"player_id": player_id, "player_name": player_name, "score": score, "boards": boards}


def _ranked(items: list[dict]) -> list[dict]:
    return [
        {"rank": i, "player_id": it["player_id"], "player_name": it.get("player_name", it["player_id"]), "score": it["score"]}
        for i, it in enumerate(items, start=1)
    ]


def leaderboard(period: str | None, limit: int, now: datetime | None = None) -> dict:
    board = periods.resolve(period, now or _now())
    return {
        "leaderboard_id": board.leaderboard_id,
        "period": board.period,
        "entries": _ranked(store.top(board.leaderboard_id, limit)),
    }


def percentile(rank: int, total: int) -> float:
    """The original design's definition: the share of the board ranked below the player."""
    return round((total - rank) / total * 100, 1)


def player_stats(player_id: str, now: datetime | None = None) -> dict:
    now_s = int((now or _now()).timestamp())
    # TTL deletes expired entries within days, not instantly: hide them meanwhile.
    entries = [e for e in store.player_entries(player_id) if e.get("expires_at", now_s + 1) > now_s]
    if not entries:
        raise NotFound(f"player {player_id} is on no leaderboard")
    boards = []
    for entry in entries:
        rank = 1 + store.count_ahead(entry["leaderboard_id"], entry["rank_key"])
        total = store.count_board(entry["leaderboard_id"])
        boards.append(
            {
                "leaderboard_id": entry["leaderboard_id"],
                "period": periods.board_from_id(entry["leaderboard_id"]).period,
                "score": entry["score"],
                "rank": rank,
                "total_players": total,
                "percentile": percentile(rank, total),
            }
        )
    order = {p: i for i, p in enumerate(periods.PERIODS)}
    boards.sort(key=lambda b: (order[b["period"]], b["leaderboard_id"]))
    newest_first = sorted(entries, key=lambda e: e.get("reached_at", 0), reverse=True)
    return {"player_id": player_id, "player_name": newest_first[0].get("player_name", player_id), "boards": boards}


def take_snapshot(period: str | None, limit: int, now: datetime | None = None) -> dict:
    now = now or _now()
    board = periods.resolve(period, now)
    # Millisecond timestamp plus a random suffix: two snapshots in the same ms stay distinct.
    taken_at = now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z#{secrets.token_hex(3)}"
    snapshot = {
        "leaderboard_id": board.leaderboard_id,
        "taken_at": taken_at,
        "snapshot_id": f"{board.leaderboard_id}#{taken_at}",
        "period": board.period,
        "entries": _ranked(store.top(board.leaderboard_id, limit)),
    }
    store.put_snapshot(snapshot)
    return snapshot


def snapshots(period: str | None, limit: int, now: datetime | None = None) -> dict:
    board = periods.resolve(period, now or _now())
    items = store.list_snapshots(board.leaderboard_id, limit)
    return {
        "leaderboard_id": board.leaderboard_id,
        "period": board.period,
        "snapshots": [{"snapshot_id": s["snapshot_id"], "taken_at": s["taken_at"], "entries": s["entries"]} for s in items],
    }
