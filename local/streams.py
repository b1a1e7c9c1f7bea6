"""Lambda's event source mapping for DynamoDB streams, in-process: poll a table's stream, keep the records that
the mapping's filters let through, hand them to the handler in batches, and retry a batch until it succeeds.

The same `drain()` serves the background poller of the local stack and the unit tests (under moto)."""

from __future__ import annotations

import sys
import threading
import time
import traceback
from collections.abc import Callable
from datetime import datetime
from typing import Any

IDLE_POLL_SECONDS = 0.1  # a poller's default interval, and its interval while settle() waits
# A poller told of writes (wake(): the local stack does after every function call) polls every poll_seconds for
# ACTIVE_IDLE_ROUNDS empty polls after its last delivery or wake-up, then every quiet_poll_seconds: an idle stack's
# polls (a DescribeStream and a GetRecords a shard each) took a sixth of a core, for nothing.
ACTIVE_IDLE_ROUNDS = 10
# The local stack's active interval: Lambda polls a shard four times a second. (Each poll is a GetRecords a shard,
# about 2.5 ms of CPU here, engine and client.)
LAMBDA_POLL_SECONDS = 0.25
QUIET_POLL_SECONDS = 1.0  # a write that wakes no poller waits at most this
# A reader lists the stream's shards again after a shard closes, when asked (a settle) and at least this often: a
# DescribeStream on every poll was as many requests as the GetRecords.
DESCRIBE_EVERY_SECONDS = 1.0
RETRY_SECONDS = 0.5


def matches(pattern: Any, value: Any) -> bool:
    """Lambda/EventBridge event filter matching, for the rules the templates use (values, exists, prefix)."""
    if isinstance(pattern, dict):
        if not isinstance(value, dict):
            return False
        return all(matches(sub, value.get(k, _MISSING)) for k, sub in pattern.items())
    if isinstance(pattern, list):
        return any(_rule(rule, value) for rule in pattern)
    raise ValueError(f"unsupported filter pattern {pattern!r}")


_MISSING = object()


def _rule(rule: Any, value: Any) -> bool:
    if isinstance(rule, dict):
        if "exists" in rule:
            return (value is not _MISSING) == rule["exists"]
        if "prefix" in rule:
            return isinstance(value, str) and value.startswith(rule["prefix"])
        raise ValueError(f"unsupported filter rule {rule!r}")
    return value is not _MISSING and value == rule


def lambda_record(record: dict, stream_arn: str) -> dict:
    """A GetRecords record as Lambda delivers it: with eventSourceARN, the creation time in epoch seconds."""
    change = dict(record["dynamodb"])
    created = change.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        change["ApproximateCreationDateTime"] = created.timestamp()
    return {**record, "dynamodb": change, "eventSourceARN": stream_arn}


class StreamReader:
    """The records of every shard of one stream, in order per shard, each read once."""

    def __init__(self, streams_client, stream_arn: str, describe_every_seconds: float = DESCRIBE_EVERY_SECONDS) -> None:
        self.client = streams_client
        self.arn = stream_arn
        self.describe_every_seconds = describe_every_seconds
        self.iterators: dict[str, str | None] = {}  # shard id -> next iterator (None: shard closed and read)
        self.last_read: dict[str, str] = {}  # shard id -> sequence number of the last record read
        self.records_read = 0
        self._shards: list[dict] | None = None  # the last DescribeStream's (None: list them on the next read)
        self._described_at = 0.0

    def forget_shards(self) -> None:
        """List the shards again on the next read (a settle: no shard opened since the last listing is missed)."""
        self._shards = None

    def _current_shards(self) -> list[dict]:
        if self._shards is None or time.monotonic() - self._described_at >= self.describe_every_seconds:
            self._shards = self.client.describe_stream(StreamArn=self.arn)["StreamDescription"]["Shards"]
            self._described_at = time.monotonic()
        return self._shards

    def read(self, limit: int) -> list[dict]:
        records: list[dict] = []
        renewable = (self.client.exceptions.TrimmedDataAccessException, self.client.exceptions.ExpiredIteratorException)
        for shard in self._current_shards():
            sid = shard["ShardId"]
            if sid not in self.iterators:
                self.iterators[sid] = self._iterator(sid)
            iterator, renewed = self.iterators[sid], False
            while iterator and len(records) < limit:
                try:
                    resp = self.client.get_records(ShardIterator=iterator, Limit=min(1000, limit - len(records)))
                except renewable:
                    # DynamoDB Local sometimes refuses an iterator taken on a shard before its first record, and
                    # an iterator expires 15 minutes after GetShardIterator (a reader idle that long: the 100,000-
                    # player bench): take a fresh one after the last record read, once (Lambda's poller does the same)
                    if renewed:
                        raise
                    iterator, renewed = self._iterator(sid), True
                    continue
                iterator = resp.get("NextShardIterator")
                fresh = resp.get("Records", [])
                records += [lambda_record(r, self.arn) for r in fresh]
                self.records_read += len(fresh)
                if not fresh:
                    break
                self.last_read[sid] = fresh[-1]["dynamodb"]["SequenceNumber"]
            if iterator is None and self.iterators[sid] is not None:
                self.forget_shards()  # closed: its child shard, listed on the next read, holds what follows
            self.iterators[sid] = iterator
        return records

    def _iterator(self, shard_id: str) -> str:
        after = self.last_read.get(shard_id)
        position = (
            {"ShardIteratorType": "AFTER_SEQUENCE_NUMBER", "SequenceNumber": after}
            if after
            else {"ShardIteratorType": "TRIM_HORIZON"}
        )
        return self.client.get_shard_iterator(StreamArn=self.arn, ShardId=shard_id, **position)["ShardIterator"]


