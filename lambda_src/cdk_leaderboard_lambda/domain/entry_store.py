"""The entries' port: a player's score on one index partition, the rank index (GSI) over them, and the erasure
records that fence a player's entry places. What the domain knows of an entry item (is it a fence, hidden, where
it ranks) is here too, so the domain reads items without a data module.

Two implementations of each store, held to the same behaviour by tests/contract: data/entries.py (DynamoDB, what
every function uses) and data/memory_entries.py (in memory); data/erasures.py holds both erasure stores."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from ..shared import schema
from ..shared.errors import Conflict
from ..shared.model import Entry, EntryWrite

ErasureKey = tuple[str, str]  # keys.erasing_key(player_id)


class Changed(Exception):
    """An entry was changed by another writer between our read and our write: re-read and retry."""


class Erasing(Conflict):
    """The player is being erased: the entry's place holds the erasure's fence, and nothing is written."""

    def __init__(self, player_id: str) -> None:
        super().__init__("this player is being erased: nothing stored")  # the id would be kept in stored answers


def is_fence(item: Mapping[str, Any] | None) -> bool:
    """Whether an item in an entry's place is an erasure's fence (see schema.ERASING_MARK), not an entry."""
    return item is not None and schema.ERASING_MARK in item


def position(item: Mapping[str, Any]) -> str | None:
    """An entry's rank key, whether it is listed in the rank index or kept aside because the player is hidden."""
    return item.get(schema.RANK_INDEX_SORT_KEY) or item.get(schema.HIDDEN_RANK_KEY)


def is_hidden(item: Mapping[str, Any]) -> bool:
    return schema.HIDDEN_RANK_KEY in item


def applied(item: Mapping[str, Any] | None, operation: str | None) -> bool:
    """Whether a stored entry was written by this idempotent operation already."""
    return bool(operation and item and operation in (item.get("ops") or {}))


def erasure_stands(item: Mapping[str, Any], now_s: int) -> bool:
    """Whether an erasure's item refuses submissions: while the erasure runs, and after until `fence_until`."""
    return "fence_until" not in item or int(item["fence_until"]) > now_s


Pairs = Iterable[tuple[str, str]]  # (player id, index partition): an entry's table key


class EntryStore(Protocol):
    """Entries as items of the scores table, keyed (player id, index partition), and the rank index over them."""

    def get(self, pairs: Pairs) -> dict[tuple[str, str], dict[str, Any]]:
        """Strongly consistent entries by key; absent ones (and fences) are left out."""
        ...

    def get_for_submission(
        self, pairs: Pairs, board_id: str, stored_board: bool, consistent: bool = True
    ) -> tuple[dict, set[str], dict | None]:
        """get(), fences in their entry's place (every place of a player whose erasure item stands too), the
        players among them hidden on the board, and the board's stored item (None: gone, or not a stored board)."""
        ...

    def write(self, writes: list[EntryWrite], also: Sequence[dict[str, Any]] = ()) -> None:
        """Each entry only if it is still as read, all or none (Changed: nothing written); `also`: another store's
        DynamoDB actions to commit in the same transaction (TransactionBusy if DynamoDB cancels it for a conflict)."""
        ...

    def keep_best(
        self, entry: Entry, descending: bool, name_given: bool, hidden: bool = False
    ) -> tuple[bool, dict[str, Any], bool]:
        """Store the entry only if it beats the stored one: (changed, the item as it now stands, created)."""
        ...

    def set_hidden(self, player_id: str, partition: str, item: dict[str, Any], hidden: bool) -> None:
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

    def delete_partition(self, partition: str, budget: int) -> tuple[int, bool]: ...

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
