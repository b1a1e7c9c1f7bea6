"""Reading a board's ranking: pages, score ranges, a player and their neighbours, friends, and a
player across boards."""

from __future__ import annotations

from ...shared import limits
from ...shared.function_registry import LEADERBOARD_QUERY, PLAYER_STATS
from .access import PUBLIC
from .caching import LIVE
from .fields import BOARD_PERIOD, CURSOR, FRIEND_IDS, PAGE_QUERY, RANK_MODE, SCORE, _limit
from .route import Route

RANKING_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/leaderboards/{board}/top",
        LEADERBOARD_QUERY,
        "top",
        access=PUBLIC,
        response=(200, "Page"),
        cache=LIVE,
        query=PAGE_QUERY,
        summary="A page of the ranking, with a cursor to the next",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/range",
        LEADERBOARD_QUERY,
        "score_range",
        access=PUBLIC,
        response=(200, "Page"),
        cache=LIVE,
        query={
            "period": BOARD_PERIOD,
            # JSON Schema cannot compare two parameters: the description says it, the API answers 422
            "min_score": {**SCORE, "description": "not greater than max_score (a 422 if it is)"},
            "max_score": SCORE,
            "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE),
            "cursor": CURSOR,
            "rank_mode": RANK_MODE,
        },
        required_query=("min_score", "max_score"),
        summary="Entries with scores in a range, best first",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/players/{player_id}",
        PLAYER_STATS,
        "around",
        access=PUBLIC,
        response=(200, "Around"),
        cache=LIVE,
        query={
            "period": BOARD_PERIOD,
            "window": _limit(limits.MAX_WINDOW, limits.DEFAULT_WINDOW, low=0),
            "rank_mode": RANK_MODE,
        },
        summary="A player's rank, score, percentile and the entries around them",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/players",
        PLAYER_STATS,
        "friends",
        access=PUBLIC,
        response=(200, "Friends"),
        cache=LIVE,
        query={"period": BOARD_PERIOD, "ids": FRIEND_IDS, "cursor": CURSOR},
        required_query=("ids",),
        summary=f"Up to {limits.MAX_FRIEND_IDS} players (friends) ranked on a board",
        description="The players of ids that are on the board's period, in rank order with their board-wide ranks; "
        f"the others are left out. At most {limits.FRIENDS_BUDGET} DynamoDB requests per call: the board's "
        "config, one BatchGetItem of the entries, then per shard of the board one read of its segment counters "
        "and, per player, at most one read of the bucket counters of their segment and one key read of their "
        "bucket (shared by players in the same ones). The players that do not fit follow in later pages: "
        f"next_cursor, with the same ids (at least {limits.FRIENDS_AT_WORST} per page; all of them on a board "
        "whose players share buckets). It never grows with the board's size or history.",
    ),
    Route(
        "GET",
        "/players/{player_id}/boards",
        PLAYER_STATS,
        "player_boards",
        access=PUBLIC,
        response=(200, "PlayerBoards"),
        cache=LIVE,
        query={"limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE), "cursor": CURSOR},
        summary="Every board and current period a player is on, with rank and percentile (paged)",
        description="In table order, board by board; 404 for a player on no board (never seen, removed or "
        f"erased), as the player's other reads. At most {limits.PLAYER_BOARDS_BUDGET} DynamoDB requests per call: "
        "Queries of the player's "
        "own partition (100 items each), one GetItem per board not cached, and per entry ranked 3 reads per "
        "shard of its board; a page ends at limit entries or before the next entry would pass the budget (at "
        "least one entry per page), and next_cursor continues. It never grows with the boards that exist.",
    ),
)
