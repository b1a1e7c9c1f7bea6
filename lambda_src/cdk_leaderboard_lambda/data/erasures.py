"""Erasure records, none of which names the player once the erasure has answered "erased":

- the erasure's item, keyed by a keyed hash of the player's id (item_keys.erasing_key): its state while it runs (then
  it holds the id, as the player's entries still do) and, after, its fence until lifted: every submission's read
  finds it in the same request as the entries (EntryStore.get_for_submission) and refuses while it stands;
- one `#fences` item per erasure, sorted by when the scheduled job should look at it (go on with an erasure its
  caller left, or lift a fence): it holds the hashed key, not the id;
- the token floor, beside the erasure's item under the same hashed key: tokens issued to the player until the
  erasure answered are refused (operations/token_floors.py), until every such token has expired (table TTL);
- the audit record that stays: the erasure's id and times, never the player.

Two implementations of ports.ErasureStore, held to the same behaviour by tests/contract: the DynamoDB one
(what every function uses) and an in-memory one (which MemoryEntries reads, as DynamoEntries reads the items).
"""

from __future__ import annotations

import threading
from typing import Any

from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item
from . import dynamo, memory

Key = tuple[str, str]  # item_keys.erasing_key(digest key, player_id)

# One call at a time works on an erasure (the admin's DELETE and the scheduled job may overlap): a call that
# raised the entry places' fences again after another had lifted them and answered "erased" left them holding
# the id. A call holds the erasure's lease from its first write (create or claim) to its last (save_state).
LEASE = "lease_until"

# An erasure's answer refuses the player's tokens issued until then (player and run tokens live at most a day): a
# small item beside the erasure's, under the same hashed key, that the table's TTL takes away once they expired.
TOKEN_FLOOR = "tokens_not_after"


def _stored(values: dict[str, Any]) -> dict[str, Any]:
    key_names = (schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY, LEASE)
    return {k: v for k, v in values.items() if v is not None and k not in key_names}


# The scheduled job's list: one item per erasure, sorted by when it is due, so one Query finds the due ones.


def _due_sort(due: int, erasure_id: str) -> str:
    return f"{due:012d}#{erasure_id}"


def _row(key: Key, values: dict[str, Any]) -> dict[str, Any]:
    return {schema.SCORES_PARTITION_KEY: key[0], schema.SCORES_SORT_KEY: key[1], **values}


