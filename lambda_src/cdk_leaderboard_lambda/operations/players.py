"""Players across the ranking: a list of players (friends) ranked on one board, and every board of one player.

Both cost what the asked-for players hold, never what the board or the service holds, and both stop at a fixed
number of DynamoDB requests per call (the budgets below, stated per route in docs/API.md): what does not fit is
the next page, behind a signed cursor (cursors.py) bound to the board period and ids, or to the player.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..domain import cursors, entry_store, periods, rank_counters
from ..domain.boards import BoardConfig
from ..shared import item_keys, limits, metrics, schema
from ..shared.errors import NotFound
from ..shared.limits import MAX_FRIEND_IDS
from . import board_catalog, ranking_reads

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

FRIENDS_BUDGET = limits.FRIENDS_BUDGET
PLAYER_BOARDS_BUDGET = limits.PLAYER_BOARDS_BUDGET
READS_PER_ENTRY_AND_SHARD = 3
PLAYER_QUERY_PAGE = 100  # items of the player's partition read per Query (~300 bytes each)
PARALLEL_RANK_READS = 8  # entries ranked side by side in one request


def friends(
    runtime: Runtime,
    config: BoardConfig,
    period: str | None,
    player_ids: list[str],
    cursor: str | None,
    now: datetime,
):
    """Those of `player_ids` on the board's period, in rank order with their board-wide ranks.

    As many as FRIENDS_BUDGET requests rank; the rest follow with next_cursor (the same ids again, and it)."""
    p = config.resolve_period(period, now)
    ids = list(dict.fromkeys(player_ids))[:MAX_FRIEND_IDS]
    binding = f"{config.leaderboard_id(p.period_id)}|friends|{_digest(sorted(ids))}"
    position = cursors.read(runtime, cursor, binding) if cursor is not None else None
    found = runtime.entries.get((pid, config.player_partition(p.period_id, pid)) for pid in ids)
    items = sorted(
        (item for item in found.values() if schema.RANK_INDEX_SORT_KEY in item),
        key=lambda item: item[schema.RANK_INDEX_SORT_KEY],
    )
    if position is not None:
        items = [i for i in items if i[schema.RANK_INDEX_SORT_KEY] > position.last_key]
    wanted = [i[schema.RANK_INDEX_SORT_KEY] for i in items]
    ranks, _, _ = rank_counters.ranks_within_budget(runtime, config.partitions(p.period_id), wanted, FRIENDS_BUDGET - 2)
    shown = [i for i in items if i[schema.RANK_INDEX_SORT_KEY] in ranks]
    runtime.metrics.count(metrics.RANK_READS, len(shown), board=config.board_id)
    answer: dict[str, Any] = {
        "board_id": config.board_id,
        "period": p.kind,
        "period_id": p.period_id,
        "entries": [
            {
                k: v
                for k, v in ranking_reads.public_entry(item, ranks[item[schema.RANK_INDEX_SORT_KEY]]).items()
                if k != "metadata"
            }
            for item in shown
        ],
    }
    if len(shown) < len(items):
        listed = (position.last_rank if position else 0) + len(shown)
        last = shown[-1][schema.RANK_INDEX_SORT_KEY]
        answer["next_cursor"] = cursors.issue(runtime, binding, last, listed, position.issued_ms if position else None)
    return answer


def _digest(ids: list[str]) -> str:
    """The id list a friends cursor belongs to: a cursor of one list is refused for another."""
    return hashlib.sha256("\n".join(ids).encode()).hexdigest()[:32]


def boards_of(runtime: Runtime, player_id: str, limit: int, cursor: str | None, now: datetime) -> dict[str, Any]:
    """The boards and current periods the player is on, with rank, total and percentile: a page of them.

    The player's partition is read in table order (board by board), past periods' entries skipped (TTL removes
    them within days) and boards that no longer exist skipped; a page ends at `limit` rows or when the next
    entry's worst cost would pass PLAYER_BOARDS_BUDGET requests, and next_cursor continues after its last entry.
    A board where the player is hidden is listed (this is a lookup of that player), marked hidden, with the rank
    they would have. A player on no board at all (never seen, removed or erased) is a 404, as their other reads.
    """
    binding = f"players|{player_id}"
    position = cursors.read(runtime, cursor, binding) if cursor is not None else None
    after = position.last_key if position else None
    configs: dict[str, BoardConfig | None] = {}
    chosen: list[tuple[dict, BoardConfig, periods.Period]] = []
    spent, last_key, more, done = 0, after, False, False
    while not done:
        page, has_more = runtime.entries.page_of_player(player_id, last_key, PLAYER_QUERY_PAGE)
        spent += 1
        for item in page:
            sort_key = item[schema.SCORES_SORT_KEY]
            config = period = None
            if entry_store.position(item) is not None:  # an entry (not another item of the player's partition)
                board_id, period_id = item_keys.board_and_period(sort_key)
                if board_id not in configs:
                    spent += 1  # at most: a cached config costs nothing
                    configs[board_id] = _board_or_none(runtime, board_id)
                config = configs[board_id]
                period = (
                    None
                    if config is None
                    else next((q for q in config.current_periods(now) if q.period_id == period_id), None)
                )
            if config is not None and period is not None:
                cost = READS_PER_ENTRY_AND_SHARD * config.shards
                if len(chosen) == limit or (chosen and spent + cost > PLAYER_BOARDS_BUDGET):
                    more = done = True
                    break
                spent += cost
                chosen.append((item, config, period))
            last_key = sort_key
        else:
            if not has_more:
                done = True
            elif len(chosen) == limit or spent + 1 > PLAYER_BOARDS_BUDGET:
                more = done = True
    if not chosen and position is None and not more:
        raise NotFound(f"no player {player_id} on any board")

    def rank(pick: tuple[dict, BoardConfig, periods.Period]) -> dict[str, Any]:
        item, config, period = pick
        hidden = entry_store.is_hidden(item)
        at = entry_store.position(item)
        assert at is not None  # chosen items are entries
        rank_, total = rank_counters.rank_and_total(runtime, config.partitions(period.period_id), at, listed=not hidden)
        return {
            "board_id": config.board_id,
            "period": period.kind,
            "period_id": period.period_id,
            "rank": rank_,
            "score": item["score"],
            "total_players": total,
            "percentile": ranking_reads.percentile(rank_, total),
            **({"hidden": True} if hidden else {}),
        }

    with ThreadPoolExecutor(max_workers=PARALLEL_RANK_READS) as pool:
        rows = list(pool.map(rank, chosen))  # `rank` reaches the stores through the runtime it closes over
    for _, config, _ in chosen:
        runtime.metrics.count(metrics.RANK_READS, board=config.board_id)
    order = {k: i for i, k in enumerate((*periods.KINDS, periods.TOURNAMENT))}
    rows.sort(key=lambda r: (r["board_id"], order[r["period"]]))
    answer: dict[str, Any] = {"player_id": player_id, "boards": rows, "limit": limit}
    if more and last_key is not None:
        listed = (position.last_rank if position else 0) + len(rows)
        answer["next_cursor"] = cursors.issue(
            runtime, binding, last_key, listed, position.issued_ms if position else None
        )
    return answer


def _board_or_none(runtime: Runtime, board_id: str) -> BoardConfig | None:
    try:
        return board_catalog.get_board(runtime, board_id)
    except NotFound:
        return None
