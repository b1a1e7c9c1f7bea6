"""The entries in memory (ports.EntryStore), behaving as DynamoEntries does on DynamoDB for what the domain
relies on: conditional writes that refuse or pass as the same conditions would (all or none for a transaction),
the rank index's order (rank keys by code point, which is DynamoDB's UTF-8 byte order), its pages, counts and
projection, an erasure's fences in the entry places, and BatchWriteItem's refusal of one key twice in a batch.
Reads are strongly consistent, even those a caller allows to be eventually consistent.

get_for_submission reads the moderation, board and erasure stores of the same runtime (given when it builds the
stores, composition.in_memory_stores), as DynamoDB reads those items in the same request. Their writes take part in
a unit of work (write_ops) under the lock they share with it and the other stores taking part (data/unit_of_work.py),
as DynamoDB commits them in one transaction. Each change of an item is written to `stream` (data/memory_stream.py), as
a table's stream holds it."""

from __future__ import annotations

import copy
import threading
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from ..domain.entry_store import Changed, erasure_stands, is_fence, position
from ..domain.ports import KeptBest, Purged, SubmissionRead
from ..shared import item_keys, schema
from ..shared.model import Entry, EntryWrite, rank_key_attribute
from . import dynamo, memory
from .entries import fence, forgotten_operations, keep_best_loop, new_item
from .unit_of_work import MemoryUnitOfWork, MemoryWrites

if TYPE_CHECKING:
    from ..domain.digest_key import DigestKey
    from ..domain.ports import BoardStore, ModerationStore
    from ..shared.clock import Clock
    from .erasures import MemoryErasures
    from .memory_stream import MemoryStream

_PK, _SK, _RANK = schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY, schema.RANK_INDEX_SORT_KEY
# What the rank index holds of an item: its keys, the table's keys and the projected attributes (INCLUDE).
_PROJECTED = frozenset({_PK, _SK, _RANK, schema.RANK_INDEX_PARTITION_KEY, *schema.RANK_INDEX_PROJECTED})


def _duplicates(operation: str) -> ClientError:
    error = {"Code": "ValidationException", "Message": "Provided list of item keys contains duplicates"}
    return ClientError({"Error": error}, operation)


