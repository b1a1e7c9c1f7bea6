"""The scheduled closing: an EventBridge schedule invokes this every few minutes; it closes every board's periods
that have ended and are not closed yet (closing.py), goes on with erasures their caller left before they answered
"erased", and lifts the hashed fences of finished ones once no submission in flight can meet them
(player_removal.lift_fences). An exception makes the next run try again.

A second schedule of its own sends {"task": "renew-live-key"}: the live updates' API key is extended
(live_key.py). A failed renewal raises (the function's error) and reports no LiveKeyDaysLeft, which the
LiveKeyNotRenewed alarm watches."""

from __future__ import annotations

import logging

from ..composition import Handler, Runtime, entry_point
from ..operations import closing, live_key, player_removal
from ..shared import limits, metrics

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


def close(runtime: Runtime, event: dict, context: object = None) -> dict:
    if isinstance(event, dict) and event.get("task") == limits.RENEW_LIVE_KEY_TASK:
        return renew_live_key(runtime)
    closed = closing.close_ended(runtime)
    lifted = player_removal.lift_fences(runtime, int(runtime.clock.now().timestamp()))
    logger.info("periods closed", extra={"closed": closed, "erasure_fences_lifted": lifted})
    return {"closed": closed, "erasure_fences_lifted": lifted}


def renew_live_key(runtime: Runtime) -> dict:
    now = runtime.clock.now()
    answer = live_key.renew(runtime.live_key, now)
    left = round(live_key.days_left(answer["expires"], now), 2)
    runtime.metrics.measure(metrics.LIVE_KEY_DAYS_LEFT, left, metrics.NO_UNIT)
    logger.info("live API key renewed", extra={"expires": answer["expires"], "days_left": left})
    return {"live_key_expires": answer["expires"], "days_left": left}


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""

    def serve(event: dict, context: object = None) -> dict:
        return close(runtime, event, context)

    return entry_point(runtime, serve)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
