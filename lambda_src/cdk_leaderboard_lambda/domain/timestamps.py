"""Times as the API takes them: ISO 8601 UTC timestamps (a tournament's window)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from ..shared.errors import BadRequest, BrokenRule
from ..shared.limits import FIRST_YEAR, LAST_YEAR, TIMESTAMP_PATTERN

_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)


def parse_time(value: object, field_name: str) -> datetime:
    """An ISO 8601 UTC timestamp as the API takes it: 2026-12-01T18:00:00Z (fractions of a second allowed)."""
    rule = (
        f"{field_name} must be an ISO 8601 UTC time like 2026-12-01T18:00:00Z: a real date and time of the years "
        f"{FIRST_YEAR}-{LAST_YEAR} (the years period ids name)"
    )
    if not isinstance(value, str) or not _TIMESTAMP.fullmatch(value):
        raise BadRequest(rule)
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:  # the document's pattern, not a day of the calendar (2030-02-30): a rule it says in words
        raise BrokenRule(rule) from None
