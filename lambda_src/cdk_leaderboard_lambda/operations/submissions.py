"""Score submissions as the board routes answer them: the write (score_submission.py), then each period's rank."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..domain import entry_store, plausibility, rank_counters, score_writes
from ..domain.boards import BoardConfig
from ..shared import metrics
from ..shared.clock import ms
from ..shared.errors import (
    ApiError,
    BadRequest,
    Conflict,
    Implausible,
    ServiceUnavailable,
    TooManyRequests,
    TransactionBusy,
)
from . import quarantine, rate_limits, score_submission

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime


def submit(
    runtime: Runtime,
    config: BoardConfig,
    submission: score_writes.Submission,
    now: datetime,
    run: dict[str, Any] | None = None,
    evidence: dict | None = None,
) -> dict[str, Any]:
    """A submission, answered with the player's rank on every period (rank reads on top of the write); or, where
    a board's plausibility rule fires, refused (422, Implausible) or held back as pending (quarantine.hold's
    answer, which the route gives with 202). `run` is the run record of a run token's submission.

    The write has committed before any rank is read: a rank that cannot be computed yet (a fresh period whose
    counters the stream consumer has not built) is left out of that period's row rather than failing a stored write.

    The per-player limit counts only submissions that can be taken: what is refused without a read is refused
    before it counts, and one refused with 400 after reading (an increment leaving the bounds) is given back.
    """
    score_writes.check(config, submission, now)
    minute = rate_limits.take(runtime.rate_limits, config, submission.player_id, now)
    verdict = _verdict(
        runtime, config, submission, now, run
    )  # a rejected or held score counts: probing costs the limit
    if verdict is not None and verdict.action == plausibility.REJECT:
        raise Implausible(f"the score breaks this board's rule {verdict.rule}; nothing stored", verdict.rule)
    if verdict is not None:
        try:
            return quarantine.hold(runtime, config, submission, verdict.rule, now, run, evidence)
        except TransactionBusy:  # nothing held: the same request sent again counts once
            rate_limits.give_back(runtime.rate_limits, config, submission.player_id, minute)
            raise
    try:
        outcome = score_submission.submit(score_submission.Writer.of(runtime), config, submission, now)
    except BadRequest:
        rate_limits.give_back(runtime.rate_limits, config, submission.player_id, minute)
        raise
    view = outcome.view()
    for row, period in zip(view["periods"], outcome.periods, strict=True):
        if period.rank_key is not None:
            runtime.metrics.count(metrics.RANK_READS, board=config.board_id)
            try:
                row["rank"] = rank_counters.rank_and_total(
                    runtime, config.partitions(period.period.period_id), period.rank_key
                )[0]
            except ServiceUnavailable:
                continue
    return view


def _verdict(
    runtime: Runtime, config: BoardConfig, s: score_writes.Submission, now: datetime, run: dict[str, Any] | None
) -> plausibility.Verdict | None:
    """The board's rules on this submission. The relative rules judge a run's score against the standing stored
    in the run when it started (runs.start); without one (a game server's submission, or a run started before the
    board had such rules) against the standing now."""
    if not config.rules:
        return None
    baseline = run.get("baseline") if run is not None else None
    if baseline is not None:
        own = tuple(int(x) for x in baseline["own"])
        leaders = tuple(int(x) for x in baseline["leaders"])
    else:
        own, leaders = standing(runtime, config, s.player_id, now)
    elapsed = plausibility.elapsed_seconds(int(run["started_ms"]), ms(now)) if run is not None else None
    facts = plausibility.Facts(s.score, elapsed, own, leaders)
    return plausibility.verdict(config.rules, facts, config.order)


def standing(
    runtime: Runtime, config: BoardConfig, player_id: str, now: datetime
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """What the relative rules compare with, reading only what the board's rules need: the player's stored scores
    on the current periods (max_improvement: one BatchGetItem) and each current period's leader (max_over_leader:
    one Query per shard)."""
    wanted = plausibility.needs(config.rules)
    current = config.current_periods(now)
    own: tuple[int, ...] = ()
    if plausibility.MAX_IMPROVEMENT in wanted:
        pairs = [(player_id, config.player_partition(p.period_id, player_id)) for p in current]
        own = tuple(
            int(e["score"]) for e in runtime.entries.get(pairs).values() if not entry_store.is_fence(e) and "score" in e
        )
    leaders: tuple[int, ...] = ()
    if plausibility.MAX_OVER_LEADER in wanted:
        tops = [rank_counters.merged_page(runtime, config.partitions(p.period_id), 1) for p in current]
        leaders = tuple(int(top[0]["score"]) for top in tops if top)
    return own, leaders


def submit_bulk(
    runtime: Runtime, config: BoardConfig, submissions: list[score_writes.Submission | BadRequest], now: datetime
) -> dict[str, Any]:
    """Many submissions with per-entry results in input order (no ranks: they would cost reads per entry).

    On a board with a per-player limit, each player's entries are counted together: all of them or, past the
    limit, none (429 each). Entries refused with 400 do not count (see submit)."""
    config.check_open(now)  # a whole bulk outside a tournament's window: 409 before anything counts
    if config.rules:
        raise Conflict(
            f"board {config.board_id} has plausibility rules: submit its scores one at a time (POST "
            f"/leaderboards/{config.board_id}/scores), where each is checked"
        )
    submissions = [score_writes.checked(config, s) for s in submissions]
    refused, minutes = _past_limit(runtime, config, submissions, now)
    kept = [i for i in range(len(submissions)) if i not in refused]
    outcomes: dict[int, score_writes.Outcome | ApiError] = dict(refused)
    written = score_submission.submit_many(
        score_submission.Writer.of(runtime), config, [submissions[i] for i in kept], now
    )
    outcomes.update(zip(kept, written, strict=True))
    _give_back_refused(runtime, config, [(submissions[i], outcomes[i]) for i in kept], minutes)
    results = []
    for index in range(len(submissions)):
        outcome = outcomes[index]
        if isinstance(outcome, ApiError):
            results.append({"index": index, "status": outcome.status, "error": outcome.message})
        else:
            results.append({"index": index, "status": 200, "result": outcome.view()})
    ok = sum(r["status"] == 200 for r in results)
    return {"board_id": config.board_id, "accepted": ok, "rejected": len(results) - ok, "results": results}


def _give_back_refused(
    runtime: Runtime, config: BoardConfig, results: list[tuple[object, object]], minutes: dict[str, int | None]
) -> None:
    """Entries counted, then refused with 400 once their stored entries were read: one write per such player."""
    per_player = Counter(
        s.player_id
        for s, outcome in results
        if isinstance(s, score_writes.Submission) and isinstance(outcome, BadRequest)
    )
    for player, count in per_player.items():
        rate_limits.give_back(runtime.rate_limits, config, player, minutes.get(player), count)


def _past_limit(
    runtime: Runtime, config: BoardConfig, submissions: list, now: datetime
) -> tuple[dict[int, TooManyRequests], dict[str, int | None]]:
    """The entries of players past the board's per-player limit, and the minute each other player's entries
    counted in: one counter write per distinct player."""
    if config.per_player_limit is None:
        return {}, {}
    per_player = Counter(s.player_id for s in submissions if isinstance(s, score_writes.Submission))
    refused: dict[int, TooManyRequests] = {}
    minutes: dict[str, int | None] = {}
    for player, count in per_player.items():
        try:
            minutes[player] = rate_limits.take(runtime.rate_limits, config, player, now, count)
        except TooManyRequests as err:
            refused.update(
                {
                    i: err
                    for i, s in enumerate(submissions)
                    if isinstance(s, score_writes.Submission) and s.player_id == player
                }
            )
    return refused, minutes
