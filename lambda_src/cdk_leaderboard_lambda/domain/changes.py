"""One change of a player's entry on a board period, as the scores table's change feed delivers it.

The stream's records are decoded once, in one module of data/ (data/stream_changes.py), into these; every consumer
(the rank counters, moderation's reconcile, the period logs, the live broadcaster) reads them and never a record.
Only entries' changes are in the feed: the table's other items (counters, boards, records) change no standing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

ChangeKind = Literal["insert", "modify", "remove"]
INSERT: ChangeKind = "insert"
MODIFY: ChangeKind = "modify"
REMOVE: ChangeKind = "remove"


@dataclass(frozen=True)
class Standing:
    """An entry item on one side of a change (before or after): what the consumers read of it.

    An erasure's fence stands in the entry's place for a while (player_removal.py): it holds no score."""

    score: int | None = None  # None: no score (a fence)
    reached_at_ms: int | None = None
    rank_key: str | None = None  # None: out of the rank index (hidden, or a fence)
    hidden: bool = False  # its rank key is set aside (moderation)
    erasing: bool = False  # an erasure's fence
    commitment: str | None = None  # a fence's: the player's commitment on this board period's log
    operations: frozenset[str] = frozenset()  # the ids of the idempotent operations the entry remembers
    expires_at: int | None = None  # epoch seconds (TTL), on periods that end

    @property
    def is_entry(self) -> bool:
        """A player's score (not a fence)."""
        return self.score is not None and not self.erasing


@dataclass(frozen=True)
class EntryChange:
    """A player's entry on one shard of a board period: inserted, modified or removed."""

    kind: ChangeKind
    player_id: str
    index_partition: str  # the entry's stored partition (the rank index's partition key): what stores are asked by
    board_id: str
    generation: str  # item_keys.LEGACY_GENERATION on boards older than generations
    period_id: str
    shard: int  # 0 on a board of one shard
    old: Standing | None  # None: there was no item (an insert)
    new: Standing | None  # None: there is no item now (a remove)
    partition: str | None = None  # a part of the board period's standings of its own; none yet (all players)
    event_id: str = ""  # the feed's id of this change: the period logs take each in once
    expired: bool = False  # removed by the table's TTL (a period's entries expiring), not by a write
    # Epoch seconds when the change was written, by the wall clock of the store's stream (whole seconds on AWS):
    # not the runtime's clock, which tests and the local stack move.
    written_at: float | None = field(default=None, compare=False)

    @property
    def key(self) -> tuple[str, str]:
        """(player id, index partition): the entry's key in the entry store."""
        return self.player_id, self.index_partition
