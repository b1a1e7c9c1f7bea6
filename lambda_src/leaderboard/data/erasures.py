"""Erasure records: the state of an erasure under way (it names the player, and is deleted when the erasure
ends) and the audit record that stays (an id and times, never the player)."""

from __future__ import annotations

from typing import Any

from .. import keys, schema
from . import dynamo

_STATE_SORT = "state"


def state(player_id: str) -> dict[str, Any] | None:
    resp = dynamo.client().get_item(
        TableName=dynamo.scores_table(),
        Key=dynamo.key(keys.erasing_partition(player_id), _STATE_SORT),
        ConsistentRead=True,
    )
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


def save_state(player_id: str, values: dict[str, Any]) -> None:
    item = dynamo.key(keys.erasing_partition(player_id), _STATE_SORT) | dynamo.to_item(values)
    dynamo.client().put_item(TableName=dynamo.scores_table(), Item=item)


def drop_state(player_id: str) -> None:
    dynamo.client().delete_item(
        TableName=dynamo.scores_table(), Key=dynamo.key(keys.erasing_partition(player_id), _STATE_SORT)
    )


def put_audit(erasure_id: str, values: dict[str, Any]) -> None:
    item = dynamo.key(keys.ERASURES_PARTITION, erasure_id) | dynamo.to_item(values)
    dynamo.client().put_item(TableName=dynamo.scores_table(), Item=item)


def audit(erasure_id: str) -> dict[str, Any] | None:
    resp = dynamo.client().get_item(
        TableName=dynamo.scores_table(), Key=dynamo.key(keys.ERASURES_PARTITION, erasure_id)
    )
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


# Fences still up after an erasure answered: one item each, sorted by when it may be lifted, so the scheduled
# job finds the due ones with one Query. It names the player until the fence is lifted, then goes.


def _fence_sort(lift_after: int, erasure_id: str) -> str:
    return f"{lift_after:012d}#{erasure_id}"


def register_fence(player_id: str, erasure_id: str, lift_after: int) -> None:
    item = dynamo.key(keys.FENCES_PARTITION, _fence_sort(lift_after, erasure_id)) | dynamo.to_item(
        {"erasure_id": erasure_id, "subject": player_id, "lift_after": lift_after}
    )
    dynamo.client().put_item(TableName=dynamo.scores_table(), Item=item)


def fences_due(now_s: int, limit: int) -> list[dict[str, Any]]:
    resp = dynamo.client().query(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p AND {schema.SCORES_SORT_KEY} <= :due",
        ExpressionAttributeValues=dynamo.to_item({":p": keys.FENCES_PARTITION, ":due": f"{now_s:012d}~"}),
        ConsistentRead=True,
        Limit=limit,
    )
    return [dynamo.from_item(i) for i in resp.get("Items", [])]


def drop_fence(fence: dict[str, Any]) -> None:
    dynamo.client().delete_item(
        TableName=dynamo.scores_table(),
        Key=dynamo.key(keys.FENCES_PARTITION, _fence_sort(fence["lift_after"], fence["erasure_id"])),
    )


def update_audit(erasure_id: str, values: dict[str, Any]) -> None:
    names = {f"#{k}": k for k in values}
    dynamo.client().update_item(
        TableName=dynamo.scores_table(),
        Key=dynamo.key(keys.ERASURES_PARTITION, erasure_id),
        UpdateExpression="SET " + ", ".join(f"#{k} = :{k}" for k in values),
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=dynamo.to_item({f":{k}": v for k, v in values.items()}),
    )
