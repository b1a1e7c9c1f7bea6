"""Removing a player: their entries on one board (moderation), and everything of theirs (erasure on request).

Entries are deleted from the player's own partition of the scores table (one Query finds them all), so the cost
grows with what the player holds, not with the boards. The rank counters follow from the table's stream, as for
any other change of an entry: counts and ranks stay exact.
"""

from __future__ import annotations

from typing import Any

from . import keys, schema
from .boards import BoardConfig
from .data import entries


def _entries_on(player_id: str, board_id: str) -> list[tuple[str, str]]:
    return [
        (player_id, item[schema.SCORES_SORT_KEY])
        for item in entries.of_player(player_id)
        if keys.board_and_period(item[schema.SCORES_SORT_KEY])[0] == board_id
    ]


def remove_from_board(config: BoardConfig, player_id: str) -> dict[str, Any]:
    """Delete the player's entries on every period (and shard) of the board."""
    deleted = entries.delete(_entries_on(player_id, config.board_id))
    return {"board_id": config.board_id, "player_id": player_id, "deleted_entries": deleted}
