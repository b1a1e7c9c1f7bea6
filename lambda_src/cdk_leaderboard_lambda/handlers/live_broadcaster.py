"""The scores table's stream -> changed tops published to AWS AppSync Events (broadcasting.py). Lambda polls the
stream and calls this with batches, which the runtime's change feed decodes; an exception (a failed publish) makes
Lambda retry the batch (a retried publish is claimed again, so subscribers get no duplicate of an unchanged top)."""

from __future__ import annotations

import logging

from ..composition import Handler, Runtime, entry_point
from ..operations import broadcasting

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


def broadcast(runtime: Runtime, event: dict, context: object = None) -> dict:
    stats = broadcasting.apply(runtime, runtime.changes.entry_changes(event.get("Records") or []))
    if stats.board_periods:
        logger.info("live tops published", extra=stats.summary())
    return {}


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""

    def serve(event: dict, context: object = None) -> dict:
        return broadcast(runtime, event, context)

    return entry_point(runtime, serve)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
