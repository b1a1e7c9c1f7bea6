"""Closing summaries: one item per closed board period in the scores table, under item_keys.closings_partition, with
no TTL attribute, so a summary outlives its period's entries.

Two implementations of ports.ClosingStore, held to the same behaviour by tests/contract: the DynamoDB one (what
every function uses) and an in-memory one (for domain tests that need no engine)."""

from __future__ import annotations

import threading
from typing import Any

from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item
from . import dynamo, memory

_PARTITION, _SORT = schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY
_LISTED = ("period_id", "kind", "starts_at", "ends_at", "closed_at", "total_players")


def _summary(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in (_PARTITION, _SORT)}


class DynamoClosings:
    """The summaries as items of the scores table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def put_new(self, board_id: str, sort_key: str, summary: dict[str, Any]) -> bool:
        """Store a summary unless the period is closed already (the first closing wins); False if it was."""
        item = {**summary, _PARTITION: item_keys.closings_partition(board_id), _SORT: sort_key}
        try:
            self._client.put_item(
                TableName=self._table, Item=to_item(item), ConditionExpression=f"attribute_not_exists({_SORT})"
            )
            return True
        except self._client.exceptions.ConditionalCheckFailedException:
            return False

    def get(self, board_id: str, sort_key: str) -> dict[str, Any] | None:
        key = dynamo.key(item_keys.closings_partition(board_id), sort_key)
        resp = self._client.get_item(TableName=self._table, Key=key, ConsistentRead=True)
        return _summary(from_item(resp["Item"])) if "Item" in resp else None

    def newest(self, board_id: str, limit: int) -> list[dict[str, Any]]:
        """A board's closed periods, the latest end first (without their top lists: one page of small reads)."""
        resp = self._client.query(
            TableName=self._table,
            KeyConditionExpression=f"{_PARTITION} = :p",
            ExpressionAttributeValues=to_item({":p": item_keys.closings_partition(board_id)}),
            ProjectionExpression=", ".join(f"#{f}" for f in _LISTED),
            ExpressionAttributeNames={f"#{f}": f for f in _LISTED},
            ScanIndexForward=False,
            Limit=limit,
        )
        return [from_item(i) for i in resp.get("Items", [])]

    def claim_event(self, board_id: str, sort_key: str, now_s: int, lease_s: int) -> bool:
        """Take the sending of a closing's event for lease_s seconds: False if it went out, or another closing holds
        an unexpired claim (a claimer that died before sending is taken over once its lease ends)."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(item_keys.closings_partition(board_id), sort_key),
                UpdateExpression="SET event_claimed_until = :until",
                ConditionExpression="event_sent = :f AND (attribute_not_exists(event_claimed_until) OR "
                "event_claimed_until < :now)",
                ExpressionAttributeValues=to_item({":until": now_s + lease_s, ":now": now_s, ":f": False}),
            )
            return True
        except self._client.exceptions.ConditionalCheckFailedException:
            return False

    def mark_event_sent(self, board_id: str, sort_key: str) -> None:
        self._client.update_item(
            TableName=self._table,
            Key=dynamo.key(item_keys.closings_partition(board_id), sort_key),
            UpdateExpression="SET event_sent = :t",
            ExpressionAttributeValues=to_item({":t": True}),
        )

    def page_of_board(self, board_id: str, start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
        """One page of a board's summaries, whole (erasure only: its cost grows with the board's history)."""
        args: dict[str, Any] = {
            "TableName": self._table,
            "KeyConditionExpression": f"{_PARTITION} = :p",
            "ExpressionAttributeValues": to_item({":p": item_keys.closings_partition(board_id)}),
            "ConsistentRead": True,
            "Limit": limit,
        }
        if start:
            args["ExclusiveStartKey"] = start
        resp = self._client.query(**args)
        return [from_item(i) for i in resp.get("Items", [])], resp.get("LastEvaluatedKey")

    def replace_players(
        self,
        item: dict[str, Any],
        top: list[dict[str, Any]],
        rewards: list[dict[str, Any]],
        signature: str | None = None,
    ) -> None:
        """Rewrite one stored summary's top and reward winners (erasure puts a placeholder in a player's place),
        and its signature over them."""
        values: dict[str, Any] = {":top": top, ":rewards": rewards}
        if signature is not None:
            values[":signature"] = signature
        self._client.update_item(
            TableName=self._table,
            Key=dynamo.key(item[_PARTITION], item[_SORT]),
            UpdateExpression="SET #top = :top, rewards = :rewards" + (", signature = :signature" if signature else ""),
            ConditionExpression=f"attribute_exists({_SORT})",
            ExpressionAttributeNames={"#top": "top"},
            ExpressionAttributeValues=to_item(values),
        )


class MemoryClosings:
    """The same items in a dict of this instance, by (partition, sort key) as in the scores table."""

    def __init__(self) -> None:
        self._items: dict[memory.Key, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def put_new(self, board_id: str, sort_key: str, summary: dict[str, Any]) -> bool:
        with self._lock:
            key = (item_keys.closings_partition(board_id), sort_key)
            if key in self._items:
                return False
            self._items[key] = memory.stored({**summary, _PARTITION: key[0], _SORT: sort_key})
            return True

    def get(self, board_id: str, sort_key: str) -> dict[str, Any] | None:
        with self._lock:
            item = self._items.get((item_keys.closings_partition(board_id), sort_key))
            return None if item is None else _summary(memory.stored(item))

    def newest(self, board_id: str, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            found = sorted(self._of_board(board_id), reverse=True)[:limit]
            return [{f: self._items[k][f] for f in _LISTED if f in self._items[k]} for k in found]

    def claim_event(self, board_id: str, sort_key: str, now_s: int, lease_s: int) -> bool:
        with self._lock:
            item = self._items.get((item_keys.closings_partition(board_id), sort_key))
            if item is None or item.get("event_sent") is not False or item.get("event_claimed_until", -1) >= now_s:
                return False
            item["event_claimed_until"] = now_s + lease_s
            return True

    def mark_event_sent(self, board_id: str, sort_key: str) -> None:
        with self._lock:  # an UpdateItem without a condition: it creates the item if there is none
            key = (item_keys.closings_partition(board_id), sort_key)
            self._items.setdefault(key, {_PARTITION: key[0], _SORT: sort_key})["event_sent"] = True

    def page_of_board(self, board_id: str, start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
        with self._lock:
            found, cursor = memory.page(sorted(self._of_board(board_id)), start, limit)
            return [memory.stored(self._items[k]) for k in found], cursor

    def replace_players(
        self,
        item: dict[str, Any],
        top: list[dict[str, Any]],
        rewards: list[dict[str, Any]],
        signature: str | None = None,
    ) -> None:
        with self._lock:
            key = (item[_PARTITION], item[_SORT])
            if key not in self._items:
                raise memory.condition_failed("UpdateItem")
            signed = {} if signature is None else {"signature": signature}
            self._items[key] = memory.stored({**self._items[key], "top": top, "rewards": rewards, **signed})

    def _of_board(self, board_id: str) -> list[memory.Key]:
        partition = item_keys.closings_partition(board_id)
        return [k for k in self._items if k[0] == partition]
