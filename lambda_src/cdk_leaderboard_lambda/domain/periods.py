"""Periods (UTC): all-time, daily-YYYY-MM-DD, weekly-YYYY-Www (ISO week), monthly-YYYY-MM; and a tournament
board's one period, `tournament`, whose window is the board's own (boards.py, timestamps.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from types import MappingProxyType

from ..shared.clock import iso
from ..shared.errors import BadRequest, NotFound
from ..shared.limits import CLOSED, ENDED, FIRST_YEAR, LAST_YEAR, OPEN, UPCOMING

ALL_TIME = "all-time"
DAILY = "daily"
WEEKLY = "weekly"
MONTHLY = "monthly"
KINDS = (ALL_TIME, DAILY, WEEKLY, MONTHLY)
TOURNAMENT = "tournament"  # not one of KINDS: a board keeps it instead of them, with its own start and end

# Period ids name years 2000-2999 and only dates and ISO weeks that exist, so the exact set of ids the
# API accepts is a regular expression: the validator and the OpenAPI document share these patterns.
_YEAR = r"2[0-9]{3}"
_LEAP_YEAR = r"2(?:[0-9](?:0[48]|[2468][048]|[13579][26])|[048]00)"
_DAY_OF_MONTH = (
    r"(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])"
    r"|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)"
    r"|02-(?:0[1-9]|1[0-9]|2[0-8]))"
)


def _years_with_week_53() -> str:
    by_century: dict[str, list[str]] = {}
    for year in range(FIRST_YEAR, LAST_YEAR + 1):
        if date(year, 12, 28).isocalendar()[1] == 53:  # Dec 28 is always in the year's last ISO week
            by_century.setdefault(str(year)[:2], []).append(str(year)[2:])
    return "(?:" + "|".join(f"{c}(?:{'|'.join(ys)})" for c, ys in by_century.items()) + ")"


ID_PATTERNS = MappingProxyType(
    {
        DAILY: rf"daily-(?:{_YEAR}-{_DAY_OF_MONTH}|{_LEAP_YEAR}-02-29)",
        WEEKLY: rf"weekly-(?:{_YEAR}-W(?:0[1-9]|[1-4][0-9]|5[0-2])|{_years_with_week_53()}-W53)",
        MONTHLY: rf"monthly-{_YEAR}-(?:0[1-9]|1[0-2])",
    }
)
_CONCRETE = MappingProxyType({kind: re.compile(pattern) for kind, pattern in ID_PATTERNS.items()})
_FIELDS = re.compile(r"[a-z]+-([0-9]{4})-W?([0-9]{2})(?:-([0-9]{2}))?")


def pattern(kinds: Iterable[str] = KINDS) -> str:
    """A regular expression (anchored) of every period a board keeping these kinds accepts."""
    kinds = tuple(kinds)
    alternatives = [*kinds, *(ID_PATTERNS[k] for k in kinds if k in ID_PATTERNS)]
    return "^(?:" + "|".join(alternatives) + ")$"


@dataclass(frozen=True)
class Period:
    """One concrete period: its id (part of the index partition), its kind and when it ends."""

    period_id: str
    kind: str
    ends_at: datetime | None  # None for all-time

    def next_reset(self) -> str | None:
        if self.kind == TOURNAMENT:  # the board's ends_at as given (to the millisecond)
            return iso(self.ends_at) if self.ends_at else None
        return self.ends_at.isoformat().replace("+00:00", "Z") if self.ends_at else None


def starts_at(period: Period) -> datetime | None:
    """When a daily, weekly or monthly period began (None for all-time; a tournament's start is its board's)."""
    if period.ends_at is None or period.kind == TOURNAMENT:
        return None
    if period.kind == DAILY:
        return period.ends_at - timedelta(days=1)
    if period.kind == WEEKLY:
        return period.ends_at - timedelta(days=7)
    last_day = (period.ends_at - timedelta(days=1)).date()
    return _midnight(last_day.replace(day=1))


def ended(period: Period, now: datetime) -> bool:
    """Whether the period's ends_at has passed: from then on nothing changes its standings (docs/PROVING.md, "The
    closing rule"). All-time never ends."""
    return period.ends_at is not None and now >= period.ends_at


