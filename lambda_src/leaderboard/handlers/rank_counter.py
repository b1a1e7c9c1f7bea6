"""The scores table's stream -> the rank counters (counting.py). Lambda polls the stream and calls this with
batches of records; an exception makes Lambda retry the batch, which a recount makes harmless."""

from __future__ import annotations

import logging

from .. import counting

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


def handler(event: dict, context=None) -> dict:
    stats = counting.apply(event.get("Records") or [])
    logger.info("rank counters refreshed", extra=stats.summary())
    return {}
