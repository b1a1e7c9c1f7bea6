"""Periods (UTC): all-time, daily-YYYY-MM-DD, weekly-YYYY-Www (ISO week)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone

from .errors import BadRequest

ALL_TIME = "all-time"
DAILY = "daily"
WEEKLY = "weekly"
PERIODS = (ALL_TIME, DAILY, WEEKLY)

_DAILY_ID = re.compile(r"^daily-(\d{4})-(\d{2})-(\d{2})$")
_WEEKLY_ID = re.compile(r"^weekly-(\d{4})-W(\d{2})$")


@dataclass(frozen=True)
class Board:
    """One concrete board: its id (the index partition), its period kind and when it stops accepting scores."""

    leaderboard_id: str
    period: str
    ends_at: datetime | None  # None for all-time


def current_boards(now: datetime) -> list[Board]:
    """The three boards that one submission at `now` updates."""
    return [_all_time(), _daily(now.date()), _weekly(now.date())]


def resolve(period: str | None, now: datetime) -> Board:
    """A board from an alias (all-time, daily, weekly) or a concrete id (daily-2026-11-29, weekly-2026-W48)."""
    if period is not None and not isinstance(period, str):
        raise BadRequest("period must be a string")
    period = (period or ALL_TIME).strip()
    if period == ALL_TIME:
        return _all_time()
    if period == DAILY:
        return _daily(now.date())
    if period == WEEKLY:
        return _weekly(now.date())
    try:
        if m := _DAILY_ID.match(period):
            return _daily(date(int(m[1]), int(m[2]), int(m[3])))
        if m := _WEEKLY_ID.match(period):
            return _weekly(date.fromisocalendar(int(m[1]), int(m[2]), 1))
    except ValueError:
        pass
    raise BadRequest(f"period must be one of {', '.join(PERIODS)} or an id like daily-2026-11-29 / weekly-2026-W48")


def board_from_id(leaderboard_id: str) -> Board:
    return resolve(leaderboard_id, datetime.now(timezone.utc))


def _all_time() -> Board:
    return Board(ALL_TIME, ALL_TIME, None)


def _daily(day: date) -> Board:
    return Board(f"daily-{day.isoformat()}", DAILY, _midnight(day + timedelta(days=1)))


def _weekly(day: date) -> Board:
    year, week, weekday = day.isocalendar()
    monday = day - timedelta(days=weekday - 1)
    return Board(f"weekly-{year}-W{week:02d}", WEEKLY, _midnight(monday + timedelta(days=7)))


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=timezone.utc)


def expires_at(board: Board, retention_days: int) -> int | None:
    """Epoch seconds after which DynamoDB's TTL may delete a period entry (None: kept forever)."""
    if board.ends_at is None:
        return None
    return int((board.ends_at + timedelta(days=retention_days)).timestamp())