def previous(period: Period) -> Period | None:
    """The period of the same kind that ended when this one began."""
    start = starts_at(period)
    return None if start is None else _of_kind(period.kind, (start - timedelta(days=1)).date())


def status(starts: datetime | None, ends: datetime | None, now: datetime, closed: bool = False) -> str:
    """Where `now` is relative to a period [starts, ends): upcoming before it, open inside it, ended after it
    (until its closing summary is stored: closed). None is an open bound (all-time has neither)."""
    if closed:
        return CLOSED
    if starts is not None and now < starts:
        return UPCOMING
    if ends is not None and now >= ends:
        return ENDED
    return OPEN


def tournament(ends_at: datetime) -> Period:
    return Period(TOURNAMENT, TOURNAMENT, ends_at)


def current(now: datetime, kinds: Iterable[str]) -> list[Period]:
    """The periods of the given kinds that contain `now`, in the order given."""
    return [_of_kind(kind, now.date()) for kind in kinds]


def resolve(period: object, now: datetime, kinds: Iterable[str] = KINDS) -> Period:
    """A period from an alias (all-time, daily, weekly, monthly) or a concrete id (daily-2026-11-29 ...),
    restricted to the kinds a board keeps."""
    kinds = tuple(kinds)
    if period is not None and not isinstance(period, str):
        raise BadRequest("period must be a string")
    default = ALL_TIME if ALL_TIME in kinds or not kinds else kinds[0]  # a board may not keep all-time
    text = default if period is None else period
    if text in kinds:
        return _of_kind(text, now.date())
    for kind, concrete in _CONCRETE.items():
        if kind in kinds and concrete.fullmatch(text):
            try:
                fields = _FIELDS.fullmatch(text)
                assert fields is not None  # every concrete pattern is a narrowing of _FIELDS
                return _parse(kind, fields)
            except (ValueError, OverflowError):  # the patterns admit only real dates; this is a second fence
                break
    # A well-formed period of a kind the board does not keep: that board period does not exist.
    other = text if text in KINDS else next((k for k, c in _CONCRETE.items() if c.fullmatch(text)), None)
    if other is not None and other not in kinds:
        raise NotFound(f"this board keeps no {other} period (it keeps {', '.join(kinds)})")
    examples = {DAILY: "daily-2026-11-29", WEEKLY: "weekly-2026-W48", MONTHLY: "monthly-2026-11"}
    ids = " / ".join(examples[k] for k in kinds if k in examples)
    raise BadRequest(
        f"period must be one of {', '.join(kinds)}"
        + (f" or an id like {ids} (years {FIRST_YEAR}-{LAST_YEAR})" if ids else "")
    )


def from_id(period_id: str, now: datetime) -> Period:
    return resolve(period_id, now)


def _parse(kind: str, m: re.Match) -> Period:
    if kind == DAILY:
        return _of_kind(DAILY, date(int(m[1]), int(m[2]), int(m[3])))
    if kind == WEEKLY:
        return _of_kind(WEEKLY, date.fromisocalendar(int(m[1]), int(m[2]), 1))
    return _of_kind(MONTHLY, date(int(m[1]), int(m[2]), 1))


def _of_kind(kind: str, day: date) -> Period:
    if kind == ALL_TIME:
        return Period(ALL_TIME, ALL_TIME, None)
    if kind == DAILY:
        return Period(f"daily-{day.isoformat()}", DAILY, _midnight(day + timedelta(days=1)))
    if kind == WEEKLY:
        year, week, weekday = day.isocalendar()
        monday = day - timedelta(days=weekday - 1)
        return Period(f"weekly-{year}-W{week:02d}", WEEKLY, _midnight(monday + timedelta(days=7)))
    if kind == MONTHLY:
        first_of_next = date(day.year + day.month // 12, day.month % 12 + 1, 1)
        return Period(f"monthly-{day.year}-{day.month:02d}", MONTHLY, _midnight(first_of_next))
    raise ValueError(kind)


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time.min, tzinfo=UTC)


def expires_at(period: Period, retention_days: int) -> int | None:
    """Epoch seconds after which DynamoDB's TTL may delete a period entry (None: kept forever)."""
    if period.ends_at is None:
        return None
    try:
        return int((period.ends_at + timedelta(days=retention_days)).timestamp())
    except OverflowError:  # a board stored before its times were limited to LAST_YEAR: keep, as all-time
        return None
