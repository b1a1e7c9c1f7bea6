"""The clock the HTTP tests give the local stack (tests/support/clock.py): real time plus an offset that only grows,
moved while the stack's scheduled jobs are paused."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

import pytest

from tests.support import clock


class _Schedule:
    def __init__(self) -> None:
        self.lock, self.runs = threading.Lock(), 0

    @contextmanager
    def paused(self):
        with self.lock:
            yield

    def run_once(self) -> None:
        assert self.lock.locked()  # run_schedules runs it paused: no timed run overlaps
        self.runs += 1


REAL = datetime(2026, 12, 1, 23, 57, 41, 250_000, tzinfo=UTC)  # the machine's time, held still in these tests


def _stack(real: datetime = REAL) -> SimpleNamespace:
    return SimpleNamespace(clock=clock.RunningClock(lambda: real), schedules=[_Schedule()])


def test_by_default_it_reads_the_real_time():
    before = datetime.now(UTC)
    read = clock.RunningClock().now()
    assert before <= read <= datetime.now(UTC)


def test_it_moves_only_forward_with_the_schedules_paused_meanwhile():
    stack = _stack()
    assert stack.clock.now() == REAL
    assert clock.move(stack, seconds=3600) == REAL + timedelta(hours=1)
    with pytest.raises(ValueError):
        stack.clock.advance(-1)
    with pytest.raises(ValueError):
        stack.clock.set(REAL)  # an hour behind the stack's time
    assert clock.move(stack, to=REAL) == REAL + timedelta(hours=1)  # already past: not moved
    assert not stack.schedules[0].lock.locked()  # released after the move


def test_a_test_just_before_midnight_starts_just_after_it():
    stack = _stack()  # 2 min 18.75 s before midnight: clear of it
    clock.clear_of_midnight(stack)
    assert stack.clock.now() == REAL
    clock.move(stack, seconds=60)  # 78.75 s before it: within the margin
    clock.clear_of_midnight(stack)
    midnight = datetime(2026, 12, 2, tzinfo=UTC)
    assert midnight < stack.clock.now() <= midnight + timedelta(seconds=1)


def test_next_minute_is_the_start_of_a_fresh_calendar_minute():
    stack = _stack()
    assert clock.next_minute(stack) == datetime(2026, 12, 1, 23, 58, 0, 500_000, tzinfo=UTC)
    assert clock.next_minute(stack, into=1) == datetime(2026, 12, 1, 23, 59, 1, tzinfo=UTC)


def test_run_schedules_runs_every_job_once_paused():
    stack = _stack()
    clock.run_schedules(stack)
    assert stack.schedules[0].runs == 1
