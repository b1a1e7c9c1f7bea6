"""Time, in UTC, in the forms the API and the tables use; and the clocks a runtime reads it from."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""
        ...


class SystemClock:
    """The machine's clock: what every deployed function reads."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class SettableClock:
    """A clock that stands where it is told (tests, and local runs that want a period's end now)."""

    def __init__(self, start: datetime | None = None) -> None:
        self._lock = threading.Lock()
        self._now = start or datetime.now(UTC)
        if self._now.tzinfo is None:
            raise ValueError("a SettableClock needs a timezone-aware time")

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def set(self, moment: datetime) -> None:
        if moment.tzinfo is None:
            raise ValueError("a SettableClock needs a timezone-aware time")
        with self._lock:
            self._now = moment

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += timedelta(seconds=seconds)


def ms(moment: datetime) -> int:
    """Epoch milliseconds (rank keys and reached_at)."""
    return int(moment.timestamp() * 1000)


def iso(moment: datetime) -> str:
    """ISO 8601 with milliseconds and Z, e.g. 2026-11-30T09:41:00.123Z."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
