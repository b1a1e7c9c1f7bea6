"""Board configurations: items of the scores table under the partition keys.BOARDS_PARTITION, and their count
(one item, keys.BOARD_COUNT_KEY) that the deployment's cap (max_boards) is checked against."""

from __future__ import annotations

import random
import time
from typing import Any

from .. import keys, schema
from . import dynamo


def item_key(board_id: str) -> tuple[str, str]:
    """The (partition, sort) key of a board's item, to read it along with entries in one request."""
    return keys.BOARDS_PARTITION, board_id


CREATED, EXISTS, FULL, BUSY, DELETED, MISSING = "created", "exists", "full", "busy", "deleted", "missing"
_ATTEMPTS = 8  # transactions cancelled by another one on the count item (TransactionConflict): then BUSY
_COUNT = "boards"  # the count item's attribute


def put_counted(config: dict[str, Any], cap: int) -> str:
    """Create a board config and count it in ONE transaction: the board's put (only if no board has its id) and
    the count + 1 (only if below `cap`), so creates racing each other can never pass the cap. Returns CREATED,
    EXISTS, FULL or BUSY (every attempt cancelled by another transaction on the count: nothing stored)."""
    item = {schema.SCORES_PARTITION_KEY: keys.BOARDS_PARTITION, schema.SCORES_SORT_KEY: config["board_id"], **config}
    put = {
        "TableName": dynamo.scores_table(),
        "Item": dynamo.to_item(item),
        "ConditionExpression": f"attribute_not_exists({schema.SCORES_SORT_KEY})",
    }
    count = _count_update("+", f"{_COUNT} < :cap", {":cap": cap})
    return _counted({"Put": put}, count, CREATED, EXISTS, FULL)


def delete_counted(board_id: str) -> str:
    """Delete a board config and uncount it in ONE transaction. Returns DELETED, MISSING (no such board: nothing
    to delete) or BUSY (nothing deleted)."""
    delete = {
        "TableName": dynamo.scores_table(),
        "Key": dynamo.key(*item_key(board_id)),
        "ConditionExpression": f"attribute_exists({schema.SCORES_SORT_KEY})",
    }
    return _counted({"Delete": delete}, _count_update("-", f"{_COUNT} > :zero", {":zero": 0}), DELETED, MISSING, None)


def _count_update(sign: str, condition: str, values: dict[str, int]) -> dict[str, Any]:
    return {
        "Update": {
            "TableName": dynamo.scores_table(),
            "Key": dynamo.key(*keys.BOARD_COUNT_KEY),
            "UpdateExpression": f"SET {_COUNT} = {_COUNT} {sign} :one",
            "ConditionExpression": condition,
            "ExpressionAttributeValues": dynamo.to_item({":one": 1, **values}),
        }
    }


def _counted(board_action: dict, count_action: dict, done: str, board_refused: str, count_refused: str | None) -> str:
    for attempt in range(_ATTEMPTS):
        try:
            dynamo.transact([board_action, count_action])
            return done
        except dynamo.Cancelled as err:
            board_reason, count_reason = (err.reasons + ["None", "None"])[:2]
        if board_reason == "ConditionalCheckFailed":
            return board_refused
        if count_reason == "ConditionalCheckFailed":
            if _count_item() is not None and count_refused is not None:
                return count_refused
            _initialise_count()  # a deployment from before the count (or a count gone): count the boards once
            continue
        time.sleep(random.uniform(0, min(0.5, 0.02 * 2**attempt)))  # TransactionConflict: let the other commit
    return BUSY


def _count_item() -> dict[str, Any] | None:
    resp = dynamo.client().get_item(
        TableName=dynamo.scores_table(), Key=dynamo.key(*keys.BOARD_COUNT_KEY), ConsistentRead=True
    )
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


def _initialise_count() -> None:
    """Put the count item from the board items there are, unless another call put it first. Nothing changes the
    boards meanwhile: every create and delete needs the count item in its transaction."""
    try:
        dynamo.client().put_item(
            TableName=dynamo.scores_table(),
            Item=dynamo.key(*keys.BOARD_COUNT_KEY) | dynamo.to_item({_COUNT: count()}),
            ConditionExpression=f"attribute_not_exists({_COUNT})",
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass


def replace(config: dict[str, Any]) -> bool:
    """Put a board's changed config over its item, unless the board is gone or being deleted (then False)."""
    item = {schema.SCORES_PARTITION_KEY: keys.BOARDS_PARTITION, schema.SCORES_SORT_KEY: config["board_id"], **config}
    try:
        dynamo.client().put_item(
            TableName=dynamo.scores_table(),
            Item=dynamo.to_item(item),
            ConditionExpression=f"attribute_exists({schema.SCORES_SORT_KEY}) AND "
            "(attribute_not_exists(#s) OR #s <> :deleting)",
            ExpressionAttributeNames={"#s": "status"},
            ExpressionAttributeValues=dynamo.to_item({":deleting": "deleting"}),
        )
        return True
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False


def get(board_id: str) -> dict[str, Any] | None:
    resp = dynamo.client().get_item(TableName=dynamo.scores_table(), Key=dynamo.key(*item_key(board_id)))
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


def count() -> int:
    """Stored board items (those being deleted too), strongly consistent. COUNT Queries: board items are ~1 KB, so
    up to ~1,000 boards fit DynamoDB's 1 MB page (more boards: a page each)."""
    counted = 0
    for page in dynamo.query_pages(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
        ExpressionAttributeValues=dynamo.to_item({":p": keys.BOARDS_PARTITION}),
        Select="COUNT",
        ConsistentRead=True,
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
