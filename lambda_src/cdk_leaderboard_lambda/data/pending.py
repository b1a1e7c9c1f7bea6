"""Quarantined submissions (quarantine.py): items of the scores table outside the rank index (no rank key), so no
list, rank, total, snapshot, summary or live push sees them.

Each is two items written in one transaction: the submission under item_keys.pending_key(board, pending id), one
partition per board (the review queue is one Query a page), and a pointer under the player's
item_keys.pending_of_partition (their own lookup and an erasure find theirs with one Query). A decision claims the item
by one conditional write (`deciding`), so two decisions on one submission cannot both apply. An approval deletes
both items with the entry writes, atomically, only while its claim holds: approval_ops() are its writes for the
unit of work that commits them with the entries' (data/unit_of_work.py: on DynamoDB one transaction, in memory under
the lock these stores share); a transaction cancelled because another was in progress on one of its items
(TransactionConflict) raises errors.TransactionBusy, nothing written.

Two implementations of ports.PendingStore, held to the same behaviour by tests/contract: the DynamoDB one
(what every function uses) and an in-memory one (for domain tests that need no engine).
"""

from __future__ import annotations

import secrets
import threading
from typing import TYPE_CHECKING, Any

from ..domain.ports import Approval
from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item
from ..shared.errors import Conflict, TransactionBusy
from . import dynamo, memory
from .unit_of_work import DynamoAction, DynamoWrites, MemoryWrites

if TYPE_CHECKING:
    from ..domain.digest_key import DigestKey

POINTER_FIELDS = ("score", "rule", "submitted_at")  # what a player's own lookup shows of theirs
_PARTITION, _SORT = schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY
CLAIM_LOST = "this pending submission is no longer held for this decision: nothing applied"


def _claim_lost() -> Conflict:
    return Conflict(CLAIM_LOST)


def _pointer_key(secret: bytes, board_id: str, player_id: str, pending_id: str) -> tuple[str, str]:
    return item_keys.pending_of_partition(secret, player_id), f"{board_id}#{pending_id}"


def _board_partition(board_id: str) -> str:
    return item_keys.pending_key(board_id, "")[0]


def _items(secret: bytes, board_id: str, pending_id: str, player_id: str, values: dict[str, Any]) -> tuple[dict, dict]:
    """The submission's item and its pointer's."""
    partition, sort = item_keys.pending_key(board_id, pending_id)
    item = {_PARTITION: partition, _SORT: sort, "pending_player": player_id, **values}
    pointer_partition, pointer_sort = _pointer_key(secret, board_id, player_id, pending_id)
    pointer = {_PARTITION: pointer_partition, _SORT: pointer_sort, **{k: values[k] for k in POINTER_FIELDS}}
    return item, pointer


def _lookup(pointer: dict[str, Any]) -> dict[str, Any]:
    """A pointer as the player's own lookup shows it."""
    return {"pending_id": pointer[_SORT].split("#", 1)[1], **{k: pointer[k] for k in POINTER_FIELDS}}


def _everywhere(pointer: dict[str, Any]) -> dict[str, Any]:
    """A pointer as the player's own view of every board shows it: its board too."""
    return {"board_id": pointer[_SORT].split("#", 1)[0], **_lookup(pointer)}


