"""Score submissions as the board routes answer them: the write (scoring.py), then each period's rank."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from . import metrics, ranking, rate_limits, scoring
from .boards import BoardConfig
from .errors import ApiError, BadRequest, ServiceUnavailable, TooManyRequests


def submit(config: BoardConfig, submission: scoring.Submission, now: datetime | None = None) -> dict[str, Any]:
    """A submission, answered with the player's rank on every period (rank reads on top of the write).

    The write has committed before any rank is read: a rank that cannot be computed yet (a fresh period whose
    counters the stream consumer has not built) is left out of that period's row rather than failing a stored write.
    """
    rate_limits.take(config, submission.player_id, now=now)
    outcome = scoring.submit(config, submission, now)
    view = outcome.view()
    for row, period in zip(view["periods"], outcome.periods, strict=True):
        if period.rank_key is not None:
            metrics.count(metrics.RANK_READS, board=config.board_id)
            try:
                row["rank"] = ranking.rank_and_total(config.partitions(period.period.period_id), period.rank_key)[0]
            except ServiceUnavailable:
                continue
    return view


def submit_bulk(config: BoardConfig, submissions: list[scoring.Submission | BadRequest]) -> dict[str, Any]:
    """Many submissions with per-entry results in input order (no ranks: they would cost reads per entry).

    On a board with a per-player limit, each player's entries are counted together: all of them or, past the
    limit, none (429 each)."""
    refused = _past_limit(config, submissions)
    kept = [i for i in range(len(submissions)) if i not in refused]
    outcomes: dict[int, object] = dict(refused)
    outcomes.update(zip(kept, scoring.submit_many(config, [submissions[i] for i in kept]), strict=True))
    results = []
    for index in range(len(submissions)):
        outcome = outcomes[index]
        if isinstance(outcome, ApiError):
            results.append({"index": index, "status": outcome.status, "error": outcome.message})
        else:
            results.append({"index": index, "status": 200, "result": outcome.view()})
    ok = sum(r["status"] == 200 for r in results)
    return {"board_id": config.board_id, "accepted": ok, "rejected": len(results) - ok, "results": results}


def _past_limit(config: BoardConfig, submissions: list) -> dict[int, TooManyRequests]:
    """The entries of players past the board's per-player limit: one counter write per distinct player."""
    if config.max_submissions_per_minute is None:
        return {}
    per_player = Counter(s.player_id for s in submissions if isinstance(s, scoring.Submission))
    refused: dict[int, TooManyRequests] = {}
    for player, count in per_player.items():
        try:
            rate_limits.take(config, player, count)
        except TooManyRequests as err:
            refused.update(
                {
                    i: err
                    for i, s in enumerate(submissions)
                    if isinstance(s, scoring.Submission) and s.player_id == player
                }
            )
    return refused
