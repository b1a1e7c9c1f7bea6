"""Erasure records, none of which names the player once the erasure has answered "erased":

- the erasure's item, keyed by a keyed hash of the player's id (keys.erasing_key): its state while it runs (then
  it holds the id, as the player's entries still do) and, after, its fence until lifted: every submission's read
  finds it in the same request as the entries (data.entries.get_for_submission) and refuses while it stands;
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


# One call at a time works on an erasure (the admin's DELETE and the scheduled job may overlap): a call that
# raised the entry places' fences again after another had lifted them and answered "erased" left them holding
# the id. A call holds the erasure's lease from its first write (create or claim) to its last (save_state).
LEASE = "lease_until"


def create(key: Key, values: dict[str, Any], lease_until: int) -> bool:
    """Put a new erasure's state, leased to this call; False if another call put one first."""
    item = dynamo.key(*key) | dynamo.to_item({**_stored(values), LEASE: lease_until})
    try:
        dynamo.client().put_item(
            TableName=dynamo.scores_table(),
            Item=item,
            ConditionExpression=f"attribute_not_exists({schema.SCORES_PARTITION_KEY})",
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False
    return True


def claim(key: Key, now_s: int, lease_until: int) -> dict[str, Any] | None:
    """Lease an existing erasure to this call and return its state; None if another call holds it (or it is gone)."""
    try:
        resp = dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(*key),
            UpdateExpression=f"SET {LEASE} = :until",
            ConditionExpression=(
                f"attribute_exists({schema.SCORES_PARTITION_KEY}) "
                f"AND (attribute_not_exists({LEASE}) OR {LEASE} <= :now)"
            ),
            ExpressionAttributeValues=dynamo.to_item({":until": lease_until, ":now": now_s}),
            ReturnValues="ALL_NEW",
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return None
    return dynamo.from_item(resp["Attributes"])


def save_state(key: Key, values: dict[str, Any]) -> None:
    """The call's last write to the erasure's state: it releases the lease."""
    item = dynamo.key(*key) | dynamo.to_item(_stored(values))
    dynamo.client().put_item(TableName=dynamo.scores_table(), Item=item)


def release(key: Key) -> None:
    """Give the lease up without a state to save (the call failed): the next call goes on from the last save."""
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(*key),
            UpdateExpression=f"REMOVE {LEASE}",
            ConditionExpression=f"attribute_exists({schema.SCORES_PARTITION_KEY})",
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass  # already gone: nothing holds it


def _stored(values: dict[str, Any]) -> dict[str, Any]:
    key_names = (schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY, LEASE)
    return {k: v for k, v in values.items() if v is not None and k not in key_names}


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


def drop_audit(erasure_id: str) -> None:
    dynamo.client().delete_item(TableName=dynamo.scores_table(), Key=dynamo.key(keys.ERASURES_PARTITION, erasure_id))


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
