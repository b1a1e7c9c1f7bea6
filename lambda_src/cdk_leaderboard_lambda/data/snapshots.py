"""The append-only snapshot archive (its own table: one board period's snapshots are one partition).

Two implementations of ports.SnapshotStore, held to the same behaviour by tests/contract: the DynamoDB one
(what every function uses) and an in-memory one (for domain tests that need no engine)."""

from __future__ import annotations

import threading
from typing import Any

from ..domain.ports import Taken
from ..shared import schema
from ..shared.attribute_values import from_item, to_item
from . import memory

_PARTITION, _SORT = schema.SNAPSHOTS_PARTITION_KEY, schema.SNAPSHOTS_SORT_KEY


class DynamoSnapshots:
    """The archive as items of the snapshots table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def put(self, snapshot: dict[str, Any]) -> None:
        """Append-only: the condition refuses to overwrite an existing snapshot (Taken)."""
        try:
            self._client.put_item(
                TableName=self._table,
                Item=to_item(snapshot),
                ConditionExpression=f"attribute_not_exists({_SORT})",
            )
        except self._client.exceptions.ConditionalCheckFailedException as err:
            raise Taken("this snapshot is stored already") from err

    def put_once(self, snapshot: dict[str, Any]) -> bool:
        """put(), or False if that snapshot exists already (a closing retried after it was written)."""
        try:
            self.put(snapshot)
            return True
        except Taken:
            return False

    def newest(self, leaderboard_id: str, limit: int) -> list[dict[str, Any]]:
        """A board period's snapshots, newest first: a Query on the partition, sort key descending."""
        resp = self._client.query(
            TableName=self._table,
            KeyConditionExpression=f"{_PARTITION} = :b",
            ExpressionAttributeValues=to_item({":b": leaderboard_id}),
            ScanIndexForward=False,
            Limit=limit,
        )
        return [from_item(i) for i in resp.get("Items", [])]

    def scan_page(self, start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
        """One page of the whole archive (erasure only: its cost grows with the archive, so it runs in steps)."""
        args: dict[str, Any] = {"TableName": self._table, "Limit": limit}
        if start:
            args["ExclusiveStartKey"] = start
        resp = self._client.scan(**args)
        return [from_item(i) for i in resp.get("Items", [])], resp.get("LastEvaluatedKey")

    def replace_entries(self, snapshot: dict[str, Any], new_entries: list[dict[str, Any]]) -> None:
        """Rewrite one snapshot's entries (erasure replaces a player by a placeholder; nothing else changes them)."""
        self._client.update_item(
            TableName=self._table,
            Key=to_item({k: snapshot[k] for k in (_PARTITION, _SORT)}),
            UpdateExpression="SET entries = :e",
            ConditionExpression=f"attribute_exists({_SORT})",
            ExpressionAttributeValues=to_item({":e": new_entries}),
        )


class MemorySnapshots:
    """The same archive in a dict of this instance, by (leaderboard id, taken_at)."""

    def __init__(self) -> None:
        self._items: dict[memory.Key, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def put(self, snapshot: dict[str, Any]) -> None:
        with self._lock:
            key = (snapshot[_PARTITION], snapshot[_SORT])
            if key in self._items:
                raise Taken("this snapshot is stored already")
            self._items[key] = memory.stored(snapshot)

    def put_once(self, snapshot: dict[str, Any]) -> bool:
        try:
            self.put(snapshot)
            return True
        except Taken:
            return False

    def newest(self, leaderboard_id: str, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            found = sorted((k for k in self._items if k[0] == leaderboard_id), reverse=True)[:limit]
            return [memory.stored(self._items[k]) for k in found]

    def scan_page(self, start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
        with self._lock:
            found, cursor = memory.page(sorted(self._items), start, limit)
            return [memory.stored(self._items[k]) for k in found], cursor

    def replace_entries(self, snapshot: dict[str, Any], new_entries: list[dict[str, Any]]) -> None:
        with self._lock:
            key = (snapshot[_PARTITION], snapshot[_SORT])
            if key not in self._items:
                raise memory.condition_failed("UpdateItem")
            self._items[key] = memory.stored({**self._items[key], "entries": new_entries})
