"""Quarantined submissions (quarantine.py): items of the scores table outside the rank index (no rank key), so no
list, rank, total, snapshot, summary or live push sees them.

Each is two items written in one transaction: the submission under keys.pending_key(board, pending id), one
partition per board (the review queue is one Query a page), and a pointer under the player's
keys.pending_of_partition (their own lookup and an erasure find theirs with one Query). A decision claims the item
by one conditional write (`deciding`), so two decisions on one submission cannot both apply.
"""

from __future__ import annotations

from typing import Any

from .. import keys, schema
from . import dynamo

CLAIMED, MISSING, BUSY = "claimed", "missing", "busy"
POINTER_FIELDS = ("score", "rule", "submitted_at")  # what a player's own lookup shows of theirs


def _pointer_key(board_id: str, player_id: str, pending_id: str) -> tuple[str, str]:
    return keys.pending_of_partition(player_id), f"{board_id}#{pending_id}"


def put(board_id: str, pending_id: str, player_id: str, values: dict[str, Any]) -> None:
    partition, sort = keys.pending_key(board_id, pending_id)
    item = {schema.SCORES_PARTITION_KEY: partition, schema.SCORES_SORT_KEY: sort, "pending_player": player_id}
    pointer_partition, pointer_sort = _pointer_key(board_id, player_id, pending_id)
    pointer = {schema.SCORES_PARTITION_KEY: pointer_partition, schema.SCORES_SORT_KEY: pointer_sort}
    pointer |= {k: values[k] for k in POINTER_FIELDS}
    table = dynamo.scores_table()
    dynamo.transact(
        [
            {"Put": {"TableName": table, "Item": dynamo.to_item({**item, **values})}},
            {"Put": {"TableName": table, "Item": dynamo.to_item(pointer)}},
        ]
    )


def get(board_id: str, pending_id: str) -> dict[str, Any] | None:
    resp = dynamo.client().get_item(
        TableName=dynamo.scores_table(), Key=dynamo.key(*keys.pending_key(board_id, pending_id)), ConsistentRead=True
    )
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


def page_of_board(board_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` pending submissions of a board in pending-id order after `after`, and whether more follow.
    One strongly consistent Query (limit + 1 items of at most ~4 KB)."""
    return dynamo.page_after(keys.pending_key(board_id, "")[0], after, limit)


def of_player_on(player_id: str, board_id: str) -> list[dict[str, Any]]:
    """The player's pointers on one board (pending id order): one Query."""
    return [
        {**item, "pending_id": item[schema.SCORES_SORT_KEY].split("#", 1)[1]}
        for item in dynamo.query_items(
            TableName=dynamo.scores_table(),
            KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p AND begins_with({schema.SCORES_SORT_KEY}, :b)",
            ExpressionAttributeValues=dynamo.to_item(
                {":p": keys.pending_of_partition(player_id), ":b": f"{board_id}#"}
            ),
            ConsistentRead=True,
        )
    ]


def keys_of_player(player_id: str) -> list[tuple[str, str]]:
    """Every pending item of the player, on every board, and its pointer (an erasure deletes them all)."""
    found = []
    for item in dynamo.query_items(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
        ExpressionAttributeValues=dynamo.to_item({":p": keys.pending_of_partition(player_id)}),
        ProjectionExpression=f"{schema.SCORES_PARTITION_KEY}, {schema.SCORES_SORT_KEY}",
    ):
        board_id, pending_id = item[schema.SCORES_SORT_KEY].split("#", 1)
        found += [
            keys.pending_key(board_id, pending_id),
            (item[schema.SCORES_PARTITION_KEY], item[schema.SCORES_SORT_KEY]),
        ]
    return found


def keys_of_board(board_id: str) -> list[tuple[str, str]]:
    """Every pending item of a board and its pointer (deleting the board deletes them)."""
    found = []
    for item in dynamo.query_items(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
        ExpressionAttributeValues=dynamo.to_item({":p": keys.pending_key(board_id, "")[0]}),
        ProjectionExpression=f"{schema.SCORES_SORT_KEY}, pending_player",
    ):
        pending_id = item[schema.SCORES_SORT_KEY]
        found += [keys.pending_key(board_id, pending_id), _pointer_key(board_id, item["pending_player"], pending_id)]
    return found


def claim(board_id: str, pending_id: str, token: str) -> str:
    """Claim the submission for one decision: CLAIMED, MISSING (decided already, or never there) or BUSY (another
    decision holds it)."""
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(*keys.pending_key(board_id, pending_id)),
            UpdateExpression="SET deciding = :t",
            ConditionExpression="attribute_exists(pending_player) AND attribute_not_exists(deciding)",
            ExpressionAttributeValues=dynamo.to_item({":t": token}),
        )
        return CLAIMED
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return BUSY if get(board_id, pending_id) is not None else MISSING


def unclaim(board_id: str, pending_id: str, token: str) -> None:
    """Give a claim back (its decision failed part-way): the submission waits for a decision again."""
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(*keys.pending_key(board_id, pending_id)),
            UpdateExpression="REMOVE deciding",
            ConditionExpression="deciding = :t",
            ExpressionAttributeValues=dynamo.to_item({":t": token}),
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass


def drop(board_id: str, pending_id: str, player_id: str) -> None:
    """Delete the submission and its pointer (a claimed one: only its claimer calls this)."""
    pointer = _pointer_key(board_id, player_id, pending_id)
    table = dynamo.scores_table()
    dynamo.transact(
        [
            {"Delete": {"TableName": table, "Key": dynamo.key(*keys.pending_key(board_id, pending_id))}},
            {"Delete": {"TableName": table, "Key": dynamo.key(*pointer)}},
        ]
    )
