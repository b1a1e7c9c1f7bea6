"""The scores table's stream -> the rank counters (counting.py). Lambda polls the stream and calls this with
batches of records; an exception makes Lambda retry the batch, which a recount makes harmless."""

from __future__ import annotations

import logging

from .. import counting, metrics

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


@metrics.flushed
def handler(event: dict, context=None) -> dict:
    stats = counting.apply(event.get("Records") or [])
    metrics.count(metrics.COUNTER_RECOUNTS, stats.recounts)
    metrics.measure(metrics.COUNTER_LAG, stats.oldest_record_age_seconds, metrics.SECONDS)
    logger.info("rank counters refreshed", extra=stats.summary())
    return {}
