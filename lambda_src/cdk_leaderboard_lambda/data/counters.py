"""Rank counters: items that count the index entries of a key range (see rank_counters.py and counter_upkeep.py).

One item per range: partition key item_keys.counter_partition(index partition, level), sort key = the range's first
key, attributes hi (the range's end, exclusive), entries, gen, counted_gen and the period's expires_at.
Only the stream consumer (counter_upkeep.py) writes them, with single-item conditional updates; a split is the one
transaction.

Two implementations of ports.CounterStore, held to the same behaviour by tests/contract: the DynamoDB one (what
every function uses: `make bench` counts its requests) and an in-memory one (for domain tests that need no engine).
"""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from botocore.exceptions import ClientError

from ..shared import item_keys, schema
from ..shared.attribute_values import to_item
from ..shared.model import Counter
from . import dynamo, memory

_SORT = schema.SCORES_SORT_KEY
_NEWER_THAN_STORED = "hi = :hi AND (attribute_not_exists(counted_gen) OR counted_gen < :g)"


def _counter(item: dict[str, Any]) -> Counter:
    return Counter(
        lo=item[_SORT],
        hi=item["hi"],
        count=item.get("entries", 0),
        gen=item.get("gen", 0),
        counted_gen=item.get("counted_gen", 0),
        expires_at=item.get(schema.TTL_ATTRIBUTE),
    )


def _item(partition: str, level: int, c: Counter) -> dict:
    return to_item(
        {
            schema.SCORES_PARTITION_KEY: item_keys.counter_partition(partition, level),
            _SORT: c.lo,
            "hi": c.hi,
            "entries": c.count,
            "gen": c.gen,
            "counted_gen": c.counted_gen,
            schema.TTL_ATTRIBUTE: c.expires_at,
        }
    )


def _first_and_ends(counter: Counter, pieces: list[tuple[str, int]]) -> list[str]:
    """Where each piece of a split ends: at the next one's start, the last at the counter's end."""
    assert pieces[0][0] == counter.lo
    return [start for start, _ in pieces[1:]] + [counter.hi]


class DynamoCounters:
    """The counters as items of the scores table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def read(
        self, partition: str, level: int, *, consistent: bool = False, lo: str | None = None, hi: str | None = None
    ) -> list[Counter]:
        """One level's counters of an index partition in key order: all, or those whose range starts in [lo, hi].
        One Query (a page per MB)."""
        condition = f"{schema.SCORES_PARTITION_KEY} = :p"
        values: dict[str, str | None] = {":p": item_keys.counter_partition(partition, level)}
        if lo is not None:
            condition += f" AND {_SORT} BETWEEN :lo AND :hi"
            values.update({":lo": lo, ":hi": hi})
        items = dynamo.query_items(
            on=self._client,
            TableName=self._table,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=to_item(values),
            ConsistentRead=consistent,
        )
        return [_counter(i) for i in items]

    def create_first(self, partition: str, expires_at: int | None) -> None:
        """The first bucket and band of an index partition, each covering every key, counting nothing yet."""
        whole = Counter(item_keys.FIRST_LO, item_keys.LAST_HI, 0, expires_at=expires_at)
        for level in (item_keys.BUCKETS, item_keys.BANDS):
            try:
                self._client.put_item(
                    TableName=self._table,
                    Item=_item(partition, level, whole),
                    ConditionExpression=f"attribute_not_exists({_SORT})",
                )
            except self._client.exceptions.ConditionalCheckFailedException:
                pass  # another consumer made it first

    def claim(self, partition: str, level: int, counter: Counter) -> int | None:
        """Start a recount: the counter's next generation, or None if its range changed (it was split)."""
        try:
            resp = self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(item_keys.counter_partition(partition, level), counter.lo),
                UpdateExpression="ADD gen :one",
                ConditionExpression="hi = :hi",
                ExpressionAttributeValues=to_item({":one": 1, ":hi": counter.hi}),
                ReturnValues="UPDATED_NEW",
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            return None
        return int(resp["Attributes"]["gen"]["N"])

    def store(self, partition: str, level: int, counter: Counter, gen: int, count: int) -> bool:
        """Store a recount made under `gen`, unless the range changed or a later recount was stored already."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(item_keys.counter_partition(partition, level), counter.lo),
                UpdateExpression="SET entries = :n, counted_gen = :g",
                ConditionExpression=_NEWER_THAN_STORED,
                ExpressionAttributeValues=to_item({":n": count, ":g": gen, ":hi": counter.hi}),
            )
            return True
        except self._client.exceptions.ConditionalCheckFailedException:
            return False

    def split(self, partition: str, level: int, counter: Counter, gen: int, pieces: list[tuple[str, int]]) -> bool:
        """Cut the counter's range at the given starts: pieces = [(start, count)], the first starting at counter.lo.

        One transaction: the first piece keeps the item, the others are new items; same conditions as store().
        """
        ends = _first_and_ends(counter, pieces)
        actions: list[dict] = [
            {
                "Update": {
                    "TableName": self._table,
                    "Key": dynamo.key(item_keys.counter_partition(partition, level), counter.lo),
                    "UpdateExpression": "SET hi = :end, entries = :n, counted_gen = :g",
                    "ConditionExpression": _NEWER_THAN_STORED,
                    "ExpressionAttributeValues": to_item(
                        {":end": ends[0], ":n": pieces[0][1], ":g": gen, ":hi": counter.hi}
                    ),
                }
            }
        ]
        for (start, count), end in zip(pieces[1:], ends[1:], strict=True):
            piece = Counter(start, end, count, gen=gen, counted_gen=gen, expires_at=counter.expires_at)
            actions.append(
                {
                    "Put": {
                        "TableName": self._table,
                        "Item": _item(partition, level, piece),
                        "ConditionExpression": f"attribute_not_exists({_SORT})",
                    }
                }
            )
        try:
            dynamo.transact(actions, on=self._client)
            return True
        except dynamo.Cancelled:
            return False

    def replace_all(self, partition: str, level: int, counters: list[Counter]) -> None:
        """Replace one level of a partition's counters wholesale (rebuilds after bulk loads; board purges)."""
        old = [c.lo for c in self.read(partition, level, consistent=True)]
        counter_partition = item_keys.counter_partition(partition, level)
        new = {c.lo for c in counters}
        on = (self._client, self._table)
        deletes = ({"DeleteRequest": {"Key": dynamo.key(counter_partition, lo)}} for lo in old if lo not in new)
        dynamo.batch_write(deletes, on=on)
        dynamo.batch_write(({"PutRequest": {"Item": _item(partition, level, c)}} for c in counters), on=on)


