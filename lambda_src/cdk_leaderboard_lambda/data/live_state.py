"""Live updates: what was last published for a board period (when, and a digest of the top), items of the scores
table (item_keys.live_sent_key). The conditional claim on it keeps parallel broadcasters to one publish per interval.

Two implementations of ports.LiveState, held to the same behaviour by tests/contract: the DynamoDB one (what
every function uses) and an in-memory one (for domain tests that need no engine)."""

from __future__ import annotations

import threading
from typing import Any

from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item
from . import memory


def _key(board_id: str, period_id: str) -> dict:
    partition, sort = item_keys.live_sent_key(board_id, period_id)
    return to_item({schema.SCORES_PARTITION_KEY: partition, schema.SCORES_SORT_KEY: sort})


class DynamoLiveState:
    """The "last sent" items in the scores table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def last_sent(self, board_id: str, period_id: str) -> dict[str, Any] | None:
        """What was last published for a board period ({"sent_at_ms", "digest"}), read strongly consistent."""
        answer = self._client.get_item(TableName=self._table, Key=_key(board_id, period_id), ConsistentRead=True)
        return from_item(answer["Item"]) if "Item" in answer else None

    def claim_send(
        self, board_id: str, period_id: str, previous_ms: int | None, sent_at_ms: int, digest: str, expires_at: int
    ) -> bool:
        """Record a publish, only if nobody published for this board period since `previous_ms` (our read). False
        when another broadcaster got there first."""
        condition = "attribute_not_exists(sent_at_ms)" if previous_ms is None else "sent_at_ms = :previous"
        values = {":now": sent_at_ms, ":digest": digest, ":expires": expires_at}
        if previous_ms is not None:
            values[":previous"] = previous_ms
        try:
            self._client.update_item(
                TableName=self._table,
                Key=_key(board_id, period_id),
                UpdateExpression=f"SET sent_at_ms = :now, digest = :digest, {schema.TTL_ATTRIBUTE} = :expires",
                ConditionExpression=condition,
                ExpressionAttributeValues=to_item(values),
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            return False
        return True

    def finish_send(self, board_id: str, period_id: str, claimed_ms: int, done_ms: int) -> None:
        """Move the publish's time to when it ended, if nobody claimed since: the next one waits a full interval
        from the moment AppSync took this one."""
        self._update_if_claimed(board_id, period_id, claimed_ms, "SET sent_at_ms = :done", {":done": done_ms})

    def release(self, board_id: str, period_id: str, claimed_ms: int) -> None:
        """Forget the digest of a claimed publish that failed (if nobody claimed since), so that the retried batch
        publishes that top instead of finding it "already sent"; the time stays (the interval still holds)."""
        self._update_if_claimed(board_id, period_id, claimed_ms, "REMOVE digest", {})

    def switched_off(self) -> bool:
        """Whether the live kill switch is off (`make live-off`); an eventually consistent read (half a unit)."""
        partition, sort = item_keys.live_switch_key()
        answer = self._client.get_item(
            TableName=self._table,
            Key=to_item({schema.SCORES_PARTITION_KEY: partition, schema.SCORES_SORT_KEY: sort}),
        )
        return bool(from_item(answer["Item"]).get("off")) if "Item" in answer else False

    def set_switch(self, *, off: bool, at: int) -> None:
        """Turn live updates off (True) or on again (False), noting when (epoch s)."""
        partition, sort = item_keys.live_switch_key()
        item = {schema.SCORES_PARTITION_KEY: partition, schema.SCORES_SORT_KEY: sort, "off": off, "changed_at": at}
        self._client.put_item(TableName=self._table, Item=to_item(item))

    def _update_if_claimed(self, board_id: str, period_id: str, claimed_ms: int, expression: str, values: dict) -> None:
        try:
            self._client.update_item(
                TableName=self._table,
                Key=_key(board_id, period_id),
                UpdateExpression=expression,
                ConditionExpression="sent_at_ms = :claimed",
                ExpressionAttributeValues=to_item({**values, ":claimed": claimed_ms}),
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            pass  # claimed again meanwhile (its own state counts)


class MemoryLiveState:
    """The same items in a dict of this instance, by their scores-table key (no TTL: a test's items are few)."""

    def __init__(self) -> None:
        self._items: dict[memory.Key, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def last_sent(self, board_id: str, period_id: str) -> dict[str, Any] | None:
        with self._lock:
            item = self._items.get(item_keys.live_sent_key(board_id, period_id))
            return None if item is None else dict(item)

    def claim_send(
        self, board_id: str, period_id: str, previous_ms: int | None, sent_at_ms: int, digest: str, expires_at: int
    ) -> bool:
        with self._lock:
            key = item_keys.live_sent_key(board_id, period_id)
            item = self._items.get(key, {})
            if item.get("sent_at_ms") != previous_ms:  # absent (None) when previous_ms is None: not published yet
                return False
            self._items[key] = {
                **item,
                schema.SCORES_PARTITION_KEY: key[0],
                schema.SCORES_SORT_KEY: key[1],
                "sent_at_ms": sent_at_ms,
                "digest": digest,
                schema.TTL_ATTRIBUTE: expires_at,
            }
            return True

    def finish_send(self, board_id: str, period_id: str, claimed_ms: int, done_ms: int) -> None:
        with self._lock:
            item = self._items.get(item_keys.live_sent_key(board_id, period_id))
            if item is not None and item.get("sent_at_ms") == claimed_ms:
                item["sent_at_ms"] = done_ms

    def release(self, board_id: str, period_id: str, claimed_ms: int) -> None:
        with self._lock:
            item = self._items.get(item_keys.live_sent_key(board_id, period_id))
            if item is not None and item.get("sent_at_ms") == claimed_ms:
                item.pop("digest", None)

    def switched_off(self) -> bool:
        with self._lock:
            return bool(self._items.get(item_keys.live_switch_key(), {}).get("off"))

    def set_switch(self, *, off: bool, at: int) -> None:
        with self._lock:
            self._items[item_keys.live_switch_key()] = {"off": off, "changed_at": at}
