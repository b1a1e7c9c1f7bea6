"""Scores onto a board: one (game servers), a run's (players' devices, client boards), a bulk.

Game servers and players never share a route, so never a throttle: the game key's route is metered by its usage
plan, the run route by a stage method bucket of its own (rest_api.py), and neither is reached without its credential.
"""

from __future__ import annotations

from ...shared import limits
from ...shared.function_registry import SCORE_SUBMIT
from .access import GAME, PLAYER, RUN
from .bodies import BOARD_SCORE_BODY, BULK_BODY
from .route import Route

_HELD_BUSY = (
    "a score a plausibility rule holds back could not be stored as pending: its transaction was cancelled because "
    "another write was in progress on one of its items (DynamoDB's TransactionConflict). Nothing stored"
)

SUBMISSION_ROUTES: tuple[Route, ...] = (
    Route(
        "POST",
        "/leaderboards/{board}/scores",
        SCORE_SUBMIT,
        "board_score",
        access=GAME,
        response=(200, "BoardSubmit"),
        body=BOARD_SCORE_BODY,
        idempotent=True,
        summary="Submit a score: the board's operator on every period it keeps",
        description="The score must also lie in the board's [min_score, max_score] (and, on increment boards, the "
        f"resulting total); metadata is at most {limits.MAX_METADATA_BYTES:,} bytes as compact JSON, "
        f"{limits.MAX_JSON_DEPTH} levels deep and {limits.MAX_METADATA_KEYS} keys. On a "
        "tournament, a submission before starts_at or from ends_at on is a 409 and writes nothing. The game key "
        "(x-api-key) only: API Gateway answers 403 without it. A run token goes to POST "
        "/leaderboards/{board}/runs/{run_id}/score instead; an Authorization header here as well as the key is a "
        "400 (the two credentials are mutually exclusive) and writes nothing.",
        busy=f"{_HELD_BUSY}, the per-player limit not counted: send the same request again after Retry-After seconds",
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
        "/leaderboards/{board}/runs/{run_id}/score",
        SCORE_SUBMIT,
        "run_score",
        access=RUN,
        response=(200, "BoardSubmit"),
        body=BOARD_SCORE_BODY,
        idempotent=True,
        summary="Submit a run's score on a client board: its one score, from the player's device",
        description="`Authorization: Bearer <run token>` of this run (run_id of the run start's answer): API Gateway "
        "answers 401 (WWW-Authenticate: Bearer) without the header and invokes nothing. Only for the run's own "
        "player and board, once per run (a second use, also a concurrent one, is a 403), before the run expires; a "
        "bad token is a 401 or 403 and writes nothing, a token of another run a 403. An x-api-key header as well "
        "is a 400 (the game key and a run token are mutually exclusive: game servers use POST "
        "/leaderboards/{board}/scores) and writes nothing. The body and the rules are those of POST "
        "/leaderboards/{board}/scores. A submission refused with a 4xx leaves the run unused.",
        busy=f"{_HELD_BUSY}, the run unused and the per-player limit not counted: send the same request again after "
        "Retry-After seconds",
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
