"""A board's per-player limit (`max_submissions_per_minute`): a fixed window per calendar minute (UTC).

Each submission (each entry of a bulk request) of a player on a board with a limit counts in that minute's
counter item, checked and incremented in one conditional write before anything else is written; past the limit
the submission is refused with the seconds until the next minute. A fixed window lets a player make up to twice
the limit across a minute's boundary; it costs one small write per request (per distinct player in a bulk).
A board with relative rules that declares no limit has limits.RELATIVE_RULES_PER_MINUTE (BoardConfig.per_player_limit).
"""

from __future__ import annotations

from datetime import datetime

from ..domain.boards import BoardConfig
from ..domain.ports import RateLimitStore
from ..shared.errors import TooManyRequests

WINDOW_SECONDS = 60
KEEP_SECONDS = 3600  # TTL of a counter item: long past its minute (TTL deletes within days, not at once)


def take(store: RateLimitStore, config: BoardConfig, player_id: str, now: datetime, count: int = 1) -> int | None:
    """Count `count` submissions of the player on the board at `now` in `store` (the runtime's rate_limits), or
    raise TooManyRequests (nothing counted). Returns the minute they counted in (None: the board has no limit),
    for give_back."""
    most = config.per_player_limit
    if most is None:
        return None
    epoch = int(now.timestamp())
    minute = epoch // WINDOW_SECONDS
    if count > most or not store.take(player_id, config.board_id, minute, count, most, epoch + KEEP_SECONDS):
        raise TooManyRequests(
            f"{player_id} is past this board's limit of {most} submissions per minute",
            retry_after=(minute + 1) * WINDOW_SECONDS - epoch,
        )
    return minute


def give_back(store: RateLimitStore, config: BoardConfig, player_id: str, minute: int | None, count: int = 1) -> None:
    """Uncount `count` submissions that take() counted in `minute` and that were then refused (a 400 found only
    after reading the player's entries): a refused submission does not use up the limit."""
    if minute is not None:
        store.give_back(player_id, config.board_id, minute, count)
