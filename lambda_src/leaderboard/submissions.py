"""Score submissions as the board routes answer them: the write (scoring.py), then each period's rank."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from . import metrics, ranking, scoring
from .boards import BoardConfig
from .errors import BadRequest, ServiceUnavailable


def submit(config: BoardConfig, submission: scoring.Submission, now: datetime | None = None) -> dict[str, Any]:
    """A submission, answered with the player's rank on every period (rank reads on top of the write).

    The write has committed before any rank is read: a rank that cannot be computed yet (a fresh period whose
    counters the stream consumer has not built) is left out of that period's row rather than failing a stored write.
    """
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
    """Many submissions with per-entry results in input order (no ranks: they would cost reads per entry)."""
    results = []
    for index, outcome in enumerate(scoring.submit_many(config, submissions)):
        if isinstance(outcome, BadRequest):
            results.append({"index": index, "status": outcome.status, "error": outcome.message})
        else:
            results.append({"index": index, "status": 200, "result": outcome.view()})
    ok = sum(r["status"] == 200 for r in results)
    return {"board_id": config.board_id, "accepted": ok, "rejected": len(results) - ok, "results": results}
