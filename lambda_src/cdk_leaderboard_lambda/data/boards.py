"""Board configurations: items of the scores table under the partition item_keys.BOARDS_PARTITION, and their count
(one item, item_keys.BOARD_COUNT_KEY) that the deployment's cap (max_boards) is checked against.

Two implementations of ports.BoardStore, held to the same behaviour by tests/contract: the DynamoDB one
(what every function uses) and an in-memory one (for domain tests that need no engine). The submission path reads
a stored board's item along with the entries in one request (data.entries.get_for_submission)."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

from ..domain.ports import BUSY, CREATED, DELETED, EXISTS, FULL, MISSING
from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item
from . import dynamo, memory

_ATTEMPTS = 8  # transactions cancelled by another one on the count item (TransactionConflict): then BUSY
_COUNT = "boards"  # the count item's attribute
_PARTITION, _SORT = schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY


def _item(config: dict[str, Any]) -> dict[str, Any]:
    return {_PARTITION: item_keys.BOARDS_PARTITION, _SORT: config["board_id"], **config}


class DynamoBoards:
    """The configs and their count as items of the scores table."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table

    def put_counted(self, config: dict[str, Any], cap: int) -> str:
        """Create a board config and count it in ONE transaction: the board's put (only if no board has its id)
        and the count + 1 (only if below `cap`), so creates racing each other can never pass the cap. Returns
        CREATED, EXISTS, FULL or BUSY (every attempt cancelled by another transaction on the count: nothing
        stored)."""
        put = {
            "TableName": self._table,
            "Item": to_item(_item(config)),
            "ConditionExpression": f"attribute_not_exists({_SORT})",
        }
        count = self._count_update("+", f"{_COUNT} < :cap", {":cap": cap})
        return self._counted({"Put": put}, count, CREATED, EXISTS, FULL)

    def delete_counted(self, board_id: str) -> str:
        """Delete a board config and uncount it in ONE transaction. Returns DELETED, MISSING (no such board:
        nothing to delete) or BUSY (nothing deleted)."""
        delete = {
            "TableName": self._table,
            "Key": dynamo.key(*item_keys.board_key(board_id)),
            "ConditionExpression": f"attribute_exists({_SORT})",
        }
        uncount = self._count_update("-", f"{_COUNT} > :zero", {":zero": 0})
        return self._counted({"Delete": delete}, uncount, DELETED, MISSING, None)

    def _count_update(self, sign: str, condition: str, values: dict[str, int]) -> dict[str, Any]:
        return {
            "Update": {
                "TableName": self._table,
                "Key": dynamo.key(*item_keys.BOARD_COUNT_KEY),
                "UpdateExpression": f"SET {_COUNT} = {_COUNT} {sign} :one",
                "ConditionExpression": condition,
                "ExpressionAttributeValues": to_item({":one": 1, **values}),
            }
        }

    def _counted(self, board: dict, count: dict, done: str, board_refused: str, count_refused: str | None) -> str:
        for attempt in range(_ATTEMPTS):
            try:
                dynamo.transact([board, count], on=self._client)
                return done
            except dynamo.Cancelled as err:
                board_reason, count_reason = (err.reasons + ["None", "None"])[:2]
            if board_reason == "ConditionalCheckFailed":
                return board_refused
            if count_reason == "ConditionalCheckFailed":
                if self.counted() is not None and count_refused is not None:
                    return count_refused
                self._initialise_count()  # a deployment from before the count (or a count gone): count the boards
                continue
            time.sleep(random.uniform(0, min(0.5, 0.02 * 2**attempt)))  # TransactionConflict: let the other commit
        return BUSY

    def counted(self) -> int | None:
        """The count item's value (strongly consistent); None before the first create counted the boards."""
        resp = self._client.get_item(
            TableName=self._table, Key=dynamo.key(*item_keys.BOARD_COUNT_KEY), ConsistentRead=True
        )
        return int(from_item(resp["Item"])[_COUNT]) if "Item" in resp else None

    def _initialise_count(self) -> None:
        """Put the count item from the board items there are, unless another call put it first. Nothing changes the
        boards meanwhile: every create and delete needs the count item in its transaction."""
        try:
            self._client.put_item(
                TableName=self._table,
                Item=dynamo.key(*item_keys.BOARD_COUNT_KEY) | to_item({_COUNT: self.count()}),
                ConditionExpression=f"attribute_not_exists({_COUNT})",
            )
        except self._client.exceptions.ConditionalCheckFailedException:
            pass

    def replace(self, config: dict[str, Any]) -> bool:
        """Put a board's changed config over its item, unless the board is gone or being deleted (then False)."""
        try:
            self._client.put_item(
                TableName=self._table,
                Item=to_item(_item(config)),
                ConditionExpression=f"attribute_exists({_SORT}) AND (attribute_not_exists(#s) OR #s <> :deleting)",
                ExpressionAttributeNames={"#s": "status"},
                ExpressionAttributeValues=to_item({":deleting": "deleting"}),
            )
            return True
        except self._client.exceptions.ConditionalCheckFailedException:
            return False

    def get(self, board_id: str) -> dict[str, Any] | None:
        resp = self._client.get_item(TableName=self._table, Key=dynamo.key(*item_keys.board_key(board_id)))
        return from_item(resp["Item"]) if "Item" in resp else None

    def count(self) -> int:
        """Stored board items (those being deleted too), strongly consistent. COUNT Queries: board items are ~1 KB,
        so up to ~1,000 boards fit DynamoDB's 1 MB page (more boards: a page each)."""
        counted = 0
        for page in dynamo.query_pages(on=self._client, Select="COUNT", ConsistentRead=True, **self._partition()):
            counted += page["Count"]
        return counted

    def page(self, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` board items in board-id order after board `after` (None: from the first), and whether more
        may follow. One Query (items of ~1 KB: 100 of them are one page)."""
        args: dict[str, Any] = {**self._partition(), "Limit": limit}
        if after is not None:
            args["ExclusiveStartKey"] = dynamo.key(*item_keys.board_key(after))
        resp = self._client.query(**args)
        return [from_item(i) for i in resp.get("Items", [])], "LastEvaluatedKey" in resp

    def all(self) -> list[dict[str, Any]]:
        """Every board item, in board-id order."""
        return dynamo.query_items(on=self._client, **self._partition())

    def set_status(self, board_id: str, status: str) -> None:
        self._client.update_item(
            TableName=self._table,
            Key=dynamo.key(*item_keys.board_key(board_id)),
            UpdateExpression="SET #s = :s",
            ExpressionAttributeNames={"#s": "status"},  # a DynamoDB reserved word
            ExpressionAttributeValues=to_item({":s": status}),
        )

    def archive(self, record: dict[str, Any], expires_s: int) -> None:
        """Keep a deleted board generation's record (item_keys.archive_key) until `expires_s` (the table's TTL)."""
        part, sort = item_keys.archive_key(record["board_id"], record["generation"])
        item = {_PARTITION: part, _SORT: sort, **record, schema.TTL_ATTRIBUTE: expires_s}
        self._client.put_item(TableName=self._table, Item=to_item(item))

    def archived(self, board_id: str | None = None) -> list[dict[str, Any]]:
        """The board id's archived generations, or every board's (None): one Query of small items (~1 KB each)."""
        condition, values = f"{_PARTITION} = :p", {":p": item_keys.ARCHIVES_PARTITION}
        if board_id is not None:
            condition, values = (
                f"{condition} AND begins_with({_SORT}, :b)",
                {**values, ":b": item_keys.archive_prefix(board_id)},
            )
        items = dynamo.query_items(
            on=self._client,
            TableName=self._table,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=to_item(values),
        )
        return [_archived(i) for i in items]

    def _partition(self) -> dict[str, Any]:
        return {
            "TableName": self._table,
            "KeyConditionExpression": f"{_PARTITION} = :p",
            "ExpressionAttributeValues": to_item({":p": item_keys.BOARDS_PARTITION}),
        }


def _archived(item: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in item.items() if k not in (_PARTITION, _SORT, schema.TTL_ATTRIBUTE)}


class MemoryBoards:
    """The same items in a dict of this instance by board id, and the count as a number (None: not counted yet,
    as for a deployment from before the count)."""

    def __init__(self) -> None:
        self._items: dict[str, dict[str, Any]] = {}
        self._count: int | None = None
        self._archive: dict[tuple[str, str], dict[str, Any]] = {}
        self._lock = threading.Lock()

    def put_counted(self, config: dict[str, Any], cap: int) -> str:
        with self._lock:
            if config["board_id"] in self._items:
                return EXISTS
            counted = len(self._items) if self._count is None else self._count
            if counted >= cap:
                self._count = counted
                return FULL
            self._items[config["board_id"]] = memory.stored(_item(config))
            self._count = counted + 1
            return CREATED

    def delete_counted(self, board_id: str) -> str:
        with self._lock:
            if board_id not in self._items:
                return MISSING
            counted = len(self._items) if self._count is None else self._count
            del self._items[board_id]
            self._count = counted - 1
            return DELETED

    def counted(self) -> int | None:
        with self._lock:
            return self._count

    def replace(self, config: dict[str, Any]) -> bool:
        with self._lock:
            old = self._items.get(config["board_id"])
            if old is None or old.get("status") == "deleting":
                return False
            self._items[config["board_id"]] = memory.stored(_item(config))
            return True

    def get(self, board_id: str) -> dict[str, Any] | None:
        with self._lock:
            found = self._items.get(board_id)
            return dict(found) if found is not None else None

    def count(self) -> int:
        with self._lock:
            return len(self._items)

    def page(self, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        with self._lock:  # board ids in DynamoDB's order: by UTF-8 bytes, which is code point order
            found = sorted(b for b in self._items if after is None or b > after)
            return [dict(self._items[b]) for b in found[:limit]], len(found) >= limit and bool(found)

    def all(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(self._items[b]) for b in sorted(self._items)]

    def set_status(self, board_id: str, status: str) -> None:
        with self._lock:  # UpdateItem creates the item if it is absent, with the key and this attribute only
            key = {_PARTITION: item_keys.BOARDS_PARTITION, _SORT: board_id}
            self._items[board_id] = {**self._items.get(board_id, key), "status": status}

    def archive(self, record: dict[str, Any], expires_s: int) -> None:
        with self._lock:
            self._archive[item_keys.archive_key(record["board_id"], record["generation"])] = dict(record)

    def archived(self, board_id: str | None = None) -> list[dict[str, Any]]:
        with self._lock:
            prefix = "" if board_id is None else item_keys.archive_prefix(board_id)
            return [dict(r) for (_, s), r in sorted(self._archive.items()) if s.startswith(prefix)]
