"""What EventBridge schedules do on AWS: a background thread that invokes each scheduled function on a timer.

The template's schedule says every few minutes; locally the interval is shorter (SCHEDULE_SECONDS), so that a
short tournament closes on its own while you watch. The function runs in this process, as the gateway's do."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from local.events import LambdaContext

SCHEDULE_SECONDS = 5.0  # a period closes at most this long (plus one closing) after its end under `make run`
TASK_SECONDS = 60.0  # schedules with a payload of their own (the live key's renewal: hours on AWS)


class ScheduledInvoker:
    def __init__(
        self,
        name: str,
        handler: Callable,
        interval: float = SCHEDULE_SECONDS,
        timeout_s: int = 300,
        payload: dict | None = None,
    ) -> None:
        self.name, self.handler, self.interval, self.timeout_s = name, handler, interval, timeout_s
        self.payload = payload  # the rule's own Input, sent instead of the scheduled event (as EventBridge does)
        self._stop = threading.Event()
        self._running = threading.Lock()  # one run at a time, and none while paused
        self.runs = 0
        self.thread = threading.Thread(target=self._run, name=f"schedule-{name}", daemon=True)

    def start(self) -> ScheduledInvoker:
        self.thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            with self._running:
                try:
                    self.run_once()
                except Exception:  # as on AWS, a failed run is not retried: the next one tries again
                    traceback.print_exc()

    def run_once(self) -> None:
        """One scheduled invocation, in the caller's thread. Callers keep it from overlapping a timed run: the
        timer runs it holding the lock, and Backend.reset_tables inside paused()."""
        event = self.payload or {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}}
        self.runs += 1
        self.handler(event, LambdaContext(self.name, f"schedule-{self.runs}", self.timeout_s))

    @contextmanager
    def paused(self) -> Iterator[None]:
        """No timed run starts (and none is under way) inside the block."""
        with self._running:
            yield

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=self.timeout_s)
