"""Reading the ranking: pages (top N, then cursors), score ranges, a player with the players around them."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..domain import cursors, entry_store, periods, rank_counters
from ..domain.boards import BoardConfig
from ..shared import item_keys, limits, metrics, schema
from ..shared.errors import BadRequest, BrokenRule, NotFound
from ..shared.limits import COMPETITION, RANK_MODES, UNIQUE, UNSUPPORTED_RANK_MODES

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime


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


def rank_mode(value: object) -> str:
    """The rank_mode query parameter (default unique)."""
    if value is None:
        return UNIQUE
    if value in UNSUPPORTED_RANK_MODES:
        raise BadRequest(
            f"rank_mode {value} is not offered: it needs the number of distinct scores ahead, which the rank "
            f"counters do not keep; use one of {', '.join(RANK_MODES)}"
        )
    if value not in RANK_MODES:
        raise BadRequest(f"rank_mode must be one of {', '.join(RANK_MODES)}")
    return str(value)


def competition_ranks(
    runtime: Runtime, config: BoardConfig, parts: list[str], run: list[dict], first_rank: int, starts_a_score: bool
) -> list[int]:
    """Competition ranks (equal scores share the best of their ranks: 1, 2, 2, 4) of a run of consecutive
    entries whose unique ranks are first_rank, first_rank + 1, ...

    Within the run a rank follows from the one before: a tie repeats it, a new score starts at its unique rank.
    Only the run's first entry may continue a tie from before the run (unless `starts_a_score` says it cannot):
    its rank is 1 + the entries strictly better, one more rank read (the same three small reads per shard)."""
    result: list[int] = []
    for i, item in enumerate(run):
        unique = first_rank + i
        if i and item["score"] == run[i - 1]["score"]:
            result.append(result[-1])
        elif i or unique == 1 or starts_a_score:
            result.append(unique)
        else:
            first_of_score = item_keys.first_key_of_score(int(item["score"]), config.order == limits.DESC)
            # the counters may lag the live index by a moment: never show more than the unique rank
            result.append(min(unique, rank_counters.rank_and_total(runtime, parts, first_of_score)[0]))
    return result


def _shown(items: list[dict], ranks: list[int]) -> list[dict]:
    return [public_entry(it, r) for it, r in zip(items, ranks, strict=True)]


def _paged(
    runtime: Runtime,
    config: BoardConfig,
    period: periods.Period,
    limit: int,
    cursor: str | None,
    between: tuple[str, str] | None = None,
    mode: str = UNIQUE,
):
    """A page of the ranking: one Query per shard. A cursor continues after the last entry shown, numbering on
    from its rank: pages are consecutive, but a player whose score changes during a walk may appear on two
    pages or on none (as in any keyset pagination)."""
    leaderboard_id = config.leaderboard_id(period.period_id)
    # A cursor belongs to one board period (and one score range): it is signed for exactly that.
    binding = leaderboard_id if between is None else f"{leaderboard_id}|{between[0]}|{between[1]}"
    parts = config.partitions(period.period_id)
    position = cursors.read(runtime, cursor, binding) if cursor is not None else None
    after, last_rank = (position.last_key, position.last_rank) if position else (None, 0)
    items = rank_counters.merged_page(
        runtime, parts, limit + 1, between=between, after=after
    )  # one extra: is there more?
    more = len(items) > limit
    items = items[:limit]
    if items and cursor is None and between is not None:
        runtime.metrics.count(metrics.RANK_READS, board=config.board_id)
        last_rank = rank_counters.rank_and_total(runtime, parts, items[0][schema.RANK_INDEX_SORT_KEY])[0] - 1
    unique_ranks = list(range(last_rank + 1, last_rank + 1 + len(items)))
    shown = unique_ranks
    if mode == COMPETITION:
        descending = config.order == limits.DESC
        # A range's first page starts at the best score in range, with all of its entries: a new score.
        starts_a_score = (cursor is None and between is not None) or (
            after is not None and bool(items) and item_keys.score_from_rank_key(after, descending) != items[0]["score"]
        )
        shown = competition_ranks(runtime, config, parts, items, last_rank + 1, starts_a_score)
    page: dict[str, Any] = {"rank_mode": mode, "entries": _shown(items, shown)}
    if more:  # the cursor keeps the unique rank: pages number on from it whatever the mode
        page["next_cursor"] = cursors.issue(runtime, binding, items[-1][schema.RANK_INDEX_SORT_KEY], unique_ranks[-1])
    return page


def _period_view(config: BoardConfig, p: periods.Period) -> dict[str, Any]:
    return {
        "board_id": config.board_id,
        "leaderboard_id": config.leaderboard_id(p.period_id),
        "period": p.kind,
        "period_id": p.period_id,
    }


def top(
    runtime: Runtime,
    config: BoardConfig,
    period: str | None,
    limit: int,
    cursor: str | None,
    now: datetime,
    mode: str = UNIQUE,
):
    p = config.resolve_period(period, now)
    return {**_period_view(config, p), **_paged(runtime, config, p, limit, cursor, mode=mode)}


def score_range(
    runtime: Runtime,
    config: BoardConfig,
    period: str | None,
    low: int,
    high: int,
    limit: int,
    cursor: str | None,
    now: datetime,
    mode: str = UNIQUE,
):
    if low > high:
        raise BrokenRule("min_score must not be greater than max_score")  # no schema compares two parameters
    p = config.resolve_period(period, now)
    between = item_keys.score_range(low, high, config.order == limits.DESC)
    return {
        **_period_view(config, p),
        "min_score": low,
        "max_score": high,
        **_paged(runtime, config, p, limit, cursor, between, mode),
    }


def percentile(rank: int, total: int) -> float:
    """The original design's definition: the share of the board ranked below the player."""
    return round((total - rank) / total * 100, 1)


