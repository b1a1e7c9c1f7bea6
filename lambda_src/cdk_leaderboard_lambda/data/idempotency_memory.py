"""A Powertools idempotency persistence layer in memory (data/idempotency.py's MemoryRecords holds its records), so
that Powertools' own logic (in-progress, completed and expired records, payload validation) runs on the in-memory
store as on DynamoDB. Each method does what DynamoDBPersistenceLayer's does, its conditions included; imported
only when a request carries an Idempotency-Key, as Powertools is."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import STATUS_CONSTANTS, DataRecord

from ..shared import item_keys
from .memory import LockedItems

if TYPE_CHECKING:
    from ..domain.ports import RecordKey


def _copy(record: DataRecord, **changes: object) -> DataRecord:
    fields = {
        "idempotency_key": record.idempotency_key,
        "status": record._status,  # as stored: the status property says EXPIRED for an expired record
        "expiry_timestamp": record.expiry_timestamp,
        "in_progress_expiry_timestamp": record.in_progress_expiry_timestamp,
        "response_data": record.response_data,
        "payload_hash": record.payload_hash,
    }
    return DataRecord(**{**fields, **changes})  # type: ignore[arg-type]


class MemoryPersistenceLayer(BasePersistenceLayer):
    def __init__(self, records: LockedItems) -> None:
        self._records = records
        super().__init__()

    def _key(self, idempotency_key: str) -> RecordKey:
        return item_keys.IDEMPOTENCY_PARTITION, idempotency_key

    def _get_record(self, idempotency_key: str) -> DataRecord:
        with self._records.lock:
            found = self._records.items.get(self._key(idempotency_key))
        if found is None:
            raise IdempotencyItemNotFoundError
        return _copy(found)

    def _put_record(self, data_record: DataRecord) -> None:
        """Put unless a record is there that has not expired, or is in progress and its invocation still runs
        (DynamoDB's condition); else fail with the record found, validated against this payload."""
        stored = _copy(data_record, payload_hash=data_record.payload_hash if self.payload_validation_enabled else "")
        now = dt.datetime.now()  # Powertools' clock, as its DynamoDB layer's condition reads it
        with self._records.lock:
            old = self._records.items.get(self._key(data_record.idempotency_key))
            if old is None or _may_replace(old, now):
                self._records.items[self._key(data_record.idempotency_key)] = stored
                return
            old = _copy(old)
        self._validate_payload(data_payload=data_record, stored_data_record=old)
        self._save_to_cache(data_record=old)
        raise IdempotencyItemAlreadyExistsError(old_data_record=old)

    def _update_record(self, data_record: DataRecord) -> None:
        """Set the response, expiry, status (and the payload's hash): an UpdateItem, which makes a missing record."""
        key = self._key(data_record.idempotency_key)
        with self._records.lock:
            old = self._records.items.get(key)
            changes = {
                "response_data": data_record.response_data,
                "expiry_timestamp": data_record.expiry_timestamp,
                "status": data_record._status,
            }
            if self.payload_validation_enabled:
                changes["payload_hash"] = data_record.payload_hash
            base = old if old is not None else DataRecord(idempotency_key=data_record.idempotency_key)
            self._records.items[key] = _copy(base, **changes)

    def _delete_record(self, data_record: DataRecord) -> None:
        with self._records.lock:
            self._records.items.pop(self._key(data_record.idempotency_key), None)


def _may_replace(old: DataRecord, now: dt.datetime) -> bool:
    """DynamoDBPersistenceLayer's put condition on an existing record: expired, or in progress past its invocation."""
    expired = old.expiry_timestamp is not None and old.expiry_timestamp < int(now.timestamp())
    in_progress_ended = (
        old._status == STATUS_CONSTANTS["INPROGRESS"]
        and old.in_progress_expiry_timestamp is not None
        and old.in_progress_expiry_timestamp < int(now.timestamp() * 1000)
    )
    return expired or in_progress_ended