def drain(
    reader: StreamReader,
    handler: Callable,
    batch_size: int,
    patterns: tuple[dict, ...] = (),
    retry_while: Callable[[], bool] = lambda: False,
    retry_attempts: int | None = None,
    until: Callable[[list[dict]], bool] | None = None,
) -> int:
    """Deliver every record the stream holds now, in batches; returns how many passed the filters. With until,
    stop after the first batch for which until(records) is true (the records read, before the filters), even while
    writers go on adding more.

    A batch whose handler raises is retried while retry_while() says so, at most retry_attempts times (None:
    until it succeeds, as Lambda does until the records expire), then given up as Lambda gives it up; without
    retries the error propagates. (Lambda's halving of a failing batch is not modelled.)"""
    delivered = 0
    while True:
        records = reader.read(batch_size)
        if not records:
            return delivered
        batch = [r for r in records if not patterns or any(matches(p, r) for p in patterns)]
        failures = 0
        while batch:
            try:
                handler({"Records": batch}, None)
                break
            except Exception:
                failures += 1
                if not retry_while():
                    raise
                traceback.print_exc()
                if retry_attempts is not None and failures > retry_attempts:
                    print(
                        f"stream consumer: gave up a batch of {len(batch)} after {failures} attempts", file=sys.stderr
                    )
                    break
                print(f"stream consumer failed on a batch of {len(batch)}; retrying", file=sys.stderr)
                time.sleep(RETRY_SECONDS)
        delivered += len(batch)
        if until is not None and until(records):
            return delivered


class StreamPoller:
    """A background thread doing what Lambda's event source mapping does; `settle()` waits until it is idle."""

    def __init__(
        self,
        reader: StreamReader,
        handler: Callable,
        batch_size: int,
        patterns: tuple[dict, ...],
        retry_attempts: int | None = None,
        poll_seconds: float = IDLE_POLL_SECONDS,
        quiet_poll_seconds: float = IDLE_POLL_SECONDS,
    ) -> None:
        self.reader, self.handler, self.batch_size, self.patterns = reader, handler, batch_size, patterns
        self.retry_attempts = retry_attempts
        self.poll_seconds, self.quiet_poll_seconds = poll_seconds, quiet_poll_seconds
        self._settling = 0  # settle() calls waiting: poll every IDLE_POLL_SECONDS for them
        self._stop = threading.Event()
        self._wake = threading.Event()  # set by wake(), settle() and stop(): end the wait
        self._idle_rounds = 0  # completed polls that found nothing to deliver
        self._quiet_rounds = 0  # empty polls since the last delivery or wake-up
        self._changed = threading.Condition()
        self.thread = threading.Thread(target=self._run, name="stream-poller", daemon=True)

    def start(self) -> StreamPoller:
        self.thread.start()
        return self

    def renewed(self) -> StreamPoller:
        """A new poller (not started) on the same reader, handler and settings: a stopped thread cannot restart."""
        return StreamPoller(
            self.reader,
            self.handler,
            self.batch_size,
            self.patterns,
            self.retry_attempts,
            poll_seconds=self.poll_seconds,
            quiet_poll_seconds=self.quiet_poll_seconds,
        )

    def wake(self) -> None:
        """Something may have written: poll at the active pace for a while (now, if the last poll was longer than
        poll_seconds ago). The local stack wakes its pollers after every function call: a poll at each one made a
        busy stack's polls half of its DynamoDB requests (tests/fuzz: 9,768 of 21,000)."""
        self._wake.set()

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()  # a wake-up from here on (during the drain) means another poll soon
            polled_at = time.monotonic()
            try:
                retry = lambda: not self._stop.is_set()  # noqa: E731
                delivered = drain(self.reader, self.handler, self.batch_size, self.patterns, retry, self.retry_attempts)
            except Exception:  # stopping, or the stream itself failed: try again shortly
                delivered = -1
                if not self._stop.is_set():
                    traceback.print_exc()
            with self._changed:
                self._idle_rounds = self._idle_rounds + 1 if delivered == 0 else 0
                self._changed.notify_all()
            self._quiet_rounds = self._quiet_rounds + 1 if delivered == 0 else 0
            if self._settling:
                interval = min(self.poll_seconds, IDLE_POLL_SECONDS)
            elif self._quiet_rounds > ACTIVE_IDLE_ROUNDS:
                interval = self.quiet_poll_seconds
            else:
                interval = self.poll_seconds
            if self._wake.wait(interval):
                self._quiet_rounds = 0
                if not self._settling:  # Lambda's pace: no sooner than poll_seconds after the last poll
                    self._stop.wait(max(0.0, polled_at + self.poll_seconds - time.monotonic()))

    def settle(self, timeout: float = 30.0) -> None:
        """Return once every record written before the call has been delivered (two idle polls in a row)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            self._settling += 1
            self.reader.forget_shards()
            self.wake()
            self._idle_rounds = 0
            try:
                while self._idle_rounds < 2:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise TimeoutError("the stream consumer did not catch up")
                    self._changed.wait(left)
            finally:
                self._settling -= 1

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        self.thread.join(timeout=5)