def around(
    runtime: Runtime,
    config: BoardConfig,
    period: str | None,
    player_id: str,
    window: int,
    now: datetime,
    mode: str = UNIQUE,
):
    p = config.resolve_period(period, now)
    item = runtime.entries.one(player_id, config.player_partition(p.period_id, player_id))
    # No pending (held) score here: this lookup is public and edge-cached; the player's own route shows them.
    if item is None:
        raise NotFound(f"player {player_id} is not on {config.leaderboard_id(p.period_id)}")
    parts = config.partitions(p.period_id)
    runtime.metrics.count(metrics.RANK_READS, board=config.board_id)
    # A hidden player's own lookup still answers: where they would be, among the players others see.
    at, hidden = entry_store.position(item), entry_store.is_hidden(item)
    assert at is not None  # the player's entry
    rank, total = rank_counters.rank_and_total(runtime, parts, at, listed=not hidden)
    above = list(reversed(rank_counters.merged_page(runtime, parts, window, before=at))) if window else []
    below = rank_counters.merged_page(runtime, parts, window, after=at) if window else []
    run = [*above, item, *below]
    first = rank - len(above)
    shown = list(range(first, first + len(run)))
    if mode == COMPETITION:
        shown = competition_ranks(runtime, config, parts, run, first, starts_a_score=False)
    mine = len(above)
    around_me = shown[:mine], shown[mine + 1 :]
    if hidden:  # not on /top: the neighbours keep /top's numbers (the first below has the rank the player would have)
        listed = [*above, *below]
        numbered = list(range(first, first + len(listed)))
        if mode == COMPETITION:
            numbered = competition_ranks(runtime, config, parts, listed, first, starts_a_score=False)
        around_me = numbered[:mine], numbered[mine:]
    tier = {"tier": config.tier_of(percentile(rank, total))} if config.tiers else {}
    return {
        **_period_view(config, p),
        **public_entry(item, shown[mine]),
        "rank_mode": mode,
        "total_players": total,
        # the share of the board ranked below the player by the unique order, whatever the mode shows
        "percentile": percentile(rank, total),
        "metadata": json.loads(item["metadata"]) if item.get("metadata") else None,
        "above": _shown(above, around_me[0]),
        "below": _shown(below, around_me[1]),
        **tier,
        **({"hidden": True} if hidden else {}),
    }
