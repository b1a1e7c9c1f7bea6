"""Players across the ranking: a list of players (friends) ranked on one board, and every board of one player.

Both cost what the asked-for players hold, never what the board or the service holds: the friends view is one
BatchGetItem of the entries plus the counter reads of their ranks; a player's boards are one Query on the player's
own partition of the scores table, plus a rank per entry found.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import board_registry, keys, metrics, periods, ranking, rankings, schema
from .boards import BoardConfig
from .clock import now_utc
from .data import entries
from .errors import NotFound


def friends(config: BoardConfig, period: str | None, player_ids: list[str], now: datetime | None = None):
    """Those of `player_ids` on the board's period, in rank order with their board-wide ranks."""
    p = config.resolve_period(period, now or now_utc())
    found = entries.get((pid, config.player_partition(p.period_id, pid)) for pid in player_ids)
    items = sorted(
        (item for item in found.values() if schema.RANK_INDEX_SORT_KEY in item),
        key=lambda item: item[schema.RANK_INDEX_SORT_KEY],
    )
    ranks, _ = ranking.ranks_and_total(config.partitions(p.period_id), [i[schema.RANK_INDEX_SORT_KEY] for i in items])
    metrics.count(metrics.RANK_READS, len(items), board=config.board_id)
    return {
        "board_id": config.board_id,
        "period": p.kind,
        "period_id": p.period_id,
        "entries": [
            {
                k: v
                for k, v in rankings.public_entry(item, ranks[item[schema.RANK_INDEX_SORT_KEY]]).items()
                if k != "metadata"
            }
            for item in items
        ],
    }


def boards_of(player_id: str, now: datetime | None = None) -> dict[str, Any]:
    """Every board and current period the player is on, with rank, total and percentile.

    One Query on the player's partition finds their entries (past periods' entries are skipped: TTL removes
    them within days); a board that no longer exists is skipped. A board where the player is hidden is listed
    (this is a lookup of that player), marked hidden, with the rank they would have."""
    now = now or now_utc()
    current: dict[str, BoardConfig | None] = {}
    rows = []
    for item in entries.of_player(player_id):
        at = entries.position(item)
        if at is None:
            continue
        board_id, period_id = keys.board_and_period(item[schema.SCORES_SORT_KEY])
        if board_id not in current:
            try:
                current[board_id] = board_registry.get_board(board_id)
            except NotFound:
                current[board_id] = None
        config = current[board_id]
        if config is None:
            continue
        period = next((q for q in config.current_periods(now) if q.period_id == period_id), None)
        if period is None:
            continue
        metrics.count(metrics.RANK_READS, board=board_id)
        hidden = entries.is_hidden(item)
        rank, total = ranking.rank_and_total(config.partitions(period_id), at, listed=not hidden)
        rows.append(
            {
                "board_id": board_id,
                "period": period.kind,
                "period_id": period_id,
                "rank": rank,
                "score": item["score"],
                "total_players": total,
                "percentile": rankings.percentile(rank, total),
                **({"hidden": True} if hidden else {}),
            }
        )
    order = {k: i for i, k in enumerate((*periods.KINDS, periods.TOURNAMENT))}
    rows.sort(key=lambda r: (r["board_id"], order[r["period"]]))
    return {"player_id": player_id, "boards": rows}
