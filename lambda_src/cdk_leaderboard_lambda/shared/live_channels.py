"""Where a board period's live top is published: one AWS AppSync Events channel per board and period kind.

A channel is `/leaderboard/<board part>/<period kind>` in the `leaderboard` namespace, for example
`/leaderboard/global/daily`; a subscriber of `daily` follows the current day as it changes (every event names its
`period_id`). A tournament board's only kind is `tournament`.

Each part of an AppSync channel's path takes letters, digits and `-`, starting and ending with a letter or digit, at
most 50 characters (the channel namespace name's documented pattern, which every part of the path shares). Board ids
are `[a-z0-9][a-z0-9_-]{0,47}`: lowercase, so the encoding spends uppercase letters, which no board id holds, on
what a path part cannot carry: `_` becomes `U` and a final `-` becomes `D`. The mapping is one-to-one and
`board_of` inverts it.
"""

from __future__ import annotations

import re

NAMESPACE = "leaderboard"
PATH_PART_PATTERN = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,48}[A-Za-z0-9])?"
_CHANNEL = re.compile(rf"/{NAMESPACE}/({PATH_PART_PATTERN})/({PATH_PART_PATTERN})")


def board_path_part(board_id: str) -> str:
    part = board_id.replace("_", "U")
    if part.endswith("-"):
        part = part[:-1] + "D"
    return part


def board_of(part: str) -> str:
    board_id = part[:-1] + "-" if part.endswith("D") else part
    return board_id.replace("U", "_")


def channel(board_id: str, kind: str) -> str:
    """The channel a board's current period of `kind` (`all-time`, `daily`, ..., `tournament`) is published on."""
    return f"/{NAMESPACE}/{board_path_part(board_id)}/{kind}"


def parse(path: str) -> tuple[str, str] | None:
    """(board id, period kind) of a leaderboard channel path, or None when it is not one."""
    match = _CHANNEL.fullmatch(path)
    return (board_of(match.group(1)), match.group(2)) if match else None
