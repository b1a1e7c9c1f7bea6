"""The scores table's stream in memory, for the entries kept in memory (data/memory_entries.py): each change of an
entry item as the record DynamoDB Streams writes for it (NEW_AND_OLD_IMAGES, the scores table's view type), in the
shape Lambda hands its consumers (local/streams.lambda_record's), written by data/stream_changes.py, whose decoder
turns them into the same typed changes as a table's records. So the stream consumers (the rank counters, the
live broadcaster) run on the in-memory stores as they run on a table's stream; tests/contract/test_entry_stream.py
holds the records to DynamoDB Local's.

As DynamoDB does: a write that changes nothing (a refused condition, a put of the same item, a delete of no item)
writes no record; a put over an item is a MODIFY. Unlike a table's stream, the records are in one order (a
table's are in order per item, which is all its consumers may rely on) and never expire."""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any

from . import stream_changes

SOURCE_ARN = "arn:aws:dynamodb:memory:000000000000:table/scores/stream/memory"  # eventSourceARN of every record


class MemoryStream:
    """The records written so far, oldest first."""

    def __init__(self) -> None:
        self._records: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def changed(self, key: tuple[str, str], old: dict[str, Any] | None, new: dict[str, Any] | None) -> None:
        """Record the change of the item at `key` from `old` to `new` (None: no item), as stored."""
        if old == new:
            return
        with self._lock:
            sequence = f"{len(self._records) + 1:021d}"
            # as a table's stream: the creation time is the wall clock's, not the domain's
            self._records.append(
                stream_changes.record(key, old, new, uuid.uuid4().hex, sequence, time.time(), SOURCE_ARN)
            )

    def reader(self) -> MemoryStreamReader:
        """A reader from the first record on (a table stream's TRIM_HORIZON)."""
        return MemoryStreamReader(self)

    def since(self, position: int, limit: int) -> list[dict[str, Any]]:
        with self._lock:
            return self._records[position : position + limit]


class MemoryStreamReader:
    """What local/streams.StreamReader is for a table's stream: each record read once, in order (drain() reads
    through either)."""

    def __init__(self, stream: MemoryStream) -> None:
        self._stream = stream
        self._position = 0

    def forget_shards(self) -> None:
        """One shard, never closed: nothing to list again (StreamReader's, which a settle calls)."""

    def read(self, limit: int) -> list[dict[str, Any]]:
        records = self._stream.since(self._position, limit)
        self._position += len(records)
        return records