class MemoryEntries:
    """The entry items (and fences) in a dict of this instance, by their scores-table key."""

    def __init__(
        self,
        moderation: ModerationStore,
        boards: BoardStore,
        erasures: MemoryErasures,
        stream: MemoryStream,
        lock: Any | None = None,
    ) -> None:
        self._moderation, self._boards, self._erasures = moderation, boards, erasures
        self.stream = stream  # the scores table's stream, for the entries (what the stream consumers read)
        self._items: dict[memory.Key, dict[str, Any]] = {}
        # Reentrant, and shared with the unit of work and the other stores that commit with these (in_memory_stores).
        self._lock = lock if lock is not None else threading.RLock()
        self._clock: Clock | None = None  # a runtime's (bound_to), as DynamoEntries gets them in its constructor
        self._digest_key: DigestKey | None = None

    def bound_to(self, clock: Clock, digest_key: DigestKey) -> MemoryEntries:
        """These entries (the same items, lock and stream) as read by a runtime with this clock and digest key:
        Runtime.build binds the in-memory entries it is given, and a runtime rebuilt with another clock binds them
        again (tests' settable clocks), while in_memory_stores() makes them before any runtime exists."""
        bound = copy.copy(self)
        bound._clock, bound._digest_key = clock, digest_key
        return bound

    def _put(self, key: memory.Key, item: dict[str, Any] | None) -> None:
        """Store `item` at `key` (None: delete it), and the change in the stream (under the lock: in order)."""
        old = self._items.pop(key, None) if item is None else self._items.get(key)
        if item is not None:
            self._items[key] = item
        self.stream.changed(key, old, item)

    # --- reads by key ---

    def _copy(self, key: memory.Key) -> dict[str, Any] | None:
        found = self._items.get(key)
        return dict(found) if found is not None else None

    def get(self, pairs: Iterable[tuple[str, str]]) -> dict[tuple[str, str], dict[str, Any]]:
        with self._lock:
            found = {k: self._copy(k) for k in dict.fromkeys(pairs)}
        return {k: i for k, i in found.items() if i is not None and not is_fence(i)}

    def get_for_submission(
        self, pairs: Iterable[tuple[str, str]], board_id: str, *, stored_board: bool, consistent: bool = True
    ) -> SubmissionRead:
        pairs = list(dict.fromkeys(pairs))
        players = list(dict.fromkeys(p for p, _ in pairs))
        with self._lock:
            items = {k: i for k in pairs if (i := self._copy(k)) is not None}
        if self._clock is None or self._digest_key is None:
            raise RuntimeError("in-memory entries read by no runtime: Runtime.build binds them (bound_to)")
        now_s, secret = int(self._clock.now().timestamp()), self._digest_key.value()
        for player in players:
            found = self._erasures.item(item_keys.erasing_key(secret, player))
            if found is not None and erasure_stands(found, now_s):
                items.update({(p, part): fence(p, part, 0) for p, part in pairs if p == player})
        hidden = {p for _, p in self._moderation.hidden_among((board_id, p) for p in players)}
        board_item = self._boards.get(board_id) if stored_board else None
        return SubmissionRead(items, hidden, board_item)

    def one(self, player_id: str, partition: str) -> dict[str, Any] | None:
        with self._lock:
            item = self._copy((player_id, partition))
        return None if is_fence(item) else item

    # --- conditional writes ---

    def write(self, writes: list[EntryWrite]) -> None:
        MemoryUnitOfWork(self._lock).commit(self.write_ops(writes))  # all or none, as one UpdateItem or transaction

    def write_ops(self, writes: list[EntryWrite]) -> MemoryWrites:
        writes = list(writes)

        def as_read() -> Exception | None:
            return None if all(self._as_read(w) for w in writes) else Changed()

        def apply() -> None:
            for w in writes:
                self._apply(w)

        return MemoryWrites(self._lock, (as_read,), apply, len(writes))

    def _as_read(self, w: EntryWrite) -> bool:
        item = self._items.get((w.entry.player_id, w.entry.leaderboard_id)) or {}
        if w.expected is None:
            return "score" not in item and schema.ERASING_MARK not in item
        expected = position(w.expected)
        return expected is not None and expected in (item.get(_RANK), item.get(schema.HIDDEN_RANK_KEY))

    def _apply(self, w: EntryWrite) -> None:
        key = (w.entry.player_id, w.entry.leaderboard_id)
        item = {_PK: key[0], _SK: key[1], **self._items.get(key, {})}
        item.update({k: v for k, v in w.entry.attributes(w.hidden).items() if v is not None})
        item.pop(rank_key_attribute(not w.hidden), None)
        if w.operation:
            if w.expected is None or "ops" not in w.expected:
                item["ops"] = {w.operation: w.operation_expires}
            else:
                ops = dict(item.get("ops") or {})
                ops[w.operation] = w.operation_expires
                for old in forgotten_operations(dict(w.expected.get("ops") or {})):
                    ops.pop(old, None)
                item["ops"] = ops
        self._put(key, memory.stored(item))

    def keep_best(self, entry: Entry, *, descending: bool, name_given: bool, hidden: bool = False) -> KeptBest:
        return keep_best_loop(self._keep_best_once, entry, descending, name_given, hidden)

    def _keep_best_once(
        self, entry: Entry, descending: bool, name_given: bool, hidden: bool
    ) -> tuple[bool, dict[str, Any]]:
        key = (entry.player_id, entry.leaderboard_id)
        with self._lock:
            old = dict(self._items.get(key) or {})
            better = "score" in old and (old["score"] < entry.score if descending else old["score"] > entry.score)
            if hidden:
                passes = "score" not in old or (schema.HIDDEN_RANK_KEY in old and better)
            else:
                passes = ("score" not in old or better) and schema.HIDDEN_RANK_KEY not in old
            if not passes or schema.ERASING_MARK in old:
                return False, old
            item = {_PK: key[0], _SK: key[1], **old}
            item.update({k: v for k, v in entry.attributes(hidden).items() if v is not None and k != "player_name"})
            if name_given or "player_name" not in old:
                item["player_name"] = entry.player_name
            self._put(key, memory.stored({k: v for k, v in item.items() if v is not None}))
            return True, old

    def set_hidden(self, player_id: str, partition: str, item: dict[str, Any], *, hidden: bool) -> None:
        source, target = rank_key_attribute(not hidden), rank_key_attribute(hidden)
        with self._lock:
            stored = self._items.get((player_id, partition))
            if stored is None or source not in stored or stored[source] != position(item):
                raise Changed()
            moved = {k: v for k, v in stored.items() if k != source}
            self._put((player_id, partition), {**moved, target: stored[source]})

    # --- a player's partition ---

    def _of_partition(self, partition_key: str) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(self._items[k]) for k in sorted(k for k in self._items if k[0] == partition_key)]

    def of_player(self, player_id: str) -> list[dict[str, Any]]:
        return [i for i in self._of_partition(player_id) if not is_fence(i)]

    def of_player_on(self, player_id: str, board_id: str) -> list[dict[str, Any]]:
        return [e for e in self.of_player(player_id) if item_keys.board_and_period(e[_SK])[0] == board_id]

    def keys_of_player_on(self, player_id: str, board_id: str) -> list[tuple[str, str]]:
        return [(player_id, e[_SK]) for e in self.of_player_on(player_id, board_id)]

    def partitions_of(self, player_id: str) -> list[str]:
        return [i[_SK] for i in self._of_partition(player_id)]

    def keys_in_partition(self, partition_key: str) -> list[tuple[str, str]]:
        return [(partition_key, i[_SK]) for i in self._of_partition(partition_key)]

    def page_of_player(self, player_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        found = [i for i in self._of_partition(player_id) if after is None or i[_SK] > after]
        return found[:limit], len(found) >= limit  # a Query that fills its Limit has a LastEvaluatedKey

    # --- puts and deletes in batches ---

    def _batch(self, operation: str, keyed: Iterable[tuple[memory.Key, dict[str, Any] | None]]) -> int:
        """BatchWriteItem in chunks of 25 (a chunk naming one key twice is refused whole); None deletes."""
        requests = list(keyed)
        written = 0
        for start in range(0, len(requests), dynamo.BATCH_WRITE_SIZE):
            chunk = requests[start : start + dynamo.BATCH_WRITE_SIZE]
            if len({k for k, _ in chunk}) < len(chunk):
                raise _duplicates(operation)
            with self._lock:
                for key, item in chunk:
                    self._put(key, None if item is None else memory.stored(item))
            written += len(chunk)
        return written

    def put_new(self, entries: Iterable[Entry]) -> int:
        return self._batch("BatchWriteItem", (((e.player_id, e.leaderboard_id), new_item(e)) for e in entries))

    def raise_fence(
        self, player_id: str, partitions: Iterable[str], until: int, extra: Mapping[str, dict[str, Any]] | None = None
    ) -> int:
        extra = extra or {}
        fences = (
            ((player_id, part), {**extra.get(part, {}), **fence(player_id, part, until)})
            for part in dict.fromkeys(partitions)
        )
        return self._batch("BatchWriteItem", fences)

    def lift_fence(self, player_id: str) -> int:
        return self.delete(self.keys_in_partition(player_id))

    def delete(self, pairs: Iterable[tuple[str, str]]) -> int:
        return self._batch("BatchWriteItem", (((p, s), None) for p, s in pairs))

    # --- the rank index ---

    def _index(self, partition: str) -> list[dict[str, Any]]:
        """The index partition's entries in rank order, as the index projects them."""
        with self._lock:
            listed = [i for i in self._items.values() if i.get(schema.RANK_INDEX_PARTITION_KEY) == partition]
            listed = [{k: v for k, v in i.items() if k in _PROJECTED} for i in listed if _RANK in i]
        return sorted(listed, key=lambda i: i[_RANK])

    def _range(self, partition: str, lo: str, hi_inclusive: str) -> list[dict[str, Any]]:
        return [i for i in self._index(partition) if lo <= i[_RANK] <= hi_inclusive]

    def page(
        self,
        partition: str,
        limit: int,
        after: str | None = None,
        before: str | None = None,
        between: tuple[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        if between is not None:
            low = max(between[0], after + "\x00") if after is not None else between[0]
            return self._range(partition, low, between[1])[:limit]
        if after is not None:
            return [i for i in self._index(partition) if i[_RANK] > after][:limit]
        if before is not None:
            return [i for i in reversed(self._index(partition)) if i[_RANK] < before][:limit]
        return self._index(partition)[:limit]

    def count_range(self, partition: str, lo: str, hi_inclusive: str, at_most: int | None = None) -> int:
        counted = len(self._range(partition, lo, hi_inclusive)) if lo <= hi_inclusive else 0
        return min(counted, at_most) if at_most else counted

    def index_keys(self, partition: str, lo: str, hi_inclusive: str, at_most: int | None = None) -> list[str]:
        found = [i[_RANK] for i in self._range(partition, lo, hi_inclusive)]
        return found[:at_most] if at_most else found

    def delete_partition(self, partition: str, budget: int) -> Purged:
        deleted = 0
        while deleted < budget:
            found = [(i[_PK], partition) for i in self._index(partition)[: min(100, budget - deleted)]]
            if not found:
                return Purged(deleted, done=True)
            deleted += self.delete(found)
        return Purged(deleted, done=False)
