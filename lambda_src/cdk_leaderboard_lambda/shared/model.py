"""The shared value types of the domain and the data layer (no I/O here, so nothing imports in a circle)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import schema


def rank_key_attribute(hidden: bool) -> str:
    return schema.HIDDEN_RANK_KEY if hidden else schema.RANK_INDEX_SORT_KEY


@dataclass(frozen=True)
class Entry:
    """What one write stores for one player on one index partition (a board period, or one shard of it)."""

    leaderboard_id: str  # the index partition
    player_id: str
    player_name: str
    score: int
    rank_key: str
    reached_at: int  # ms; ties go to the earlier
    expires_at: int | None  # epoch s for DynamoDB's TTL (None: all-time, kept)
    metadata: str | None  # JSON text, as given

    def attributes(self, hidden: bool = False) -> dict[str, Any]:
        """The stored attributes; a hidden player's rank key goes outside the rank index (schema.HIDDEN_RANK_KEY)."""
        return {
            "score": self.score,
            rank_key_attribute(hidden): self.rank_key,
            "player_name": self.player_name,
            "reached_at": self.reached_at,
            schema.TTL_ATTRIBUTE: self.expires_at,
            "metadata": self.metadata,
        }


@dataclass(frozen=True)
class EntryWrite:
    """One entry to write, only if the stored item is still `expected` (None: only if there is none)."""

    entry: Entry
    expected: dict[str, Any] | None
    operation: str | None = None  # an idempotent request's operation id, remembered on the entry
    operation_expires: int = 0
    hidden: bool = False  # the player is hidden on the board: the entry stays out of the rank index


@dataclass(frozen=True)
class Counter:
    """The number of index entries whose rank key is in [lo, hi), as last counted.

    gen is bumped by every recount when it starts; counted_gen is the gen of the recount that stored
    `count`, so a recount that started earlier can never overwrite a later one.
    """

    lo: str
    hi: str
    count: int
    gen: int = 0
    counted_gen: int = 0
    expires_at: int | None = None

    def holds(self, key: str) -> bool:
        return self.lo <= key < self.hi
