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


def _stack() -> SimpleNamespace:
    return SimpleNamespace(clock=clock.RunningClock(), schedules=[_Schedule()])


def test_it_runs_with_the_real_time_and_moves_only_forward():
    stack = _stack()
    assert abs((stack.clock.now() - datetime.now(UTC)).total_seconds()) < 1
    moved = clock.move(stack, seconds=3600)
    assert 3599 < (moved - datetime.now(UTC)).total_seconds() < 3601
    with pytest.raises(ValueError):
        stack.clock.advance(-1)
    with pytest.raises(ValueError):
        stack.clock.set(datetime.now(UTC))  # an hour behind the stack's time
    assert not stack.schedules[0].lock.locked()  # released after the move


def test_a_test_just_before_midnight_starts_just_after_it():
    stack = _stack()
    now = stack.clock.now()
    midnight = datetime.combine(now.date() + timedelta(days=2), datetime.min.time(), tzinfo=UTC)
    clock.move(stack, to=midnight - timedelta(seconds=30))
    clock.clear_of_midnight(stack)
    after = stack.clock.now()
    assert midnight < after < midnight + timedelta(seconds=3)
    clock.clear_of_midnight(stack)  # far from the next one: not moved
    assert stack.clock.now() - after < timedelta(seconds=1)


def test_next_minute_is_the_start_of_a_fresh_calendar_minute():
    stack = _stack()
    before = stack.clock.now()
    after = clock.next_minute(stack)
    assert after.second == 0 and 0.5 <= after.microsecond / 1e6 < 1.5
    assert after.replace(second=0, microsecond=0) == before.replace(second=0, microsecond=0) + timedelta(minutes=1)


def test_run_schedules_runs_every_job_once_paused():
    stack = _stack()
    clock.run_schedules(stack)
    assert stack.schedules[0].runs == 1