class MemoryCounters:
    """The same counters in a dict of this instance, by their scores-table key (no TTL: a test's periods are few)."""

    def __init__(self) -> None:
        self._items: dict[memory.Key, Counter] = {}
        self._lock = threading.Lock()

    def read(
        self, partition: str, level: int, *, consistent: bool = False, lo: str | None = None, hi: str | None = None
    ) -> list[Counter]:
        if lo is not None and (hi is None or hi < lo):  # DynamoDB refuses such a BETWEEN as a ValidationException
            error = {"Code": "ValidationException", "Message": "BETWEEN: the upper bound is below the lower one"}
            raise ClientError({"Error": error}, "Query")
        counted = item_keys.counter_partition(partition, level)
        with self._lock:
            found = sorted((k[1], c) for k, c in self._items.items() if k[0] == counted)
        return [c for start, c in found if lo is None or (hi is not None and lo <= start <= hi)]

    def create_first(self, partition: str, expires_at: int | None) -> None:
        whole = Counter(item_keys.FIRST_LO, item_keys.LAST_HI, 0, expires_at=expires_at)
        with self._lock:
            for level in (item_keys.BUCKETS, item_keys.BANDS):
                self._items.setdefault((item_keys.counter_partition(partition, level), whole.lo), whole)

    def claim(self, partition: str, level: int, counter: Counter) -> int | None:
        key = (item_keys.counter_partition(partition, level), counter.lo)
        with self._lock:
            found = self._items.get(key)
            if found is None or found.hi != counter.hi:
                return None
            self._items[key] = replace(found, gen=found.gen + 1)
            return found.gen + 1

    def _newer_than_stored(self, key: memory.Key, counter: Counter, gen: int) -> Counter | None:
        found = self._items.get(key)
        return found if found is not None and found.hi == counter.hi and found.counted_gen < gen else None

    def store(self, partition: str, level: int, counter: Counter, gen: int, count: int) -> bool:
        key = (item_keys.counter_partition(partition, level), counter.lo)
        with self._lock:
            found = self._newer_than_stored(key, counter, gen)
            if found is None:
                return False
            self._items[key] = replace(found, count=count, counted_gen=gen)
            return True

    def split(self, partition: str, level: int, counter: Counter, gen: int, pieces: list[tuple[str, int]]) -> bool:
        ends = _first_and_ends(counter, pieces)
        counted = item_keys.counter_partition(partition, level)
        with self._lock:  # all or nothing, as the transaction
            found = self._newer_than_stored((counted, counter.lo), counter, gen)
            if found is None or any((counted, start) in self._items for start, _ in pieces[1:]):
                return False
            self._items[(counted, counter.lo)] = replace(found, hi=ends[0], count=pieces[0][1], counted_gen=gen)
            for (start, count), end in zip(pieces[1:], ends[1:], strict=True):
                piece = Counter(start, end, count, gen=gen, counted_gen=gen, expires_at=counter.expires_at)
                self._items[(counted, start)] = piece
            return True

    def replace_all(self, partition: str, level: int, counters: list[Counter]) -> None:
        counted = item_keys.counter_partition(partition, level)
        with self._lock:
            for key in [k for k in self._items if k[0] == counted]:
                del self._items[key]
            self._items.update({(counted, c.lo): c for c in counters})
