"""The entries, the rank counters over them and the erasures' items: the ports of the write and read paths."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ...shared.model import Counter, Entry, EntryWrite
from .unit_of_work import StoreWrites

ErasureKey = tuple[str, str]  # item_keys.erasing_key(player_id)
Pairs = Iterable[tuple[str, str]]  # (player id, index partition): an entry's table key


@dataclass(frozen=True)
class SubmissionRead:
    """What a submission reads before it writes (EntryStore.get_for_submission)."""

    entries: dict[tuple[str, str], dict[str, Any]]  # by (player id, partition); fences in their entry's place
    hidden: set[str]  # the players among them hidden on the board
    board: dict[str, Any] | None  # the board's stored item (None: gone, or not a stored board)


@dataclass(frozen=True)
class KeptBest:
    """What a keep-best write did (EntryStore.keep_best)."""

    changed: bool  # the entry beat the stored one and was stored
    item: dict[str, Any]  # the item as it now stands
    created: bool  # there was none before


@dataclass(frozen=True)
class Purged:
    """One round of a partition's deletion (EntryStore.delete_partition)."""

    deleted: int
    done: bool  # the partition is empty


class EntryStore(Protocol):
    """Entries as items of the scores table, keyed (player id, index partition), and the rank index over them."""

    def get(self, pairs: Pairs) -> dict[tuple[str, str], dict[str, Any]]:
        """Strongly consistent entries by key; absent ones (and fences) are left out."""
        ...

    def get_for_submission(
        self, pairs: Pairs, board_id: str, *, stored_board: bool, consistent: bool = True
    ) -> SubmissionRead:
        """get(), fences in their entry's place (every place of a player whose erasure item stands too), the
        players among them hidden on the board, and the board's stored item (None: gone, or not a stored board)."""
        ...

    def write(self, writes: list[EntryWrite]) -> None:
        """Each entry only if it is still as read, all or none (Changed: nothing written, also when another write
        in progress on one of the items kept them from committing)."""
        ...

    def write_ops(self, writes: list[EntryWrite]) -> StoreWrites:
        """The same writes for a unit of work that commits them with other stores' (each refused with Changed
        unless its entry is still as read)."""
        ...

    def keep_best(self, entry: Entry, *, descending: bool, name_given: bool, hidden: bool = False) -> KeptBest:
        """Store the entry only if it beats the stored one (descending: higher is better; name_given: the entry's
        name replaces the stored one; hidden: the player is hidden on the board, the entry out of the index)."""
        ...

    def set_hidden(self, player_id: str, partition: str, item: dict[str, Any], *, hidden: bool) -> None:
        """Move an entry's rank key out of the rank index (hidden) or back, if still as read (else Changed)."""
        ...

    def one(self, player_id: str, partition: str) -> dict[str, Any] | None: ...

    def of_player(self, player_id: str) -> list[dict[str, Any]]: ...

    def of_player_on(self, player_id: str, board_id: str) -> list[dict[str, Any]]: ...

    def keys_of_player_on(self, player_id: str, board_id: str) -> list[tuple[str, str]]: ...

    def page_of_player(self, player_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` items of the player's partition in sort-key order after `after`; whether more may follow."""
        ...

    def partitions_of(self, player_id: str) -> list[str]: ...

    def put_new(self, entries: Iterable[Entry]) -> int:
        """Bulk loads of fresh players: plain puts, no condition."""
        ...

    def raise_fence(
        self, player_id: str, partitions: Iterable[str], until: int, extra: Mapping[str, dict[str, Any]] | None = None
    ) -> int:
        """Put an erasure's fence in the place of the player's entry on each partition (replacing the entry)."""
        ...

    def lift_fence(self, player_id: str) -> int: ...

    def page(
        self,
        partition: str,
        limit: int,
        after: str | None = None,
        before: str | None = None,
        between: tuple[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """Up to `limit` index entries of a partition in rank order (or the nearest before a key, closest first)."""
        ...

    def count_range(self, partition: str, lo: str, hi_inclusive: str, at_most: int | None = None) -> int: ...

    def index_keys(self, partition: str, lo: str, hi_inclusive: str, at_most: int | None = None) -> list[str]: ...

    def delete_partition(self, partition: str, budget: int) -> Purged:
        """Delete up to `budget` items of an index partition (a deleted board's)."""
        ...

    def delete(self, pairs: Pairs) -> int:
        """Delete items of the scores table by (partition key, sort key)."""
        ...

    def keys_in_partition(self, partition_key: str) -> list[tuple[str, str]]: ...


class ErasureStore(Protocol):
    """An erasure's item (keyed by a hash of the id) with its lease, the audit record, and the scheduled list."""

    def state(self, key: ErasureKey) -> dict[str, Any] | None: ...

    def create(self, key: ErasureKey, values: dict[str, Any], lease_until: int) -> bool: ...

    def claim(self, key: ErasureKey, now_s: int, lease_until: int) -> dict[str, Any] | None: ...

    def save_state(self, key: ErasureKey, values: dict[str, Any]) -> None: ...

    def release(self, key: ErasureKey) -> None: ...

    def drop_state(self, key: ErasureKey) -> None: ...

    def put_audit(self, erasure_id: str, values: dict[str, Any]) -> None: ...

    def audit(self, erasure_id: str) -> dict[str, Any] | None: ...

    def drop_audit(self, erasure_id: str) -> None: ...

    def update_audit(self, erasure_id: str, values: dict[str, Any]) -> None: ...

    def register(self, key: ErasureKey, erasure_id: str, due: int) -> None: ...

    def due(self, now_s: int, limit: int) -> list[dict[str, Any]]: ...

    def unregister(self, erasure_id: str, due: int) -> None: ...

    def put_token_floor(self, key: ErasureKey, not_before: int, until: int) -> None:
        """Tokens of the key's player issued at or before `not_before` (epoch seconds) are refused; the item may go
        (table TTL) at `until`, once every such token has expired. A later floor replaces an earlier one."""
        ...

    def token_floor(self, key: ErasureKey) -> int | None:
        """The player's token floor (strongly consistent), None if there is none."""
        ...


class CounterStore(Protocol):
    """Where the rank counters live (data/counters.py: DynamoDB, or in memory). Only the stream consumer
    (operations/counter_upkeep.py) writes them; `level` is item_keys.BUCKETS or item_keys.BANDS."""

    def read(
        self, partition: str, level: int, *, consistent: bool = False, lo: str | None = None, hi: str | None = None
    ) -> list[Counter]:
        """One level's counters of an index partition in key order: all, or those whose range starts in [lo, hi]."""
        ...

    def create_first(self, partition: str, expires_at: int | None) -> None:
        """The first bucket and band, each covering every key and counting nothing (unless made already)."""
        ...

    def claim(self, partition: str, level: int, counter: Counter) -> int | None:
        """Start a recount: the counter's next generation, or None if its range changed (it was split)."""
        ...

    def store(self, partition: str, level: int, counter: Counter, gen: int, count: int) -> bool:
        """Store a recount made under `gen`, unless the range changed or a later recount was stored already."""
        ...

    def split(self, partition: str, level: int, counter: Counter, gen: int, pieces: list[tuple[str, int]]) -> bool:
        """Cut the range at the pieces' starts (the first at counter.lo), all or nothing; conditions as store()."""
        ...

    def replace_all(self, partition: str, level: int, counters: list[Counter]) -> None:
        """Replace one level of a partition's counters wholesale (rebuilds after bulk loads; board purges)."""
        ...
