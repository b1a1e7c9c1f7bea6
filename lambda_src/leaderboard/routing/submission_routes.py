"""Scores onto a board: one, a run's (client boards), a bulk."""

from __future__ import annotations

from .. import limits
from ..function_registry import SCORE_SUBMIT
from .access import GAME, GAME_OR_RUN, PLAYER
from .bodies import BOARD_SCORE_BODY, BULK_BODY
from .route import Route

SUBMISSION_ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/leaderboards/{board}/scores",
        SCORE_SUBMIT,
        "board_score",
        access=GAME_OR_RUN,
        response=(200, "BoardSubmit"),
        body=BOARD_SCORE_BODY,
        idempotent=True,
        summary="Submit a score: the board's operator on every period it keeps",
        description="The score must also lie in the board's [min_score, max_score] (and, on increment boards, the "
        f"resulting total); metadata is at most {limits.MAX_METADATA_BYTES:,} bytes as compact JSON, "
        f"{limits.MAX_JSON_DEPTH} levels deep and {limits.MAX_METADATA_KEYS} keys. On a "
        "tournament, a submission before starts_at or from ends_at on is a 409 and writes nothing. Called with the "
        "game key (x-api-key), or, on a client board, with `Authorization: Bearer <run token>` instead: then only "
        "for the run's own player and board, once per run (a second use, also a concurrent one, is a 403), before "
        "the run expires; a bad token is a 401 or 403 and writes nothing. A submission refused with a 4xx leaves the "
        "run unused.",
        busy="a score a plausibility rule holds back could not be stored as pending: its transaction was cancelled "
        "because another write was in progress on one of its items (DynamoDB's TransactionConflict). Nothing "
        "stored, the run (if any) unused and the per-player limit not counted: send the same request again after "
        "Retry-After seconds",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/runs",
        SCORE_SUBMIT,
        "start_run",
        access=PLAYER,
        response=(201, "Run"),
        summary="Start a run on a client board: a run token for one score of the player token's player",
        description="`Authorization: Bearer <player token>`. Only on boards created with submissions: client (403 "
        "on others, and on boards the token is not limited to). A run start counts against the board's per-player "
        f"limit. The run token expires {limits.RUN_SECONDS} s after the start; seed is a random integer the game "
        "may use (for example for a level a validator can replay). A player holds at most the board's max_open_runs "
        "open runs: starting one more ends the oldest (its token is then a 403).",
        busy="other runs of the same player were starting at the same moment and kept this one from taking a place "
        "among the player's open runs (its transaction was cancelled each time it was tried: a place taken first, or "
        "DynamoDB's TransactionConflict). Nothing started and "
        "the per-player limit not counted: send the same request again after Retry-After seconds",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/scores/bulk",
        SCORE_SUBMIT,
        "bulk",
        access=GAME,
        response=(200, "Bulk"),
        body=BULK_BODY,
        idempotent=True,
        summary=f"Submit up to {limits.MAX_BULK} scores; per-entry results in input order",
        description="Each entry is a POST /leaderboards/{board}/scores body, checked on its own: its status and "
        "error are in results. On a tournament outside its window the whole bulk is a 409 and writes nothing.",
    ),
)
