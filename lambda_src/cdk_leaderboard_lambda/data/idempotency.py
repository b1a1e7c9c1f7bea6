"""Idempotency records: Powertools' persistence layer on the scores table, under its own partition.

Two implementations of ports.IdempotencyStore, held to the same behaviour by tests/contract: the DynamoDB one
(Powertools' DynamoDBPersistenceLayer: what every function uses) and an in-memory one (a Powertools persistence
layer in memory, data/idempotency_memory.py, so that Powertools' own logic runs on both). Either builds its layer
on the first request that carries an Idempotency-Key (importing Powertools costs cold-start time other requests
need not pay), then keeps it."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import Any

from ..domain.ports import RecordKey
from ..shared import item_keys, schema
from ..shared.attribute_values import to_item
from . import dynamo, memory


class DynamoRecords:
    """The records as items of the scores table, under item_keys.IDEMPOTENCY_PARTITION."""

    def __init__(self, client: Any, table: str) -> None:
        self._client, self._table = client, table
        self._layer: Any = None
        self._lock = threading.Lock()

    def persistence(self) -> Any:
        with self._lock:
            if self._layer is None:
                from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

                self._layer = DynamoDBPersistenceLayer(
                    table_name=self._table,
                    key_attr=schema.SCORES_PARTITION_KEY,
                    sort_key_attr=schema.SCORES_SORT_KEY,
                    static_pk_value=item_keys.IDEMPOTENCY_PARTITION,
                    expiry_attr=schema.TTL_ATTRIBUTE,  # the table's TTL removes old records
                    boto3_client=self._client,
                )
            return self._layer

    def records_holding(self, text: str, start: dict | None, limit: int) -> tuple[list[RecordKey], dict | None]:
        """Keys of records whose stored response holds `text`: one page of the records partition (every record of
        the last limits.IDEMPOTENCY_KEEP_SECONDS, whoever made it), filtered by DynamoDB (after the limit: a page
        may be short)."""
        args = {
            "TableName": self._table,
            "KeyConditionExpression": f"{schema.SCORES_PARTITION_KEY} = :p",
            "FilterExpression": "contains(#data, :text)",
            "ExpressionAttributeNames": {"#data": "data"},
            "ExpressionAttributeValues": to_item({":p": item_keys.IDEMPOTENCY_PARTITION, ":text": text}),
            "Limit": limit,
        }
        if start:
            args["ExclusiveStartKey"] = start
        resp = self._client.query(**args)
        items = resp.get("Items", [])
        found = [(i[schema.SCORES_PARTITION_KEY]["S"], i[schema.SCORES_SORT_KEY]["S"]) for i in items]
        return found, resp.get("LastEvaluatedKey")

    def forget(self, records: Iterable[RecordKey]) -> int:
        """Delete these records (erasure): BatchWriteItem, 25 keys a request. Returns how many."""
        requests = ({"DeleteRequest": {"Key": dynamo.key(p, s)}} for p, s in records)
        return dynamo.batch_write(requests, on=(self._client, self._table))


class MemoryRecords(memory.LockedItems):
    """The same records in a dict of this instance, by their scores-table key (no TTL: a retry within a test):
    Powertools' DataRecords, which the layer keeps in `items`."""

    def __init__(self) -> None:
        super().__init__()
        self._layer: Any = None

    def persistence(self) -> Any:
        with self.lock:
            if self._layer is None:
                from .idempotency_memory import MemoryPersistenceLayer

                self._layer = MemoryPersistenceLayer(self)
            return self._layer

    def records_holding(self, text: str, start: dict | None, limit: int) -> tuple[list[RecordKey], dict | None]:
        with self.lock:
            held = {k for k, r in self.items.items() if text in (r.response_data or "")}
            return memory.page(sorted(self.items), start, limit, accept=held.__contains__)

    def forget(self, records: Iterable[RecordKey]) -> int:
        wanted = list(records)
        with self.lock:
            for key in wanted:
                self.items.pop(key, None)
        return len(wanted)
