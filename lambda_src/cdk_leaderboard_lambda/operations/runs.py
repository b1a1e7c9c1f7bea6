"""Client submissions: player tokens, runs, and the one score a run takes.

A game's backend (holding the game key) gets a player token for one player; with it, the player's device starts a
run on a client board (`"submissions": "client"`) and gets a run token; with that, it submits ONE score, for that
player on that board, before the run ends. The run is marked used by one conditional write before the score is
written (data/runs.py), so a replayed or concurrently reused run token is refused; a submission refused with a 4xx
(nothing written) gives the run back, so the client may correct its request and submit again; so does a 503 of a
transaction cancelled by another one (TransactionBusy, nothing written), so the device may send it again.

A player holds at most the board's `max_open_runs` open runs (unused, not over; default 1): starting one more ends
the oldest, whose token is refused from then on (403, "this run has ended"). So runs opened at once cannot each
take a score judged against the same standing: the relative rules (max_improvement, max_over_leader) judge a run's
score against the player's best and the leaders as they were when the run started, stored in the run.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..domain import plausibility, tokens
from ..domain.boards import BoardConfig
from ..domain.ports import RunStore
from ..shared import limits
from ..shared.clock import iso, ms
from ..shared.errors import ApiError, Forbidden, Implausible, TransactionBusy
from . import board_catalog, rate_limits, submissions, token_floors

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

SEED_BITS = 53  # a seed is exact in a double (JavaScript's numbers)


def _moment(epoch: int) -> str:
    return iso(datetime.fromtimestamp(epoch, UTC))


def player_token(runtime: Runtime, player_id: str, boards: list[str] | None, ttl_seconds: int, now: datetime) -> dict:
    """A player token; limited to `boards` when given, each of which must exist (404 otherwise: a token for a board
    that does not exist would only fail later, at the run's start). Without `boards` it is for every client board."""
    for board in boards or ():
        board_catalog.get_board(runtime, board)
    claims = {} if boards is None else {"boards": boards}
    token, expires = tokens.issue(
        runtime.token_keys,
        runtime.settings.token_issuer,
        tokens.PLAYER_AUDIENCE,
        player_id,
        ttl_seconds,
        claims,
        now=token_floors.issue_time(runtime, player_id, now.timestamp()),  # after an erasure's second (its floor)
    )
    return {"token": token, "expires_at": _moment(expires)}


def _client_board(config: BoardConfig) -> None:
    if not config.takes_client_submissions:
        raise Forbidden(
            f"board {config.board_id} takes scores from game servers only (submissions: server): runs and run "
            "tokens are for boards created with submissions: client"
        )


def start(runtime: Runtime, config: BoardConfig, player_claims: dict[str, Any], now: datetime) -> dict[str, Any]:
    """A new run of the token's player on `config`'s board; it counts against the board's per-player limit and
    ends the player's oldest open run there if they hold `max_open_runs` already."""
    _client_board(config)
    boards = player_claims.get("boards")
    if boards is not None and config.board_id not in boards:
        raise Forbidden(f"this player token is limited to other boards than {config.board_id}")
    config.check_open(now)  # a tournament outside its window: 409, nothing counted
    player_id = player_claims["sub"]
    minute = rate_limits.take(runtime.rate_limits, config, player_id, now)
    run_id, seed = secrets.token_urlsafe(16), secrets.randbits(SEED_BITS)
    started = int(now.timestamp())
    token, ends = tokens.issue(
        runtime.token_keys,
        runtime.settings.token_issuer,
        tokens.RUN_AUDIENCE,
        player_id,
        limits.RUN_SECONDS,
        {"board": config.board_id, "run": run_id},
        # not before the player token: one issued just after an erasure's floor gives a run token above it too
        now=max(now.timestamp(), float(player_claims["iat"])),
    )
    baseline = None
    if plausibility.needs(config.rules) & plausibility.STORED_SCORE_RULES:  # the standing the run is judged against
        own, leaders = submissions.standing(runtime, config, player_id, now)
        baseline = {"own": list(own), "leaders": list(leaders)}
    try:
        # Stored under the board's generation (item_keys.py): a run of a deleted board is no run of one made again.
        runtime.runs.start(
            run_id,
            player_id,
            config.evidence_id,
            seed,
            ms(now),
            ends,
            now_s=started,
            most_open=config.max_open_runs,
            baseline=baseline,
        )
    except TransactionBusy:  # racing starts of this player: nothing started, so nothing counted
        rate_limits.give_back(runtime.rate_limits, config, player_id, minute)
        raise
    return {
        "run_id": run_id,
        "run_token": token,
        "seed": seed,
        "started_at": _moment(started),
        "expires_at": _moment(ends),
    }


def submit(
    store: RunStore,
    config: BoardConfig,
    run_claims: dict[str, Any],
    player_id: str,
    write: Callable[[dict[str, Any]], dict],
    now: datetime,
) -> dict:
    """`write(run)` (the submission, given the run: run_id, seed, started_ms) if the run token allows it: its board,
    its player, its run unused and not over. A submission a rule rejects (422) has used its run: a run's score is
    judged once (a client cannot probe a rule's value with one run). `store`: the runtime's runs."""
    _client_board(config)
    if run_claims.get("board") != config.board_id:
        raise Forbidden(f"this run token is for another board than {config.board_id}")
    if run_claims["sub"] != player_id:
        raise Forbidden(f"this run token is for another player than {player_id}: a run submits for its own player")
    run_id = run_claims.get("run")
    if not isinstance(run_id, str):
        raise Forbidden("this run token names no run")
    used_ms = ms(now)
    run = store.use(run_id, player_id, config.evidence_id, int(now.timestamp()), used_ms)
    if run is None:  # refused: say why (a run of another board is missing, as for a forgery of the token's claims)
        found = store.get(player_id, run_id)
        if found is None or found.get("board_id") != config.evidence_id:
            raise Forbidden("no such run for this player and board")
        if "used_ms" in found:
            raise Forbidden("this run has taken its submission already: a run takes one score; start a new run")
        raise Forbidden("this run has ended: start a new run")
    try:
        facts: dict[str, Any] = {k: run[k] for k in ("seed", "started_ms", "baseline") if k in run}
        return write({"run_id": run_id, **facts})
    except Implausible:
        raise
    except ApiError as err:
        # refused, or a transaction cancelled by another (503), nothing written: the run may still take its score
        if err.status < 500 or isinstance(err, TransactionBusy):
            store.release(run_id, player_id, used_ms)
        raise
