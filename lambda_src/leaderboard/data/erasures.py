"""Erasure records: the state of an erasure under way (it names the player, and is deleted when the erasure
ends) and the audit record that stays (an id and times, never the player)."""

from __future__ import annotations

from typing import Any

from .. import keys
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
