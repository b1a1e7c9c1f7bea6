"""The scores table's stream -> changed tops published to AWS AppSync Events (broadcasting.py). Lambda polls the
stream and calls this with batches; an exception (a failed publish) makes Lambda retry the batch (a retried publish
is claimed again, so subscribers get no duplicate of an unchanged top)."""

from __future__ import annotations

import logging

from .. import broadcasting

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


def handler(event: dict, context=None) -> dict:
    stats = broadcasting.apply(event.get("Records") or [])
    if stats.board_periods:
        logger.info("live tops published", extra=stats.summary())
    return {}
