"""Renewing the live updates' subscribe-only AppSync API key: no date is written in the code or the template; the
expiry is computed here, from the runtime's clock, each time the schedule runs (limits.LIVE_KEY_*).

The same key is extended (UpdateApiKey), not replaced: its value does not change, so every connected client keeps
working and discovery (GET /leaderboards/{board}) has nothing new to publish. Rotating the key to a new value is a
separate, deliberate act (the prop Live(api_key_generation=...)).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ..domain.ports.runtime import ApiKey
from ..shared import limits

HOUR, DAY = 3600, 86400


def target_expiry(now: datetime) -> int:
    """LIVE_KEY_VALID_DAYS after `now`, rounded down to the hour as AppSync stores it (epoch s)."""
    moment = int((now + timedelta(days=limits.LIVE_KEY_VALID_DAYS)).timestamp())
    return moment - moment % HOUR


def days_left(expires: int, now: datetime) -> float:
    return (expires - now.timestamp()) / DAY


def within_window(expires: int, now: datetime) -> bool:
    """Whether AppSync takes `expires` at `now`: 1 to 365 days ahead."""
    return limits.LIVE_KEY_MIN_DAYS <= days_left(expires, now) <= limits.LIVE_KEY_MAX_DAYS


def renew(key: ApiKey, now: datetime) -> dict[str, int]:
    """Move the key's expiry to target_expiry(now); AppSync's answer {"expires", "deletes"}. Raises
    data.live_key.KeyRenewalFailed when AppSync refuses, and RuntimeError when its answer is not the asked one."""
    expires = target_expiry(now)
    answer = key.extend(expires)
    if not within_window(answer["expires"], now):
        raise RuntimeError(f"AppSync answered an expiry of {answer['expires']} for the asked {expires}")
    return answer
