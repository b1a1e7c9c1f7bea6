"""Per-player submission counters: one small item per player, board and minute, removed by TTL."""

from __future__ import annotations

from .. import keys, schema
from . import dynamo


def take(player_id: str, board_id: str, minute: int, count: int, most: int, expires_at: int) -> bool:
    """Count `count` more submissions of the player on the board in this minute, unless that would pass `most`:
    ONE conditional UpdateItem, atomic, so concurrent submissions cannot exceed the limit together."""
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(keys.rate_partition(player_id), keys.rate_window(board_id, minute)),
            UpdateExpression=f"ADD submissions :n SET {schema.TTL_ATTRIBUTE} = :expires",
            ConditionExpression="attribute_not_exists(submissions) OR submissions <= :room",
            ExpressionAttributeValues=dynamo.to_item({":n": count, ":room": most - count, ":expires": expires_at}),
        )
        return True
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False


def give_back(player_id: str, board_id: str, minute: int, count: int) -> None:
    """Take back `count` of this minute's submissions; nothing if the minute's item is gone (its TTL passed)."""
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(keys.rate_partition(player_id), keys.rate_window(board_id, minute)),
            UpdateExpression="ADD submissions :minus",
            ConditionExpression="submissions >= :n",
            ExpressionAttributeValues=dynamo.to_item({":minus": -count, ":n": count}),
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass
