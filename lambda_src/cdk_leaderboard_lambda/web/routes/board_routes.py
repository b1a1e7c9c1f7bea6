"""Many boards: create, list, show and delete a board."""

from __future__ import annotations

from ...shared import limits
from ...shared.function_registry import LEADERBOARD_ADMIN, SCORE_SUBMIT
from .access import ADMIN, PUBLIC
from .bodies import BOARD_BODY, BOARD_UPDATE_BODY
from .caching import LIVE
from .fields import CURSOR, _limit
from .route import Route

BOARD_ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/leaderboards",
        LEADERBOARD_ADMIN,
        "create",
        access=ADMIN,
        response=(201, "Board"),
        body=BOARD_BODY,
        summary="Create a board",
        description="409 when the deployment holds its max_boards (a stack prop, 200 by default) already. "
        "Rules JSON Schema cannot state, each a 422 when broken: min_score not greater than max_score; tiers with "
        "distinct names and distinct minimums; each reward's ranks first <= last; ends_at after starts_at, both "
        "real dates; no max_improvement or max_over_leader rule on an increment board. A tournament gives starts_at "
        "and ends_at (ISO 8601 UTC) instead of periods: it keeps one period, tournament, and takes scores only "
        "from starts_at until ends_at (409 outside, nothing written).",
    ),
    Route(
        "GET",
        "/leaderboards",
        LEADERBOARD_ADMIN,
        "list_boards",
        access=PUBLIC,
        response=(200, "BoardList"),
        cache=LIVE,
        query={"limit": _limit(limits.MAX_BOARDS_LISTED, limits.MAX_BOARDS_LISTED), "cursor": CURSOR},
        summary="List boards (paged)",
        description="Built-in and declared boards first, then created ones in board-id order; next_cursor while "
        "more follow. At most two DynamoDB Queries per call.",
    ),
    Route(
        "GET",
        "/leaderboards/{board}",
        LEADERBOARD_ADMIN,
        "show",
        access=PUBLIC,
        response=(200, "Board"),
        cache=LIVE,
        summary="Show a board and its next resets",
        description="Without the board's plausibility rules: their thresholds are for the admin key only (the "
        "review queue, GET /leaderboards/{board}/pending, and the admin's create and change answers), so that "
        "nobody reads them to submit just under them.",
    ),
    Route(
        # Safe (it changes nothing) and never cached (no-store): the dashboard's GET-only proxy passes it. On the
        # scores' path rather than one of its own: a new path is 4 more resources (path, OPTIONS, ANY, GET) and
        # two dev-like leaderboards must stay within a stack's 500 (README.md, "Two leaderboards in one stack").
        "GET",
        "/leaderboards/{board}/scores",
        SCORE_SUBMIT,  # the token key's holder (it signs player and run tokens too)
        "live_token",
        access=PUBLIC,
        response=(200, "LiveToken"),
        summary="A short-lived token to follow the board's scores live (AppSync Events)",
        description=f"What a subscriber puts in AppSync Events' `Authorization` (connect and subscribe): good for "
        f"{limits.LIVE_TOKEN_OPERATIONS} connects and subscribes to this board's channels within "
        f"{limits.LIVE_TOKEN_SECONDS} s. 404 when live updates are off or the board does not exist.",
    ),
    Route(
        "PATCH",
        "/leaderboards/{board}",
        LEADERBOARD_ADMIN,
        "update",
        access=ADMIN,
        response=(200, "Board"),
        body=BOARD_UPDATE_BODY,
        summary="Change a board's plausibility rules, who may submit or how many runs a player may hold open",
        description="rules replace the board's rules as a whole ({} removes them); submissions is server or client; "
        "max_open_runs applies to the next run starts (runs open now stay open until used, over or ended). "
        "Boards built in or declared in the stack are changed in the stack's props (400). Function instances that "
        "read the board's config in the last 30 s follow within that time.",
    ),
    Route(
        "DELETE",
        "/leaderboards/{board}",
        LEADERBOARD_ADMIN,
        "delete",
        access=ADMIN,
        response=(200, "Deletion"),
        summary="Delete a board and its entries (202 while a large board is still being purged)",
        description="Boards built in or declared in the stack cannot be deleted (400).",
    ),
)
