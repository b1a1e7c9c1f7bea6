"""Runs (runs.py): one item per run in the scores table, under keys.run_key (a keyed hash of the player's id, then
the run id), removed by TTL a day after it ends, or with the player's other items by an erasure.

A run is used by ONE conditional UpdateItem that sets used_ms only where it is not set yet and the run is on this
board and not over: two submissions racing with one run token cannot both pass it.

Two implementations of runs.RunStore, held to the same behaviour by tests/contract: the DynamoDB one (what every
function uses) and an in-memory one (for domain tests that need no engine)."""

from __future__ import annotations

import threading
from typing import Any

from .. import keys, schema
from . import dynamo, memory

KEEP_SECONDS = 24 * 3600  # a run's item outlives the run by this (TTL deletes within days, not at once)
_PARTITION, _SORT = schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY


def _new(board_id: str, seed: int, started_ms: int, ends_at: int) -> dict[str, Any]:
    return {
        "board_id": board_id,
        "seed": seed,
        "started_ms": started_ms,
        "ends_at": ends_at,
        schema.TTL_ATTRIBUTE: ends_at + KEEP_SECONDS,
    }


def _run(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in (_PARTITION, _SORT)}


class DynamoRuns:
    """The runs as items of the scores table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def put(self, run_id: str, player_id: str, board_id: str, seed: int, started_ms: int, ends_at: int) -> None:
        """Store a new run (never over another: run ids are random, 128 bits)."""
        partition, sort = keys.run_key(player_id, run_id)
        self._client.put_item(
            TableName=self._table,
            Item=dynamo.to_item({_PARTITION: partition, _SORT: sort, **_new(board_id, seed, started_ms, ends_at)}),
            ConditionExpression=f"attribute_not_exists({_PARTITION})",
        )

    def use(self, run_id: str, player_id: str, board_id: str, now_s: int, used_ms: int) -> dict[str, Any] | None:
        """Mark the run used at `used_ms` if it exists, is on this board, unused and not over (now_s < ends_at):
        the run as it is now, or None (nothing changed). One conditional UpdateItem."""
        try:
            resp = self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(*keys.run_key(player_id, run_id)),
                UpdateExpression="SET used_ms = :used",
                ConditionExpression="attribute_exists(started_ms) AND attribute_not_exists(used_ms) "
                "AND board_id = :board AND ends_at > :now",
                ExpressionAttributeValues=dynamo.to_item({":used": used_ms, ":board": board_id, ":now": now_s}),
                ReturnValues="ALL_NEW",
            )
            return _run(dynamo.from_item(resp["Attributes"]))
        except self._client.exceptions.ConditionalCheckFailedException:
            return None

    def release(self, run_id: str, player_id: str, used_ms: int) -> None:
        """Undo use() of a submission that was then refused: only this use (used_ms), not a later one."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(*keys.run_key(player_id, run_id)),
                UpdateExpression="REMOVE used_ms",
                ConditionExpression="used_ms = :used",
                ExpressionAttributeValues=dynamo.to_item({":used": used_ms}),
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            pass

    def get(self, player_id: str, run_id: str) -> dict[str, Any] | None:
        key = dynamo.key(*keys.run_key(player_id, run_id))
        resp = self._client.get_item(TableName=self._table, Key=key, ConsistentRead=True)
        return _run(dynamo.from_item(resp["Item"])) if "Item" in resp else None

    def forget_player(self, player_id: str) -> None:
        """Delete every run of the player (an erasure): one Query of the keys, then BatchWriteItem, 25 a request."""
        on = (self._client, self._table)
        dynamo.delete_keys(dynamo.keys_in_partition(keys.runs_partition(player_id), on=on), on=on)


class MemoryRuns:
    """The same runs in a dict of this instance, by (player id, run id)."""

    def __init__(self) -> None:
        self._runs: dict[memory.Key, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def put(self, run_id: str, player_id: str, board_id: str, seed: int, started_ms: int, ends_at: int) -> None:
        with self._lock:
            if (player_id, run_id) in self._runs:
                raise memory.condition_failed("PutItem")
            self._runs[(player_id, run_id)] = memory.stored(_new(board_id, seed, started_ms, ends_at))

    def use(self, run_id: str, player_id: str, board_id: str, now_s: int, used_ms: int) -> dict[str, Any] | None:
        with self._lock:
            run = self._runs.get((player_id, run_id))
            if run is None or "used_ms" in run or run["board_id"] != board_id or not run["ends_at"] > now_s:
                return None
            run["used_ms"] = used_ms
            return dict(run)

    def release(self, run_id: str, player_id: str, used_ms: int) -> None:
        with self._lock:
            run = self._runs.get((player_id, run_id))
            if run is not None and run.get("used_ms") == used_ms:
                del run["used_ms"]

    def get(self, player_id: str, run_id: str) -> dict[str, Any] | None:
        with self._lock:
            run = self._runs.get((player_id, run_id))
            return dict(run) if run is not None else None

    def forget_player(self, player_id: str) -> None:
        with self._lock:
            for key in [k for k in self._runs if k[0] == player_id]:
                del self._runs[key]
