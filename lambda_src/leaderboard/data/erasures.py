"""Erasure records, none of which names the player once the erasure has answered "erased":

- the erasure's item, keyed by a keyed hash of the player's id (keys.erasing_key): its state while it runs (then
  it holds the id, as the player's entries still do) and, after, its fence until lifted: every submission's read
  finds it in the same request as the entries (data.entries.get_with) and refuses while it stands;
- one `#fences` item per erasure, sorted by when the scheduled job should look at it (go on with an erasure its
  caller left, or lift a fence): it holds the hashed key, not the id;
- the audit record that stays: the erasure's id and times, never the player.
"""

from __future__ import annotations

from typing import Any

from .. import keys, schema
from . import dynamo

Key = tuple[str, str]  # keys.erasing_key(player_id)


def state(key: Key) -> dict[str, Any] | None:
    resp = dynamo.client().get_item(TableName=dynamo.scores_table(), Key=dynamo.key(*key), ConsistentRead=True)
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


def save_state(key: Key, values: dict[str, Any]) -> None:
    item = dynamo.key(*key) | dynamo.to_item({k: v for k, v in values.items() if v is not None})
    dynamo.client().put_item(TableName=dynamo.scores_table(), Item=item)


def drop_state(key: Key) -> None:
    dynamo.client().delete_item(TableName=dynamo.scores_table(), Key=dynamo.key(*key))


def stands(item: dict[str, Any], now_s: int) -> bool:
    """Whether an erasure's item refuses submissions: while the erasure runs, and after until `fence_until`."""
    return "fence_until" not in item or int(item["fence_until"]) > now_s


def put_audit(erasure_id: str, values: dict[str, Any]) -> None:
    item = dynamo.key(keys.ERASURES_PARTITION, erasure_id) | dynamo.to_item(values)
    dynamo.client().put_item(TableName=dynamo.scores_table(), Item=item)


def audit(erasure_id: str) -> dict[str, Any] | None:
    resp = dynamo.client().get_item(
        TableName=dynamo.scores_table(), Key=dynamo.key(keys.ERASURES_PARTITION, erasure_id)
    )
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


def update_audit(erasure_id: str, values: dict[str, Any]) -> None:
    names = {f"#{k}": k for k in values}
    dynamo.client().update_item(
        TableName=dynamo.scores_table(),
        Key=dynamo.key(keys.ERASURES_PARTITION, erasure_id),
        UpdateExpression="SET " + ", ".join(f"#{k} = :{k}" for k in values),
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=dynamo.to_item({f":{k}": v for k, v in values.items()}),
    )


# The scheduled job's list: one item per erasure, sorted by when it is due, so one Query finds the due ones.


def _due_sort(due: int, erasure_id: str) -> str:
    return f"{due:012d}#{erasure_id}"


def register(key: Key, erasure_id: str, due: int) -> None:
    item = dynamo.key(keys.FENCES_PARTITION, _due_sort(due, erasure_id)) | dynamo.to_item(
        {"erasure_id": erasure_id, "erasing_key": list(key), "due": due}
    )
    dynamo.client().put_item(TableName=dynamo.scores_table(), Item=item)


def due(now_s: int, limit: int) -> list[dict[str, Any]]:
    resp = dynamo.client().query(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p AND {schema.SCORES_SORT_KEY} <= :due",
        ExpressionAttributeValues=dynamo.to_item({":p": keys.FENCES_PARTITION, ":due": f"{now_s:012d}~"}),
        ConsistentRead=True,
        Limit=limit,
    )
    return [dynamo.from_item(i) for i in resp.get("Items", [])]


def unregister(erasure_id: str, due: int) -> None:
    dynamo.client().delete_item(
        TableName=dynamo.scores_table(), Key=dynamo.key(keys.FENCES_PARTITION, _due_sort(int(due), erasure_id))
    )