class DynamoErasures:
    """The records as items of the scores table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def state(self, key: Key) -> dict[str, Any] | None:
        resp = self._client.get_item(TableName=self._table, Key=dynamo.key(*key), ConsistentRead=True)
        return from_item(resp["Item"]) if "Item" in resp else None

    def create(self, key: Key, values: dict[str, Any], lease_until: int) -> bool:
        """Put a new erasure's state, leased to this call; False if another call put one first."""
        item = dynamo.key(*key) | to_item({**_stored(values), LEASE: lease_until})
        try:
            self._client.put_item(
                TableName=self._table,
                Item=item,
                ConditionExpression=f"attribute_not_exists({schema.SCORES_PARTITION_KEY})",
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            return False
        return True

    def claim(self, key: Key, now_s: int, lease_until: int) -> dict[str, Any] | None:
        """Lease an existing erasure to this call and return its state; None if another call holds it (or it is
        gone)."""
        try:
            resp = self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(*key),
                UpdateExpression=f"SET {LEASE} = :until",
                ConditionExpression=(
                    f"attribute_exists({schema.SCORES_PARTITION_KEY}) "
                    f"AND (attribute_not_exists({LEASE}) OR {LEASE} <= :now)"
                ),
                ExpressionAttributeValues=to_item({":until": lease_until, ":now": now_s}),
                ReturnValues="ALL_NEW",
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            return None
        return from_item(resp["Attributes"])

    def save_state(self, key: Key, values: dict[str, Any]) -> None:
        """The call's last write to the erasure's state: it releases the lease."""
        self._client.put_item(TableName=self._table, Item=dynamo.key(*key) | to_item(_stored(values)))

    def release(self, key: Key) -> None:
        """Give the lease up without a state to save (the call failed): the next call goes on from the last save."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(*key),
                UpdateExpression=f"REMOVE {LEASE}",
                ConditionExpression=f"attribute_exists({schema.SCORES_PARTITION_KEY})",
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            pass  # already gone: nothing holds it

    def drop_state(self, key: Key) -> None:
        self._client.delete_item(TableName=self._table, Key=dynamo.key(*key))

    def put_audit(self, erasure_id: str, values: dict[str, Any]) -> None:
        item = dynamo.key(item_keys.ERASURES_PARTITION, erasure_id) | to_item(values)
        self._client.put_item(TableName=self._table, Item=item)

    def audit(self, erasure_id: str) -> dict[str, Any] | None:
        resp = self._client.get_item(TableName=self._table, Key=dynamo.key(item_keys.ERASURES_PARTITION, erasure_id))
        return from_item(resp["Item"]) if "Item" in resp else None

    def drop_audit(self, erasure_id: str) -> None:
        self._client.delete_item(TableName=self._table, Key=dynamo.key(item_keys.ERASURES_PARTITION, erasure_id))

    def update_audit(self, erasure_id: str, values: dict[str, Any]) -> None:
        names = {f"#{k}": k for k in values}
        self._client.update_item(
            TableName=self._table,
            Key=dynamo.key(item_keys.ERASURES_PARTITION, erasure_id),
            UpdateExpression="SET " + ", ".join(f"#{k} = :{k}" for k in values),
            ExpressionAttributeNames=names,
            ExpressionAttributeValues=to_item({f":{k}": v for k, v in values.items()}),
        )

    def register(self, key: Key, erasure_id: str, due: int) -> None:
        item = dynamo.key(item_keys.FENCES_PARTITION, _due_sort(due, erasure_id)) | to_item(
            {"erasure_id": erasure_id, "erasing_key": list(key), "due": due}
        )
        self._client.put_item(TableName=self._table, Item=item)

    def due(self, now_s: int, limit: int) -> list[dict[str, Any]]:
        resp = self._client.query(
            TableName=self._table,
            KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p AND {schema.SCORES_SORT_KEY} <= :due",
            ExpressionAttributeValues=to_item({":p": item_keys.FENCES_PARTITION, ":due": f"{now_s:012d}~"}),
            ConsistentRead=True,
            Limit=limit,
        )
        return [from_item(i) for i in resp.get("Items", [])]

    def unregister(self, erasure_id: str, due: int) -> None:
        self._client.delete_item(
            TableName=self._table, Key=dynamo.key(item_keys.FENCES_PARTITION, _due_sort(int(due), erasure_id))
        )

    def put_token_floor(self, key: Key, not_before: int, until: int) -> None:
        item = dynamo.key(*key) | to_item({TOKEN_FLOOR: not_before, schema.TTL_ATTRIBUTE: until})
        self._client.put_item(TableName=self._table, Item=item)

    def token_floor(self, key: Key) -> int | None:
        resp = self._client.get_item(
            TableName=self._table, Key=dynamo.key(*key), ConsistentRead=True, ProjectionExpression=TOKEN_FLOOR
        )
        found = resp.get("Item", {}).get(TOKEN_FLOOR)
        return int(found["N"]) if found is not None else None


class MemoryErasures:
    """The same items in a dict of this instance, by their scores-table key."""

    def __init__(self) -> None:
        self._items: dict[Key, dict[str, Any]] = {}
        self._lock = threading.Lock()

    def _get(self, key: Key) -> dict[str, Any] | None:
        with self._lock:
            found = self._items.get(tuple(key))  # type: ignore[arg-type]
            return dict(found) if found is not None else None

    def _put(self, key: Key, values: dict[str, Any]) -> None:
        with self._lock:
            self._items[(key[0], key[1])] = memory.stored(_row(key, values))

    def state(self, key: Key) -> dict[str, Any] | None:
        return self._get(key)

    def create(self, key: Key, values: dict[str, Any], lease_until: int) -> bool:
        with self._lock:
            if (key[0], key[1]) in self._items:
                return False
            self._items[(key[0], key[1])] = memory.stored(_row(key, {**_stored(values), LEASE: lease_until}))
            return True

    def claim(self, key: Key, now_s: int, lease_until: int) -> dict[str, Any] | None:
        with self._lock:
            found = self._items.get((key[0], key[1]))
            if found is None or (LEASE in found and int(found[LEASE]) > now_s):
                return None
            found[LEASE] = lease_until
            return dict(found)

    def save_state(self, key: Key, values: dict[str, Any]) -> None:
        self._put(key, _stored(values))

    def release(self, key: Key) -> None:
        with self._lock:
            found = self._items.get((key[0], key[1]))
            if found is not None:
                found.pop(LEASE, None)

    def drop_state(self, key: Key) -> None:
        with self._lock:
            self._items.pop((key[0], key[1]), None)

    def put_audit(self, erasure_id: str, values: dict[str, Any]) -> None:
        self._put((item_keys.ERASURES_PARTITION, erasure_id), values)

    def audit(self, erasure_id: str) -> dict[str, Any] | None:
        return self._get((item_keys.ERASURES_PARTITION, erasure_id))

    def drop_audit(self, erasure_id: str) -> None:
        self.drop_state((item_keys.ERASURES_PARTITION, erasure_id))

    def update_audit(self, erasure_id: str, values: dict[str, Any]) -> None:
        key = (item_keys.ERASURES_PARTITION, erasure_id)
        with self._lock:  # an UpdateItem creates the item if there is none
            self._items[key] = memory.stored({**_row(key, {}), **self._items.get(key, {}), **values})

    def register(self, key: Key, erasure_id: str, due: int) -> None:
        values = {"erasure_id": erasure_id, "erasing_key": list(key), "due": due}
        self._put((item_keys.FENCES_PARTITION, _due_sort(due, erasure_id)), values)

    def due(self, now_s: int, limit: int) -> list[dict[str, Any]]:
        bound = f"{now_s:012d}~"
        with self._lock:  # sort keys in DynamoDB's order: by UTF-8 bytes, which is code point order
            found = sorted(k for k in self._items if k[0] == item_keys.FENCES_PARTITION and k[1] <= bound)
            return [dict(self._items[k]) for k in found[:limit]]

    def unregister(self, erasure_id: str, due: int) -> None:
        self.drop_state((item_keys.FENCES_PARTITION, _due_sort(int(due), erasure_id)))

    def put_token_floor(self, key: Key, not_before: int, until: int) -> None:
        self._put(key, {TOKEN_FLOOR: not_before, schema.TTL_ATTRIBUTE: until})

    def token_floor(self, key: Key) -> int | None:
        found = self._get(key)
        return int(found[TOKEN_FLOOR]) if found is not None and TOKEN_FLOOR in found else None

    def item(self, key: Key) -> dict[str, Any] | None:
        """The erasure's item as a read along with entries finds it (MemoryEntries.get_for_submission)."""
        return self._get(key)
