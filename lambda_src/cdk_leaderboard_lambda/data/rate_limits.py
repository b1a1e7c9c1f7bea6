"""Per-player submission counters: one small item per player, board and minute, removed by TTL.

Two implementations of ports.RateLimitStore, held to the same behaviour by tests/contract: the DynamoDB one
(what every function uses) and an in-memory one (for domain tests that need no engine)."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..shared import item_keys, schema
from ..shared.attribute_values import to_item
from . import dynamo

if TYPE_CHECKING:
    from ..domain.digest_key import DigestKey


class DynamoRateLimits:
    """The counters as items of the scores table."""

    def __init__(self, client: Any, table: str, digest_key: DigestKey) -> None:
        self._client, self._table = client, table
        self._digest_key = digest_key  # the runtime's: it names the player's items

    def take(self, player_id: str, board_id: str, minute: int, count: int, most: int, expires_at: int) -> bool:
        """Count `count` more submissions of the player on the board in this minute, unless that would pass
        `most`: ONE conditional UpdateItem, atomic, so concurrent submissions cannot exceed the limit together."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(
                    item_keys.rate_partition(self._digest_key.value(), player_id),
                    item_keys.rate_window(board_id, minute),
                ),
                UpdateExpression=f"ADD submissions :n SET {schema.TTL_ATTRIBUTE} = :expires",
                ConditionExpression="attribute_not_exists(submissions) OR submissions <= :room",
                ExpressionAttributeValues=to_item({":n": count, ":room": most - count, ":expires": expires_at}),
            )
            return True
        except self._client.exceptions.ConditionalCheckFailedException:
            return False

    def give_back(self, player_id: str, board_id: str, minute: int, count: int) -> None:
        """Take back `count` of this minute's submissions; nothing if the minute's item is gone (its TTL passed)."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(
                    item_keys.rate_partition(self._digest_key.value(), player_id),
                    item_keys.rate_window(board_id, minute),
                ),
                UpdateExpression="ADD submissions :minus",
                ConditionExpression="submissions >= :n",
                ExpressionAttributeValues=to_item({":minus": -count, ":n": count}),
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            pass

    def forget_player(self, player_id: str) -> None:
        """Delete the player's counter items: one Query of the keys of their partition (every board and minute),
        then BatchWriteItem, 25 keys a request."""
        on = (self._client, self._table)
        dynamo.delete_keys(
            dynamo.keys_in_partition(item_keys.rate_partition(self._digest_key.value(), player_id), on=on),
            on=on,
        )


class MemoryRateLimits:
    """The same counters in a dict of this instance (no TTL: a test's minutes are few)."""

    def __init__(self) -> None:
        self._counts: dict[tuple[str, str, int], int] = {}
        self._lock = threading.Lock()

    def take(self, player_id: str, board_id: str, minute: int, count: int, most: int, expires_at: int) -> bool:
        with self._lock:
            key = (player_id, board_id, minute)
            if key in self._counts and self._counts[key] > most - count:
                return False
            self._counts[key] = self._counts.get(key, 0) + count
            return True

    def give_back(self, player_id: str, board_id: str, minute: int, count: int) -> None:
        with self._lock:
            key = (player_id, board_id, minute)
            if key in self._counts and self._counts[key] >= count:
                self._counts[key] -= count

    def forget_player(self, player_id: str) -> None:
        with self._lock:
            for key in [k for k in self._counts if k[0] == player_id]:
                del self._counts[key]
