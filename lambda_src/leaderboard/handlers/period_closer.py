"""The scheduled closing: an EventBridge schedule invokes this every few minutes; it closes every board's periods
that have ended and are not closed yet (closing.py), goes on with erasures their caller left before they answered
"erased", and lifts the hashed fences of finished ones once no submission in flight can meet them
(player_removal.lift_fences). An exception makes the next run try again."""

from __future__ import annotations

import logging

from .. import closing, player_removal
from ..composition import Handler, Runtime, entry_point

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


def close(event: dict, context: object = None) -> dict:
    closed = closing.close_ended()
    lifted = player_removal.lift_fences()
    logger.info("periods closed", extra={"closed": closed, "erasure_fences_lifted": lifted})
    return {"closed": closed, "erasure_fences_lifted": lifted}


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""
    return entry_point(runtime, close)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
