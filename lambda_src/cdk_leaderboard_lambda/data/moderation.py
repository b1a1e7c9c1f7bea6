"""Hidden players: one item per (board, player) under the partition item_keys.hidden_partition(board).

The item is the moderation decision; the entries carry its effect (their rank key moved out of the rank index,
see entries.set_hidden). Kept under the board, so a board's hidden players are one Query and deleting the board
drops them.

Two implementations of ports.ModerationStore, held to the same behaviour by tests/contract: the DynamoDB one
(what every function uses) and an in-memory one (for domain tests that need no engine). The submission path reads
the decision along with the entries in one request (data.entries.get_for_submission, through item_key)."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from ..shared import item_keys, schema
from ..shared.attribute_values import to_item
from . import dynamo, memory


def item_key(board_id: str, player_id: str) -> tuple[str, str]:
    """The (partition, sort) key of a player's item, to read it along with entries in one request."""
    return item_keys.hidden_partition(board_id), player_id


class DynamoModeration:
    """The decisions as items of the scores table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def hide(self, board_id: str, player_id: str, at: str) -> None:
        item = {schema.SCORES_PARTITION_KEY: item_keys.hidden_partition(board_id), schema.SCORES_SORT_KEY: player_id}
        self._client.put_item(TableName=self._table, Item=to_item({**item, "hidden_at": at}))

    def show(self, board_id: str, player_id: str) -> None:
        self._client.delete_item(TableName=self._table, Key=dynamo.key(*item_key(board_id, player_id)))

    def forget(self, player_id: str, board_ids: Iterable[str]) -> None:
        """Delete the player's decisions on these boards (erasure): BatchWriteItem, 25 keys a request."""
        requests = ({"DeleteRequest": {"Key": dynamo.key(*item_key(b, player_id))}} for b in board_ids)
        dynamo.batch_write(requests, on=(self._client, self._table))

    def players_of_board(self, board_id: str) -> list[str]:
        """Every player hidden on the board, in player-id order (to delete their entries with the board): a Query
        of the keys alone."""
        found = dynamo.query_items(
            on=self._client,
            TableName=self._table,
            KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
            ExpressionAttributeValues=to_item({":p": item_keys.hidden_partition(board_id)}),
            ProjectionExpression=f"{schema.SCORES_PARTITION_KEY}, {schema.SCORES_SORT_KEY}",
        )
        return [item[schema.SCORES_SORT_KEY] for item in found]

    def forget_board(self, board_id: str, player_ids: Iterable[str]) -> None:
        """Delete these players' decisions on the board (the board is deleted): BatchWriteItem, 25 keys a request."""
        requests = ({"DeleteRequest": {"Key": dynamo.key(*item_key(board_id, p))}} for p in player_ids)
        dynamo.batch_write(requests, on=(self._client, self._table))

    def hidden_among(self, pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """The (board id, player id) pairs that are hidden: one strongly consistent BatchGetItem per 100 pairs."""
        wanted = list(dict.fromkeys(pairs))
        on = (self._client, self._table)
        found = dynamo.batch_get([dynamo.key(*item_key(b, p)) for b, p in wanted], on=on) if wanted else []
        by_key = {(i[schema.SCORES_PARTITION_KEY], i[schema.SCORES_SORT_KEY]) for i in found}
        return {(b, p) for b, p in wanted if item_key(b, p) in by_key}

    def page_of_board(self, board_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` hidden-player items of a board in player-id order, after player `after` (None: from the
        first); and whether more follow. One strongly consistent Query (limit + 1 items of ~100 bytes: one page)."""
        return dynamo.page_after(item_keys.hidden_partition(board_id), after, limit, on=(self._client, self._table))


class MemoryModeration:
    """The same items in a dict of this instance, by their scores-table key."""

    def __init__(self) -> None:
        self._items: dict[memory.Key, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def hide(self, board_id: str, player_id: str, at: str) -> None:
        key = item_key(board_id, player_id)
        item = {schema.SCORES_PARTITION_KEY: key[0], schema.SCORES_SORT_KEY: key[1], "hidden_at": at}
        with self._lock:
            self._items[key] = item

    def show(self, board_id: str, player_id: str) -> None:
        with self._lock:
            self._items.pop(item_key(board_id, player_id), None)

    def forget(self, player_id: str, board_ids: Iterable[str]) -> None:
        with self._lock:
            for board_id in board_ids:
                self._items.pop(item_key(board_id, player_id), None)

    def players_of_board(self, board_id: str) -> list[str]:
        partition = item_keys.hidden_partition(board_id)
        with self._lock:
            return sorted(k[1] for k in self._items if k[0] == partition)

    def forget_board(self, board_id: str, player_ids: Iterable[str]) -> None:
        with self._lock:
            for player_id in player_ids:
                self._items.pop(item_key(board_id, player_id), None)

    def hidden_among(self, pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        with self._lock:
            return {(b, p) for b, p in pairs if item_key(b, p) in self._items}

    def page_of_board(self, board_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        partition = item_keys.hidden_partition(board_id)
        with self._lock:  # sort keys in DynamoDB's order: by UTF-8 bytes, which is code point order
            found = sorted(k for k in self._items if k[0] == partition and (after is None or k[1] > after))
            return [dict(self._items[k]) for k in found[:limit]], len(found) > limit
