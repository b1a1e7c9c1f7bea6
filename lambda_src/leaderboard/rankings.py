"""Reading the ranking: pages (top N, then cursors), score ranges, a player with the players around them."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from . import boards, cursors, keys, metrics, periods, ranking, schema
from .boards import BoardConfig
from .clock import now_utc
from .data import entries
from .errors import BadRequest, NotFound


def public_entry(item: dict, rank: int) -> dict[str, Any]:
    entry = {
        "rank": rank,
        "player_id": item[schema.SCORES_PARTITION_KEY],
        "player_name": item.get("player_name", item[schema.SCORES_PARTITION_KEY]),
        "score": item["score"],
    }
    if item.get("metadata"):
        entry["metadata"] = json.loads(item["metadata"])
    return entry


def ranked(items: list[dict], first_rank: int = 1) -> list[dict]:
    return [public_entry(it, r) for r, it in enumerate(items, start=first_rank)]


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
        last_rank = ranking.rank_and_total(parts, items[0][schema.RANK_INDEX_SORT_KEY])[0] - 1
    entries_ = ranked(items, last_rank + 1)
    page = {"entries": entries_}
    if more:
        page["next_cursor"] = cursors.issue(binding, items[-1][schema.RANK_INDEX_SORT_KEY], entries_[-1]["rank"])
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
    at = item[schema.RANK_INDEX_SORT_KEY]
    rank, total = ranking.rank_and_total(parts, at)
    above = list(reversed(ranking.merged_page(parts, window, before=at))) if window else []
    below = ranking.merged_page(parts, window, after=at) if window else []
    return {
        **_period_view(config, p),
        **public_entry(item, rank),
        "total_players": total,
        "percentile": percentile(rank, total),
        "metadata": json.loads(item["metadata"]) if item.get("metadata") else None,
        "above": ranked(above, rank - len(above)),
        "below": ranked(below, rank + 1),
    }
