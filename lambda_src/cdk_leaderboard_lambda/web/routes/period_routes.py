"""A board's periods: the list, one period and its closing summary, closing one now."""

from __future__ import annotations

from ...shared import limits
from ...shared.function_registry import LEADERBOARD_ADMIN, LEADERBOARD_QUERY
from .access import ADMIN, PUBLIC
from .caching import LIVE, NO_STORE, PERIOD
from .fields import GENERATION, _limit, cursor_of
from .route import Route

PERIOD_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/leaderboards/{board}/periods",
        LEADERBOARD_ADMIN,
        "list_periods",
        access=PUBLIC,
        response=(200, "PeriodList"),
        query={"generation": GENERATION},
        cache=LIVE,
        summary="The board's periods: the current ones, then the closed ones, newest first",
        description=f"At most {limits.MAX_PERIODS_LISTED} closed periods. A period is open until its closing has "
        f"run: at most {limits.CLOSE_EVERY_MINUTES} minutes after its end (the schedule's interval). With "
        "generation: that generation's periods, also once the board is deleted (its closed ones) or created again "
        "(docs/PROVING.md, 'Deleted boards and generations').",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/periods/{period_id}",
        LEADERBOARD_ADMIN,
        "show_period",
        access=PUBLIC,
        response=(200, "Period"),
        query={"generation": GENERATION},
        cache=PERIOD,
        summary="One period; once closed, its closing summary (top, total, tier cut-offs, reward winners)",
        description="A closing summary is kept after the period's entries expire, and after its board is deleted "
        "(for the archive retention): ask with generation (a deleted generation answers its closed periods only; "
        "another is a 404 that names its log).",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/periods/{period_id}/close",
        LEADERBOARD_ADMIN,
        "close_period",
        access=ADMIN,
        response=(200, "Period"),
        summary="Close an ended period now (what the schedule does on its own); idempotent",
        description=f"Stores the closing summary (the top {limits.CLOSING_TOP}, the total, each tier's score cut-off, "
        "the reward winners), appends the final top to the snapshot history and sends the event "
        f"(source {limits.EVENT_SOURCE}, detail-type {limits.PERIOD_CLOSED_DETAIL_TYPE}). A period closed already "
        "returns the same summary; a period still open (or all-time) is a 409.",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/periods/{period_id}/log",
        LEADERBOARD_QUERY,
        "period_log",
        access=PUBLIC,
        response=(200, "PeriodLog"),
        query={
            "limit": _limit(limits.MAX_LOG_PAGE, limits.MAX_LOG_PAGE),
            "cursor": cursor_of("the same board period's log"),
            "generation": GENERATION,
        },
        cache=NO_STORE,  # a receipt names a seq the log holds at once: an edge copy of the last page may not
        summary="The period's hash-chained log of every accepted change to its entries, in seq order, a page at a "
        "time (docs/PROVING.md)",
        description="Records: seq (1, 2, ... without gaps), at, kind (score, approve, remove, hide, show, erase), "
        "score, player (a keyed commitment, not the id), prev_hash, hash (SHA-256 of the record without hash in "
        "RFC 8785 canonical JSON; the first prev_hash is 64 zeros). Appended from the scores table's stream within "
        "seconds of each change. Cost: one strongly consistent Query of at most limit + 1 records (~300 bytes "
        "each: at most 8 read units), whatever the log's length. period_id: a concrete id or an alias (current "
        "period). An unknown board is a 404; a period with no change yet answers no records. generation: that "
        "generation's log (default: the current one's), also once the board is deleted or created again; a board "
        "created again under an id starts new logs (docs/PROVING.md).",
    ),
)
