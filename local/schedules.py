"""What EventBridge schedules do on AWS: a background thread that invokes each scheduled function on a timer.

The template's schedule says every few minutes; locally the interval is shorter (SCHEDULE_SECONDS), so that a
short tournament closes on its own while you watch. The function runs in this process, as the gateway's do."""

from __future__ import annotations

import threading
import traceback
from collections.abc import Callable

from local.events import LambdaContext

SCHEDULE_SECONDS = 5.0  # a period closes at most this long (plus one closing) after its end under `make run`


class ScheduledInvoker:
    def __init__(self, name: str, handler: Callable, interval: float = SCHEDULE_SECONDS, timeout_s: int = 300) -> None:
        self.name, self.handler, self.interval, self.timeout_s = name, handler, interval, timeout_s
        self._stop = threading.Event()
        self.runs = 0
        self.thread = threading.Thread(target=self._run, name=f"schedule-{name}", daemon=True)

    def start(self) -> ScheduledInvoker:
        self.thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            event = {"source": "aws.events", "detail-type": "Scheduled Event", "detail": {}}
            try:
                self.handler(event, LambdaContext(self.name, f"schedule-{self.runs}", self.timeout_s))
            except Exception:  # as on AWS, a failed run is not retried: the next one tries again
                traceback.print_exc()
            self.runs += 1

    def stop(self) -> None:
        self._stop.set()
        self.thread.join(timeout=self.timeout_s)
