"""The local stack's clock in the tests that go over HTTP: the real time plus an offset the tests move forward.

The handlers of a local stack read the time from the clock they are given (composition.Runtime.clock), so a test
that needs a period's end, a fresh minute or a day after midnight moves this clock there instead of sleeping for it.
It keeps running with the real time in between (requests still follow each other in time: tied scores rank by
when they were reached, rate-limit windows roll on) and it never goes back: the stack's tables, its scheduled
jobs and its streams have seen every earlier time. What the stack runs on the real clock is untouched by it:
the schedules' and stream pollers' intervals, DynamoDB Local (which deletes nothing by TTL), the live broadcaster's
once-a-second limit, Powertools' idempotency expiry and the local edge (nginx). (A browser page's clock is
Playwright's, which the browser tests start at the stack's time and move with it: tests/e2e/conftest.py.)"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import ExitStack
from datetime import UTC, datetime, time, timedelta
from typing import Any


class RunningClock:
    """Real time plus an offset that only grows."""

    def __init__(self, real: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._real = real  # the real time (its own tests give a fixed one: nothing they assert depends on timing)
        self._lock = threading.Lock()
        self._offset = timedelta(0)

    def now(self) -> datetime:
        with self._lock:
            return self._real() + self._offset

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("the stack's clock never goes back")
        with self._lock:
            self._offset += timedelta(seconds=seconds)

    def set(self, moment: datetime) -> None:
        """From now on the clock reads `moment` (then runs on); a moment already past is refused."""
        if moment.tzinfo is None:
            raise ValueError("a clock needs a timezone-aware time")
        self.advance((moment - self.now()).total_seconds())


def move(stack: Any, *, seconds: float | None = None, to: datetime | None = None) -> datetime:
    """Move the stack's clock forward (by `seconds`, or to `to` unless it is there already) while none of its
    scheduled jobs is running, so no run sees the time jump in its middle (a lease it holds expiring under it);
    the stack's time afterwards."""
    with ExitStack() as paused:
        for schedule in stack.schedules:
            paused.enter_context(schedule.paused())
        if to is not None:
            stack.clock.advance(max(0.0, (to - stack.clock.now()).total_seconds()))
        else:
            stack.clock.advance(seconds or 0.0)
    return stack.clock.now()


def next_minute(stack: Any, into: float = 0.5) -> datetime:
    """The stack's clock moved to `into` seconds after the next calendar minute starts (a fresh per-minute window)."""
    now = stack.clock.now()
    return move(stack, to=now.replace(second=0, microsecond=0) + timedelta(minutes=1, seconds=into))


def run_schedules(stack: Any) -> None:
    """Every scheduled job run once, now, in this thread, after any timed run under way has finished (what the
    schedule would do at its next tick)."""
    for schedule in stack.schedules:
        with schedule.paused():
            schedule.run_once()


# The daily and weekly boards change at 00:00 UTC: a test that writes just before midnight and reads just after
# would read a new, empty period. Such a test starts just after midnight instead (the clock moved there); period
# boundaries themselves are tested with fixed dates in tests/unit.
MIDNIGHT_MARGIN_SECONDS = 120


def seconds_to_midnight(now: datetime) -> float:
    midnight = datetime.combine(now.date() + timedelta(days=1), time.min, tzinfo=UTC)
    return (midnight - now).total_seconds()


def clear_of_midnight(stack: Any, margin: float = MIDNIGHT_MARGIN_SECONDS) -> None:
    """Less than `margin` seconds before 00:00 UTC on the stack's clock: the clock moved to just after it."""
    now = stack.clock.now()
    left = seconds_to_midnight(now)
    if left < margin:
        move(stack, to=now + timedelta(seconds=left + 1))
