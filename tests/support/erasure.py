"""An erasure over HTTP: calling DELETE again until it answers "erased" (its entry places' fences must stand
player_removal.FENCE_SECONDS first), and waiting for the scheduled job to lift its hashed fence afterwards."""

from __future__ import annotations

import time

from leaderboard import player_removal
from local.schedules import SCHEDULE_SECONDS

ERASED_WITHIN = player_removal.FENCE_SECONDS + 60  # generous: a loaded 2-core machine
# The hashed fence outlives the answer by FENCE_SECONDS; the schedule lifts it within one more interval.
FENCE_LIFTED_WITHIN = player_removal.FENCE_SECONDS + SCHEDULE_SECONDS + 30


def erase(api, player: str) -> dict:
    """DELETE /players/{player} until it answers 200 "erased" (202 "erasing" before); its answer."""
    deadline = time.monotonic() + ERASED_WITHIN
    while True:
        reply = api.delete(f"/players/{player}")
        assert reply.status_code in (200, 202), reply.text
        if reply.status_code == 200:
            assert reply.json()["status"] == "erased", reply.text
            return reply.json()
        assert reply.json()["status"] == "erasing", reply.text
        assert time.monotonic() < deadline, f"not erased within {ERASED_WITHIN} s: {reply.text}"
        time.sleep(1.0)


def fence_lifted(api, erasure: dict) -> dict:
    """The erasure's status once the scheduled job has lifted its fence."""
    deadline = time.monotonic() + FENCE_LIFTED_WITHIN
    while True:
        status = api.get(erasure["status_url"], key="default").json()
        if "fence_lifted_at" in status:
            return status
        assert time.monotonic() < deadline, f"fence not lifted within {FENCE_LIFTED_WITHIN} s: {status}"
        time.sleep(0.5)