class DynamoPending:
    """The submissions and pointers as items of the scores table."""

    def __init__(self, client: Any, table: str, digest_key: DigestKey) -> None:
        self._client, self._table = client, table
        self._on = (client, table)
        self._digest_key = digest_key  # the runtime's: it names the pointers' partitions

    def _secret(self) -> bytes:
        return self._digest_key.value()

    def put(self, board_id: str, pending_id: str, player_id: str, values: dict[str, Any]) -> None:
        """Both items in one transaction; TransactionBusy (nothing written) if another write held one of them."""
        item, pointer = _items(self._secret(), board_id, pending_id, player_id, values)
        puts = [{"Put": {"TableName": self._table, "Item": to_item(i)}} for i in (item, pointer)]
        self._transact(puts, "the player's pending submissions")

    def get(self, board_id: str, pending_id: str) -> dict[str, Any] | None:
        key = dynamo.key(*item_keys.pending_key(board_id, pending_id))
        resp = self._client.get_item(TableName=self._table, Key=key, ConsistentRead=True)
        return from_item(resp["Item"]) if "Item" in resp else None

    def page_of_board(self, board_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` pending submissions of a board in pending-id order after `after`, and whether more
        follow. One strongly consistent Query (limit + 1 items of at most ~4 KB)."""
        return dynamo.page_after(_board_partition(board_id), after, limit, on=self._on)

    def of_player_on(self, player_id: str, board_id: str) -> list[dict[str, Any]]:
        """The player's pointers on one board (pending id order): one Query."""
        found = dynamo.query_items(
            on=self._client,
            TableName=self._table,
            KeyConditionExpression=f"{_PARTITION} = :p AND begins_with({_SORT}, :b)",
            ExpressionAttributeValues=to_item(
                {
                    ":p": item_keys.pending_of_partition(self._secret(), player_id),
                    ":b": f"{board_id}#",
                }
            ),
            ConsistentRead=True,
        )
        return [_lookup(item) for item in found]

    def of_player(self, player_id: str) -> list[dict[str, Any]]:
        """The player's pointers on every board (board id, then pending id order): one Query."""
        found = dynamo.query_items(
            on=self._client,
            TableName=self._table,
            KeyConditionExpression=f"{_PARTITION} = :p",
            ExpressionAttributeValues=to_item({":p": item_keys.pending_of_partition(self._secret(), player_id)}),
            ConsistentRead=True,
        )
        return [_everywhere(item) for item in found]

    def claim(self, board_id: str, pending_id: str, token: str) -> bool:
        """Claim the submission for one decision: False if it is not there or another decision holds it."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(*item_keys.pending_key(board_id, pending_id)),
                UpdateExpression="SET deciding = :t",
                ConditionExpression="attribute_exists(pending_player) AND attribute_not_exists(deciding)",
                ExpressionAttributeValues=to_item({":t": token}),
            )
            return True
        except self._client.exceptions.ConditionalCheckFailedException:
            return False

    def unclaim(self, board_id: str, pending_id: str, token: str) -> None:
        """Give a claim back (its decision failed part-way): the submission waits for a decision again."""
        try:
            self._client.update_item(
                TableName=self._table,
                Key=dynamo.key(*item_keys.pending_key(board_id, pending_id)),
                UpdateExpression="REMOVE deciding",
                ConditionExpression="deciding = :t",
                ExpressionAttributeValues=to_item({":t": token}),
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            pass

    def drop(self, board_id: str, pending_id: str, player_id: str) -> None:
        """Delete the submission and its pointer (a claimed one: only its claimer calls this): one transaction;
        TransactionBusy (nothing deleted) if another write held one of them."""
        both = (
            item_keys.pending_key(board_id, pending_id),
            _pointer_key(self._secret(), board_id, player_id, pending_id),
        )
        deletes = [{"Delete": {"TableName": self._table, "Key": dynamo.key(*k)}} for k in both]
        self._transact(deletes, "this pending submission")

    def approval_ops(self, approval: Approval) -> DynamoWrites:
        """The deletes of an approved submission and its pointer, for the unit of work that commits them with its
        entries: the submission only while `approval.claim` is its decision's claim (else Conflict)."""
        submission = {
            "TableName": self._table,
            "Key": dynamo.key(*item_keys.pending_key(approval.board_id, approval.pending_id)),
            "ConditionExpression": "deciding = :claim",
            "ExpressionAttributeValues": to_item({":claim": approval.claim}),
        }
        pointer_key = _pointer_key(self._secret(), approval.board_id, approval.player_id, approval.pending_id)
        pointer = {"TableName": self._table, "Key": dynamo.key(*pointer_key)}
        actions = (DynamoAction({"Delete": submission}, _claim_lost), DynamoAction({"Delete": pointer}, _claim_lost))
        return DynamoWrites(actions, "this pending submission")

    def _transact(self, actions: list[dict[str, Any]], what: str) -> None:
        try:
            dynamo.transact(actions, on=self._client)
        except dynamo.Cancelled as err:
            if err.conflict:  # another transaction on one of the items (DynamoDB Local never shows it)
                raise TransactionBusy(what) from err
            raise

    def forget_player(self, player_id: str) -> None:
        """Delete the player's submissions on every board, and their pointers (an erasure): one Query of the
        pointers' keys, then BatchWriteItem, 25 items a request."""
        found = []
        for item in self._keys(item_keys.pending_of_partition(self._secret(), player_id), f"{_PARTITION}, {_SORT}"):
            board_id, pending_id = item[_SORT].split("#", 1)
            found += [item_keys.pending_key(board_id, pending_id), (item[_PARTITION], item[_SORT])]
        self._delete(found)

    def forget_board(self, board_id: str) -> None:
        """Delete a board's submissions and their pointers (the board is deleted): one Query, then BatchWriteItem."""
        found = []
        for item in self._keys(_board_partition(board_id), f"{_SORT}, pending_player"):
            pending_id = item[_SORT]
            found += [
                item_keys.pending_key(board_id, pending_id),
                _pointer_key(self._secret(), board_id, item["pending_player"], pending_id),
            ]
        self._delete(found)

    def _keys(self, partition: str, projection: str) -> list[dict[str, Any]]:
        return dynamo.query_items(
            on=self._client,
            TableName=self._table,
            KeyConditionExpression=f"{_PARTITION} = :p",
            ExpressionAttributeValues=to_item({":p": partition}),
            ProjectionExpression=projection,
        )

    def _delete(self, found: list[tuple[str, str]]) -> None:
        dynamo.batch_write(({"DeleteRequest": {"Key": dynamo.key(*k)}} for k in found), on=self._on)


class MemoryPending:
    """The same items in a dict of this instance, by their scores-table key."""

    def __init__(self, lock: Any | None = None) -> None:
        self._items: dict[memory.Key, dict[str, Any]] = {}
        # Shared with the unit of work and the other stores that commit with this one (in_memory_stores).
        self._lock = lock if lock is not None else threading.RLock()
        self._key = secrets.token_bytes(32)  # in memory, the pointers' hashes need only not name the player

    def _secret(self) -> bytes:
        return self._key

    def put(self, board_id: str, pending_id: str, player_id: str, values: dict[str, Any]) -> None:
        with self._lock:
            for item in _items(self._secret(), board_id, pending_id, player_id, values):
                self._items[(item[_PARTITION], item[_SORT])] = memory.stored(item)

    def get(self, board_id: str, pending_id: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._items.get(item_keys.pending_key(board_id, pending_id))
            return dict(found) if found is not None else None

    def page_of_board(self, board_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        partition = _board_partition(board_id)
        with self._lock:  # sort keys in DynamoDB's order: by UTF-8 bytes, which is code point order
            found = sorted(k for k in self._items if k[0] == partition and (after is None or k[1] > after))
            return [dict(self._items[k]) for k in found[:limit]], len(found) > limit

    def of_player_on(self, player_id: str, board_id: str) -> list[dict[str, Any]]:
        partition, prefix = (
            item_keys.pending_of_partition(self._secret(), player_id),
            f"{board_id}#",
        )
        with self._lock:
            found = sorted(k for k in self._items if k[0] == partition and k[1].startswith(prefix))
            return [_lookup(self._items[k]) for k in found]

    def of_player(self, player_id: str) -> list[dict[str, Any]]:
        partition = item_keys.pending_of_partition(self._secret(), player_id)
        with self._lock:
            return [_everywhere(self._items[k]) for k in sorted(k for k in self._items if k[0] == partition)]

    def claim(self, board_id: str, pending_id: str, token: str) -> bool:
        with self._lock:
            item = self._items.get(item_keys.pending_key(board_id, pending_id))
            if item is None or "pending_player" not in item or "deciding" in item:
                return False
            item["deciding"] = token
            return True

    def unclaim(self, board_id: str, pending_id: str, token: str) -> None:
        with self._lock:
            item = self._items.get(item_keys.pending_key(board_id, pending_id))
            if item is not None and item.get("deciding") == token:
                del item["deciding"]

    def drop(self, board_id: str, pending_id: str, player_id: str) -> None:
        with self._lock:
            self._items.pop(item_keys.pending_key(board_id, pending_id), None)
            self._items.pop(_pointer_key(self._secret(), board_id, player_id, pending_id), None)

    def approval_ops(self, approval: Approval) -> MemoryWrites:
        key = item_keys.pending_key(approval.board_id, approval.pending_id)

        def claimed() -> Exception | None:
            found = self._items.get(key)
            return None if found is not None and found.get("deciding") == approval.claim else _claim_lost()

        def remove() -> None:
            del self._items[key]
            self._items.pop(
                _pointer_key(self._secret(), approval.board_id, approval.player_id, approval.pending_id), None
            )

        return MemoryWrites(self._lock, (claimed,), remove, 2)

    def forget_player(self, player_id: str) -> None:
        partition = item_keys.pending_of_partition(self._secret(), player_id)
        with self._lock:
            for pointer in [k for k in self._items if k[0] == partition]:
                board_id, pending_id = pointer[1].split("#", 1)
                self._items.pop(item_keys.pending_key(board_id, pending_id), None)
                self._items.pop(pointer, None)

    def forget_board(self, board_id: str) -> None:
        partition = _board_partition(board_id)
        with self._lock:
            for key in [k for k in self._items if k[0] == partition]:
                item = self._items.pop(key)
                self._items.pop(_pointer_key(self._secret(), board_id, item["pending_player"], key[1]), None)
