"""Closing summaries: one item per closed board period in the scores table, under keys.closings_partition, with
no TTL attribute, so a summary outlives its period's entries."""

from __future__ import annotations

from typing import Any

from .. import keys, schema
from . import dynamo

_SORT = schema.SCORES_SORT_KEY
_LISTED = ("period_id", "kind", "starts_at", "ends_at", "closed_at", "total_players")


def put_new(board_id: str, sort_key: str, summary: dict[str, Any]) -> bool:
    """Store a summary unless the period is closed already (the first closing wins); False if it was."""
    item = {**summary, schema.SCORES_PARTITION_KEY: keys.closings_partition(board_id), _SORT: sort_key}
    try:
        dynamo.client().put_item(
            TableName=dynamo.scores_table(),
            Item=dynamo.to_item(item),
            ConditionExpression=f"attribute_not_exists({_SORT})",
        )
        return True
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False


def get(board_id: str, sort_key: str) -> dict[str, Any] | None:
    key = dynamo.key(keys.closings_partition(board_id), sort_key)
    resp = dynamo.client().get_item(TableName=dynamo.scores_table(), Key=key, ConsistentRead=True)
    return _summary(dynamo.from_item(resp["Item"])) if "Item" in resp else None


def newest(board_id: str, limit: int) -> list[dict[str, Any]]:
    """A board's closed periods, the latest end first (without their top lists: one page of small reads)."""
    resp = dynamo.client().query(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
        ExpressionAttributeValues=dynamo.to_item({":p": keys.closings_partition(board_id)}),
        ProjectionExpression=", ".join(f"#{f}" for f in _LISTED),
        ExpressionAttributeNames={f"#{f}": f for f in _LISTED},
        ScanIndexForward=False,
        Limit=limit,
    )
    return [dynamo.from_item(i) for i in resp.get("Items", [])]


def claim_event(board_id: str, sort_key: str, now_s: int, lease_s: int) -> bool:
    """Take the sending of a closing's event for lease_s seconds: False if it went out, or another closing holds
    an unexpired claim (a claimer that died before sending is taken over once its lease ends)."""
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(keys.closings_partition(board_id), sort_key),
            UpdateExpression="SET event_claimed_until = :until",
            ConditionExpression="event_sent = :f AND (attribute_not_exists(event_claimed_until) OR "
            "event_claimed_until < :now)",
            ExpressionAttributeValues=dynamo.to_item({":until": now_s + lease_s, ":now": now_s, ":f": False}),
        )
        return True
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False


def mark_event_sent(board_id: str, sort_key: str) -> None:
    dynamo.client().update_item(
        TableName=dynamo.scores_table(),
        Key=dynamo.key(keys.closings_partition(board_id), sort_key),
        UpdateExpression="SET event_sent = :t",
        ExpressionAttributeValues=dynamo.to_item({":t": True}),
    )


def _summary(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in (schema.SCORES_PARTITION_KEY, _SORT)}


def page_of_board(board_id: str, start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
    """One page of a board's summaries, whole (erasure only: its cost grows with the board's history)."""
    args: dict[str, Any] = {
        "TableName": dynamo.scores_table(),
        "KeyConditionExpression": f"{schema.SCORES_PARTITION_KEY} = :p",
        "ExpressionAttributeValues": dynamo.to_item({":p": keys.closings_partition(board_id)}),
        "ConsistentRead": True,
        "Limit": limit,
    }
    if start:
        args["ExclusiveStartKey"] = start
    resp = dynamo.client().query(**args)
    return [dynamo.from_item(i) for i in resp.get("Items", [])], resp.get("LastEvaluatedKey")


def replace_players(item: dict[str, Any], top: list[dict[str, Any]], rewards: list[dict[str, Any]]) -> None:
    """Rewrite one stored summary's top and reward winners (erasure puts a placeholder in a player's place)."""
    dynamo.client().update_item(
        TableName=dynamo.scores_table(),
        Key=dynamo.key(item[schema.SCORES_PARTITION_KEY], item[_SORT]),
        UpdateExpression="SET #top = :top, rewards = :rewards",
        ConditionExpression=f"attribute_exists({_SORT})",
        ExpressionAttributeNames={"#top": "top"},
        ExpressionAttributeValues=dynamo.to_item({":top": top, ":rewards": rewards}),
    )
