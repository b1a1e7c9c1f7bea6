"""A board's periods: the list, one period and its closing summary, closing one now."""

from __future__ import annotations

from .. import limits
from .access import ADMIN, PUBLIC
from .caching import LIVE, PERIOD
from .functions import LEADERBOARD_ADMIN
from .route import Route

PERIOD_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/leaderboards/{board}/periods",
        LEADERBOARD_ADMIN,
        "list_periods",
        access=PUBLIC,
        response=(200, "PeriodList"),
        cache=LIVE,
        summary="The board's periods: the current ones, then the closed ones, newest first",
        description=f"At most {limits.MAX_PERIODS_LISTED} closed periods. A period is open until its closing has "
        f"run: at most {limits.CLOSE_EVERY_MINUTES} minutes after its end (the schedule's interval).",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/periods/{period_id}",
        LEADERBOARD_ADMIN,
        "show_period",
        access=PUBLIC,
        response=(200, "Period"),
        cache=PERIOD,
        summary="One period; once closed, its closing summary (top, total, tier cut-offs, reward winners)",
        description="A closing summary is kept after the period's entries expire.",
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
)
