"""The local stack's stream poller: quiet when nothing is written, at once when woken (the local stack wakes it after
every function call), and settle() does not wait out a quiet interval. Counted in polls, never in seconds."""

from __future__ import annotations

import threading
import time

from local.streams import ACTIVE_IDLE_ROUNDS, StreamPoller

BOUND = 30.0  # generous: a loaded 2-core machine


class CountingReader:
    """A stream that is always empty, counting the polls."""

    def __init__(self) -> None:
        self.polls = 0
        self.polled = threading.Condition()

    def read(self, limit: int) -> list[dict]:
        with self.polled:
            self.polls += 1
            self.polled.notify_all()
        return []

    def wait_for(self, polls: int) -> None:
        with self.polled:
            assert self.polled.wait_for(lambda: self.polls >= polls, BOUND), self.polls


def test_an_idle_poller_goes_quiet_and_a_wake_up_or_a_settle_polls_at_once():
    reader = CountingReader()
    # an hour's quiet interval: any poll past the active rounds is one a wake-up asked for
    poller = StreamPoller(reader, lambda event, context: None, 100, (), quiet_poll_seconds=3600).start()
    try:
        reader.wait_for(ACTIVE_IDLE_ROUNDS + 1)  # the active rounds, then the quiet wait begins
        time.sleep(0.5)  # five active intervals: none of them polls now (a slower machine polls no more)
        quiet = reader.polls
        assert quiet == ACTIVE_IDLE_ROUNDS + 1
        poller.wake()
        reader.wait_for(quiet + 2)  # woken: it polls, and often again for a while
        reader.wait_for(quiet + ACTIVE_IDLE_ROUNDS + 1)
        poller.settle(timeout=BOUND)  # two idle polls after the call, not an hour
    finally:
        poller.stop()
    assert not poller.thread.is_alive()  # stop() wakes it too


def test_without_a_quiet_interval_it_polls_as_before():
    reader = CountingReader()
    poller = StreamPoller(reader, lambda event, context: None, 100, ()).start()
    try:
        reader.wait_for(ACTIVE_IDLE_ROUNDS + 5)  # past the active rounds it keeps polling (bench/ keeps this)
    finally:
        poller.stop()
