"""Where a board period's live top is published: one AWS AppSync Events channel per board and period kind.

A channel is `/leaderboard/<board segment>/<period kind>` in the `leaderboard` namespace, for example
`/leaderboard/global/daily`; a subscriber of `daily` follows the current day as it changes (every event names its
`period_id`). A tournament board's only kind is `tournament`.

AppSync channel segments take letters, digits and `-`, starting and ending with a letter or digit, at most 50
characters (the channel namespace name's documented pattern, which channel segments share). Board ids are
`[a-z0-9][a-z0-9_-]{0,47}`: lowercase, so the encoding spends uppercase letters, which no board id holds, on
what a segment cannot carry: `_` becomes `U` and a final `-` becomes `D`. The mapping is one-to-one and
`board_of` inverts it.
"""

from __future__ import annotations

import re

NAMESPACE = "leaderboard"
SEGMENT_PATTERN = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,48}[A-Za-z0-9])?"
_CHANNEL = re.compile(rf"/{NAMESPACE}/({SEGMENT_PATTERN})/({SEGMENT_PATTERN})")


def board_segment(board_id: str) -> str:
    segment = board_id.replace("_", "U")
    if segment.endswith("-"):
        segment = segment[:-1] + "D"
    return segment


def board_of(segment: str) -> str:
    board_id = segment[:-1] + "-" if segment.endswith("D") else segment
    return board_id.replace("U", "_")


def channel(board_id: str, kind: str) -> str:
    """The channel a board's current period of `kind` (`all-time`, `daily`, ..., `tournament`) is published on."""
    return f"/{NAMESPACE}/{board_segment(board_id)}/{kind}"


def parse(path: str) -> tuple[str, str] | None:
    """(board id, period kind) of a leaderboard channel path, or None when it is not one."""
    match = _CHANNEL.fullmatch(path)
    return (board_of(match.group(1)), match.group(2)) if match else None
