"""An erasure over HTTP: calling DELETE again until it answers "erased" (its entry places' fences must stand
player_removal.FENCE_SECONDS first), and waiting for the scheduled job to lift its hashed fence afterwards.

Given the stack, both move its clock past FENCE_SECONDS instead of waiting for them: only where no submission is
in flight meanwhile (the fences are there for those: a race with writers has to take the real time)."""

from __future__ import annotations

import time
from typing import Any

from cdk_leaderboard_lambda.operations import player_removal
from local.schedules import SCHEDULE_SECONDS
from tests.support import clock

ERASED_WITHIN = player_removal.FENCE_SECONDS + 60  # generous: a loaded 2-core machine
# The hashed fence outlives the answer by FENCE_SECONDS; the schedule lifts it within one more interval.
FENCE_LIFTED_WITHIN = player_removal.FENCE_SECONDS + SCHEDULE_SECONDS + 30


def erase(api, player: str, stack: Any = None) -> dict:
    """DELETE /players/{player} until it answers 200 "erased" (202 "erasing" before); its answer."""
    deadline = time.monotonic() + ERASED_WITHIN
    waited = False
    while True:
        reply = api.delete(f"/players/{player}")
        assert reply.status_code in (200, 202), reply.text
        if reply.status_code == 200:
            assert reply.json()["status"] == "erased", reply.text
            return reply.json()
        # 202 is "erasing", or "erased" when another call (the scheduled job's) finished it while this one found
        # it leased: the next DELETE answers 200
        assert reply.json()["status"] in ("erasing", "erased"), reply.text
        assert time.monotonic() < deadline, f"not erased within {ERASED_WITHIN} s: {reply.text}"
        if stack is not None and not waited:
            clock.move(stack, seconds=player_removal.FENCE_SECONDS + 1)  # the fences have stood long enough
            waited = True
        else:  # the work left (a long history) or, on the real clock, the fences' time
            time.sleep(0.2 if stack is not None else 1.0)


def fence_lifted(api, erasure: dict, stack: Any = None) -> dict:
    """The erasure's status once the scheduled job has lifted its fence."""
    if stack is not None:  # the fence's time over, and the job run at once
        clock.move(stack, seconds=player_removal.FENCE_SECONDS + 1)
        clock.run_schedules(stack)
    deadline = time.monotonic() + FENCE_LIFTED_WITHIN
    while True:
        status = api.get(erasure["status_url"], key="default").json()
        if "fence_lifted_at" in status:
            return status
        assert time.monotonic() < deadline, f"fence not lifted within {FENCE_LIFTED_WITHIN} s: {status}"
        time.sleep(0.5)
