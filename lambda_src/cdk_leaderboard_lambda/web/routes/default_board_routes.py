"""The original five functions' routes, unchanged: they act on the default board "global"."""

from __future__ import annotations

from ...shared import limits
from ...shared.function_registry import (
    LEADERBOARD_QUERY,
    LEADERBOARD_SNAPSHOT,
    PLAYER_STATS,
    SCORE_SIMULATOR,
    SCORE_SUBMIT,
)
from .access import ADMIN, GAME, PUBLIC
from .bodies import SCORE_BODY, SIMULATE_BODY, SNAPSHOT_BODY
from .caching import LIVE, SNAPSHOTS
from .fields import DEFAULT_PERIOD, PLAYER_ID, RANK_MODE, _limit
from .route import Route

DEFAULT_BOARD_ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/scores",
        SCORE_SUBMIT,
        "default_board_submit",
        access=GAME,
        response=(200, "DefaultSubmit"),
        body=SCORE_BODY,
        summary="Submit a score to the default board",
    ),
    Route(
        "GET",
        "/leaderboard",
        LEADERBOARD_QUERY,
        "default_board_top",
        access=PUBLIC,
        response=(200, "Leaderboard"),
        cache=LIVE,
        query={"period": DEFAULT_PERIOD, "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_TOP), "rank_mode": RANK_MODE},
        summary="Top N of the default board",
    ),
    Route(
        "GET",
        "/player",
        PLAYER_STATS,
        "default_board_player",
        access=PUBLIC,
        response=(200, "PlayerStats"),
        cache=LIVE,
        query={"player_id": PLAYER_ID},
        required_query=("player_id",),
        summary="A player's rank and percentile on every period of the default board",
    ),
    Route(
        "POST",
        "/snapshot",
        LEADERBOARD_SNAPSHOT,
        "take",
        access=ADMIN,
        response=(201, "Snapshot"),
        body=SNAPSHOT_BODY,
        summary="Freeze the current top N of a default-board period",
    ),
    Route(
        "GET",
        "/snapshots",
        LEADERBOARD_SNAPSHOT,
        "listing",
        access=PUBLIC,
        response=(200, "SnapshotList"),
        cache=SNAPSHOTS,
        query={"period": DEFAULT_PERIOD, "limit": _limit(limits.MAX_SNAPSHOTS_LISTED, limits.DEFAULT_SNAPSHOT)},
        summary="Snapshots of a period, newest first",
    ),
    Route(
        "POST",
        "/simulate",
        SCORE_SIMULATOR,
        "simulate",
        access=ADMIN,
        response=(200, "Simulated"),
        body=SIMULATE_BODY,
        summary="Seed simulated players (dev stages)",
        description="403 on stages where the simulator is off.",
    ),
)
