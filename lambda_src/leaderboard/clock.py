"""Time, in UTC, in the forms the API and the tables use."""

from __future__ import annotations

from datetime import UTC, datetime


def now_utc() -> datetime:
    return datetime.now(UTC)


def ms(moment: datetime) -> int:
    """Epoch milliseconds (rank keys and reached_at)."""
    return int(moment.timestamp() * 1000)


def iso(moment: datetime) -> str:
    """ISO 8601 with milliseconds and Z, e.g. 2026-11-30T09:41:00.123Z."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
