"""The original design's routes on the default board ("global"), with their original response shapes:
POST /scores, GET /leaderboard, GET /player."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..domain import boards, entry_store, periods, rank_counters, score_writes
from ..shared import item_keys, metrics, schema
from ..shared.errors import NotFound
from . import ranking_reads, score_submission

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

BOARD_PERIOD = schema.SCORES_SORT_KEY  # an entry's board period (its leaderboard_id)


def submit(runtime: Runtime, player_id: str, name: str | None, score: int, now: datetime) -> dict[str, Any]:
    """POST /scores, the original route: the default board, keep-best, its original response shape (no ranks)."""
    outcome = score_submission.submit(
        score_submission.Writer.of(runtime),
        boards.DEFAULT_BOARD,
        score_writes.Submission(player_id, name, score),
        now,
    )
    return {
        "player_id": player_id,
        "player_name": outcome.player_name,
        "score": score,
        "boards": [
            {"leaderboard_id": p.leaderboard_id, "period": p.period.kind, "best_score": p.score, "improved": p.changed}
            for p in outcome.periods
        ],
    }


def leaderboard(
    runtime: Runtime, period: str | None, limit: int, now: datetime, mode: str = ranking_reads.UNIQUE
) -> dict:
    """GET /leaderboard, the original route: top N of the default board (the first page: any mode is free)."""
    page = ranking_reads.top(runtime, boards.DEFAULT_BOARD, period, limit, None, now, mode)
    return {
        "leaderboard_id": page["leaderboard_id"],
        "period": page["period"],
        "entries": [{k: e[k] for k in ("rank", "player_id", "player_name", "score")} for e in page["entries"]],
    }


def player_stats(runtime: Runtime, player_id: str, now: datetime) -> dict:
    """GET /player, the original route: every period of the default board the player is on."""
    now_s = int(now.timestamp())
    # TTL deletes expired entries within days, not instantly: hide them meanwhile.
    found = [
        e
        for e in runtime.entries.of_player(player_id)
        if item_keys.is_default_board(e[BOARD_PERIOD]) and e.get(schema.TTL_ATTRIBUTE, now_s + 1) > now_s
    ]
    if not found:
        raise NotFound(f"player {player_id} is on no leaderboard")
    result = []
    for entry in found:
        runtime.metrics.count(metrics.RANK_READS, board=boards.DEFAULT_BOARD.board_id)
        hidden = entry_store.is_hidden(entry)
        at = entry_store.position(entry)
        assert at is not None  # found holds entries only
        rank, total = rank_counters.rank_and_total(runtime, [entry[BOARD_PERIOD]], at, listed=not hidden)
        result.append(
            {
                "leaderboard_id": entry[BOARD_PERIOD],
                "period": periods.from_id(entry[BOARD_PERIOD], now).kind,
                "score": entry["score"],
                "rank": rank,
                "total_players": total,
                "percentile": ranking_reads.percentile(rank, total),
                **({"hidden": True} if hidden else {}),
            }
        )
    order = {k: i for i, k in enumerate(periods.KINDS)}
    result.sort(key=lambda b: (order[b["period"]], b["leaderboard_id"]))
    newest = max(found, key=lambda e: e.get("reached_at", 0))
    return {"player_id": player_id, "player_name": newest.get("player_name", player_id), "boards": result}
