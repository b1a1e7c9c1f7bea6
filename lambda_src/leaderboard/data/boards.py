"""Board configurations: items of the scores table under the partition keys.BOARDS_PARTITION."""

from __future__ import annotations

from typing import Any

from .. import keys, schema
from . import dynamo


def item_key(board_id: str) -> tuple[str, str]:
    """The (partition, sort) key of a board's item, to read it along with entries in one request."""
    return keys.BOARDS_PARTITION, board_id


def put(config: dict[str, Any]) -> bool:
    """Create a board config; False if one with that id exists."""
    item = {schema.SCORES_PARTITION_KEY: keys.BOARDS_PARTITION, schema.SCORES_SORT_KEY: config["board_id"], **config}
    try:
        dynamo.client().put_item(
            TableName=dynamo.scores_table(),
            Item=dynamo.to_item(item),
            ConditionExpression=f"attribute_not_exists({schema.SCORES_SORT_KEY})",
        )
        return True
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False


def get(board_id: str) -> dict[str, Any] | None:
    resp = dynamo.client().get_item(TableName=dynamo.scores_table(), Key=dynamo.key(*item_key(board_id)))
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


def count() -> int:
    """Stored board items (those being deleted too). One COUNT Query: board items are ~1 KB, so up to ~1,000 boards
    fit DynamoDB's 1 MB page (more boards: a page each)."""
    counted = 0
    for page in dynamo.query_pages(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
        ExpressionAttributeValues=dynamo.to_item({":p": keys.BOARDS_PARTITION}),
        Select="COUNT",
    ):
        counted += page["Count"]
    return counted


def page(after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` board items in board-id order after board `after` (None: from the first), and whether more
    may follow. One Query (items of ~1 KB: 100 of them are one page)."""
    args: dict[str, Any] = {
        "TableName": dynamo.scores_table(),
        "KeyConditionExpression": f"{schema.SCORES_PARTITION_KEY} = :p",
        "ExpressionAttributeValues": dynamo.to_item({":p": keys.BOARDS_PARTITION}),
        "Limit": limit,
    }
    if after is not None:
        args["ExclusiveStartKey"] = dynamo.key(*item_key(after))
    resp = dynamo.client().query(**args)
    return [dynamo.from_item(i) for i in resp.get("Items", [])], "LastEvaluatedKey" in resp


def all_boards() -> list[dict[str, Any]]:
    return dynamo.query_items(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
        ExpressionAttributeValues=dynamo.to_item({":p": keys.BOARDS_PARTITION}),
    )


def set_status(board_id: str, status: str) -> None:
    dynamo.client().update_item(
        TableName=dynamo.scores_table(),
        Key=dynamo.key(*item_key(board_id)),
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},  # a DynamoDB reserved word
        ExpressionAttributeValues=dynamo.to_item({":s": status}),
    )


def delete(board_id: str) -> bool:
    try:
        dynamo.client().delete_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(*item_key(board_id)),
            ConditionExpression=f"attribute_exists({schema.SCORES_SORT_KEY})",
        )
        return True
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False
