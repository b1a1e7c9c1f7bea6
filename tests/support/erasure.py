"""Waiting for an erasure's fence to be lifted over HTTP (the last items naming the player go with it)."""

from __future__ import annotations

import time

from leaderboard import player_removal
from local.schedules import SCHEDULE_SECONDS

# The fence outlives the answer by player_removal.FENCE_SECONDS; the schedule lifts it within one more interval.
FENCE_LIFTED_WITHIN = player_removal.FENCE_SECONDS + SCHEDULE_SECONDS + 30  # generous: a loaded 2-core machine


def fence_lifted(api, erasure: dict) -> dict:
    """The erasure's status once the scheduled job has lifted its fence."""
    deadline = time.monotonic() + FENCE_LIFTED_WITHIN
    while True:
        status = api.get(erasure["status_url"], key="default").json()
        if "fence_lifted_at" in status:
            return status
        assert time.monotonic() < deadline, f"fence not lifted within {FENCE_LIFTED_WITHIN} s: {status}"
        time.sleep(0.5)
