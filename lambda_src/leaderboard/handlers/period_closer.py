"""The scheduled closing: an EventBridge schedule invokes this every few minutes; it closes every board's periods
that have ended and are not closed yet (closing.py). An exception makes the next run try again."""

from __future__ import annotations

import logging

from .. import closing, metrics

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


@metrics.flushed
def handler(event: dict, context=None) -> dict:
    closed = closing.close_ended()
    logger.info("periods closed", extra={"closed": closed})
    return {"closed": closed}
