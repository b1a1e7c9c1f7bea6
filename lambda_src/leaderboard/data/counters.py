"""Rank counters: items that count the index entries of a key range (see ranking.py and counting.py).

One item per range: partition key keys.counter_partition(index partition, level), sort key = the range's first
key, attributes hi (the range's end, exclusive), entries, gen, counted_gen and the period's expires_at.
Only the stream consumer (counting.py) writes them, with single-item conditional updates; a split is the one
transaction.
"""

from __future__ import annotations

from typing import Any

from .. import keys, schema
from ..model import Counter
from . import dynamo

_SORT = schema.SCORES_SORT_KEY


def _counter(item: dict[str, Any]) -> Counter:
    return Counter(
        lo=item[_SORT],
        hi=item["hi"],
        count=item.get("entries", 0),
        gen=item.get("gen", 0),
        counted_gen=item.get("counted_gen", 0),
        expires_at=item.get(schema.TTL_ATTRIBUTE),
    )


def read(partition: str, level: int, consistent: bool = False, lo: str | None = None, hi: str | None = None):
    """One level's counters of an index partition in key order: all, or those whose range starts in [lo, hi]."""
    condition = f"{schema.SCORES_PARTITION_KEY} = :p"
    values: dict[str, str | None] = {":p": keys.counter_partition(partition, level)}
    if lo is not None:
        condition += f" AND {_SORT} BETWEEN :lo AND :hi"
        values.update({":lo": lo, ":hi": hi})
    items = dynamo.query_items(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=condition,
        ExpressionAttributeValues=dynamo.to_item(values),
        ConsistentRead=consistent,
    )
    return [_counter(i) for i in items]


def _item(partition: str, level: int, c: Counter) -> dict:
    return dynamo.to_item(
        {
            schema.SCORES_PARTITION_KEY: keys.counter_partition(partition, level),
            _SORT: c.lo,
            "hi": c.hi,
            "entries": c.count,
            "gen": c.gen,
            "counted_gen": c.counted_gen,
            schema.TTL_ATTRIBUTE: c.expires_at,
        }
    )


def create_first(partition: str, expires_at: int | None) -> None:
    """The first bucket and segment of an index partition, each covering every key, counting nothing yet."""
    whole = Counter(keys.FIRST_LO, keys.LAST_HI, 0, expires_at=expires_at)
    for level in (keys.BUCKETS, keys.SEGMENTS):
        try:
            dynamo.client().put_item(
                TableName=dynamo.scores_table(),
                Item=_item(partition, level, whole),
                ConditionExpression=f"attribute_not_exists({_SORT})",
            )
        except dynamo.client().exceptions.ConditionalCheckFailedException:
            pass  # another consumer made it first


def claim(partition: str, level: int, counter: Counter) -> int | None:
    """Start a recount: the counter's next generation, or None if its range changed (it was split)."""
    try:
        resp = dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(keys.counter_partition(partition, level), counter.lo),
            UpdateExpression="ADD gen :one",
            ConditionExpression="hi = :hi",
            ExpressionAttributeValues=dynamo.to_item({":one": 1, ":hi": counter.hi}),
            ReturnValues="UPDATED_NEW",
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return None
    return int(resp["Attributes"]["gen"]["N"])


_NEWER_THAN_STORED = "hi = :hi AND (attribute_not_exists(counted_gen) OR counted_gen < :g)"


def store(partition: str, level: int, counter: Counter, gen: int, count: int) -> bool:
    """Store a recount made under `gen`, unless the range changed or a later recount was stored already."""
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(keys.counter_partition(partition, level), counter.lo),
            UpdateExpression="SET entries = :n, counted_gen = :g",
            ConditionExpression=_NEWER_THAN_STORED,
            ExpressionAttributeValues=dynamo.to_item({":n": count, ":g": gen, ":hi": counter.hi}),
        )
        return True
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False


def split(partition: str, level: int, counter: Counter, gen: int, pieces: list[tuple[str, int]]) -> bool:
    """Cut the counter's range at the given starts: pieces = [(start, count)], the first starting at counter.lo.

    One transaction: the first piece keeps the item, the others are new items; same conditions as store().
    """
    ends = [start for start, _ in pieces[1:]] + [counter.hi]
    first_start, first_count = pieces[0]
    assert first_start == counter.lo
    actions: list[dict] = [
        {
            "Update": {
                "TableName": dynamo.scores_table(),
                "Key": dynamo.key(keys.counter_partition(partition, level), counter.lo),
                "UpdateExpression": "SET hi = :end, entries = :n, counted_gen = :g",
                "ConditionExpression": _NEWER_THAN_STORED,
                "ExpressionAttributeValues": dynamo.to_item(
                    {":end": ends[0], ":n": first_count, ":g": gen, ":hi": counter.hi}
                ),
            }
        }
    ]
    for (start, count), end in zip(pieces[1:], ends[1:], strict=True):
        piece = Counter(start, end, count, gen=gen, counted_gen=gen, expires_at=counter.expires_at)
        actions.append(
            {
                "Put": {
                    "TableName": dynamo.scores_table(),
                    "Item": _item(partition, level, piece),
                    "ConditionExpression": f"attribute_not_exists({_SORT})",
                }
            }
        )
    try:
        dynamo.transact(actions)
        return True
    except dynamo.Cancelled:
        return False


def replace_all(partition: str, level: int, counters: list[Counter]) -> None:
    """Replace one level of a partition's counters wholesale (rebuilds after bulk loads; board purges)."""
    old = [c.lo for c in read(partition, level, consistent=True)]
    counter_partition = keys.counter_partition(partition, level)
    new = {c.lo for c in counters}
    dynamo.batch_write({"DeleteRequest": {"Key": dynamo.key(counter_partition, lo)}} for lo in old if lo not in new)
    dynamo.batch_write({"PutRequest": {"Item": _item(partition, level, c)}} for c in counters)
