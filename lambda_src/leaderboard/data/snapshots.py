"""The append-only snapshot history (its own table: one board period's snapshots are one partition)."""

from __future__ import annotations

from typing import Any

from .. import invocation, schema
from . import dynamo


def put(snapshot: dict[str, Any]) -> None:
    """Append-only: the condition refuses to overwrite an existing snapshot."""
    dynamo.client().put_item(
        TableName=invocation.settings().snapshots_table,
        Item=dynamo.to_item(snapshot),
        ConditionExpression=f"attribute_not_exists({schema.SNAPSHOTS_SORT_KEY})",
    )


def put_once(snapshot: dict[str, Any]) -> bool:
    """put(), or False if that snapshot exists already (a closing retried after it was written)."""
    try:
        put(snapshot)
        return True
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False


def newest(leaderboard_id: str, limit: int) -> list[dict[str, Any]]:
    """A board period's snapshots, newest first: a Query on the partition, sort key descending."""
    resp = dynamo.client().query(
        TableName=invocation.settings().snapshots_table,
        KeyConditionExpression=f"{schema.SNAPSHOTS_PARTITION_KEY} = :b",
        ExpressionAttributeValues=dynamo.to_item({":b": leaderboard_id}),
        ScanIndexForward=False,
        Limit=limit,
    )
    return [dynamo.from_item(i) for i in resp.get("Items", [])]


def scan_page(start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
    """One page of the whole history (erasure only: its cost grows with the history, so it runs in steps)."""
    args: dict[str, Any] = {"TableName": invocation.settings().snapshots_table, "Limit": limit}
    if start:
        args["ExclusiveStartKey"] = start
    resp = dynamo.client().scan(**args)
    return [dynamo.from_item(i) for i in resp.get("Items", [])], resp.get("LastEvaluatedKey")


def replace_entries(snapshot: dict[str, Any], new_entries: list[dict[str, Any]]) -> None:
    """Rewrite one snapshot's entries (erasure replaces a player by a placeholder; nothing else changes them)."""
    dynamo.client().update_item(
        TableName=invocation.settings().snapshots_table,
        Key=dynamo.to_item({k: snapshot[k] for k in (schema.SNAPSHOTS_PARTITION_KEY, schema.SNAPSHOTS_SORT_KEY)}),
        UpdateExpression="SET entries = :e",
        ConditionExpression=f"attribute_exists({schema.SNAPSHOTS_SORT_KEY})",
        ExpressionAttributeValues=dynamo.to_item({":e": new_entries}),
    )
