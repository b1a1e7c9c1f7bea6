"""The local stack's stream poller: quiet when nothing is written, at once when woken (the local stack wakes it after
every function call), and settle() does not wait out a quiet interval. Counted in polls, never in seconds. Its
reader renews a refused iterator after the last record read."""

from __future__ import annotations

import threading
import time

import boto3
from moto import mock_aws

from local.streams import ACTIVE_IDLE_ROUNDS, StreamPoller, StreamReader

BOUND = 30.0  # generous: a loaded 2-core machine


class CountingReader:
    """A stream that is always empty, counting the polls."""

    def __init__(self) -> None:
        self.polls = 0
        self.polled = threading.Condition()

    def read(self, limit: int) -> list[dict]:
        with self.polled:
            self.polls += 1
            self.polled.notify_all()
        return []

    def forget_shards(self) -> None:
        pass

    def wait_for(self, polls: int) -> None:
        with self.polled:
            assert self.polled.wait_for(lambda: self.polls >= polls, BOUND), self.polls


def test_an_idle_poller_goes_quiet_and_a_wake_up_or_a_settle_polls_at_once():
    reader = CountingReader()
    # an hour's quiet interval: any poll past the active rounds is one a wake-up asked for
    poller = StreamPoller(reader, lambda event, context: None, 100, (), quiet_poll_seconds=3600).start()
    try:
        reader.wait_for(ACTIVE_IDLE_ROUNDS + 1)  # the active rounds, then the quiet wait begins
        time.sleep(0.5)  # five active intervals: none of them polls now (a slower machine polls no more)
        quiet = reader.polls
        assert quiet == ACTIVE_IDLE_ROUNDS + 1
        poller.wake()
        reader.wait_for(quiet + 2)  # woken: it polls, and often again for a while
        reader.wait_for(quiet + ACTIVE_IDLE_ROUNDS + 1)
        poller.settle(timeout=BOUND)  # two idle polls after the call, not an hour
    finally:
        poller.stop()
    assert not poller.thread.is_alive()  # stop() wakes it too


def test_without_a_quiet_interval_it_polls_as_before():
    reader = CountingReader()
    poller = StreamPoller(reader, lambda event, context: None, 100, ()).start()
    try:
        reader.wait_for(ACTIVE_IDLE_ROUNDS + 5)  # past the active rounds it keeps polling (bench/ keeps this)
    finally:
        poller.stop()


def test_a_settle_polls_at_the_short_interval_whatever_the_pollers_own():
    reader = CountingReader()
    poller = StreamPoller(reader, lambda event, context: None, 100, (), poll_seconds=3600, quiet_poll_seconds=3600)
    poller.start()
    try:
        reader.wait_for(1)
        poller.settle(timeout=BOUND)  # two idle polls, IDLE_POLL_SECONDS apart, not an hour
    finally:
        poller.stop()


class ShardsClient:
    """A dynamodbstreams client whose stream has one shard, then (once `close()` is called) a closed parent and
    an open child holding one record; counting the DescribeStream calls."""

    class exceptions:
        class TrimmedDataAccessException(Exception):
            pass

        class ExpiredIteratorException(Exception):
            pass

    def __init__(self) -> None:
        self.describes = 0
        self.closed = False

    def describe_stream(self, StreamArn):
        self.describes += 1
        shards = [{"ShardId": "parent"}] + ([{"ShardId": "child"}] if self.closed else [])
        return {"StreamDescription": {"Shards": shards}}

    def get_shard_iterator(self, StreamArn, ShardId, **position):
        return {"ShardIterator": ShardId}

    def get_records(self, ShardIterator, Limit):
        if ShardIterator == "parent":
            return {"Records": []} if self.closed else {"Records": [], "NextShardIterator": "parent"}
        record = {"eventName": "INSERT", "dynamodb": {"SequenceNumber": "1", "Keys": {}}}
        return {"Records": [record] if ShardIterator == "child" else [], "NextShardIterator": "child-next"}


def test_a_reader_lists_the_shards_again_after_one_closes_or_when_told_and_not_on_every_read():
    client = ShardsClient()
    reader = StreamReader(client, "arn:aws:dynamodb:us-east-1:1:table/t/stream/s", describe_every_seconds=3600)
    assert reader.read(100) == [] and reader.read(100) == []
    assert client.describes == 1  # within describe_every_seconds: the listing is reused
    reader.forget_shards()
    reader.read(100)
    assert client.describes == 2
    client.closed = True
    assert reader.read(100) == []  # the parent ends here: its child is listed on the next read
    assert [r["dynamodb"]["SequenceNumber"] for r in reader.read(100)] == ["1"]
    assert client.describes == 3


class ExpiringStreams:
    """A real dynamodbstreams client (moto's) whose iterators handed out so far expire on `expire()`, as DynamoDB
    Streams expires one 15 minutes after GetShardIterator: with ExpiredIteratorException on GetRecords."""

    def __init__(self, client) -> None:
        self.client = client
        self.exceptions = client.exceptions
        self.seen: set[str] = set()
        self.expired: set[str] = set()

    def __getattr__(self, name):
        return getattr(self.client, name)

    def get_shard_iterator(self, **params):
        resp = self.client.get_shard_iterator(**params)
        self.seen.add(resp["ShardIterator"])
        return resp

    def get_records(self, ShardIterator, Limit):
        if ShardIterator in self.expired:
            error = {"Error": {"Code": "ExpiredIteratorException", "Message": "Iterator expired"}}
            raise self.exceptions.ExpiredIteratorException(error, "GetRecords")
        resp = self.client.get_records(ShardIterator=ShardIterator, Limit=Limit)
        self.seen.add(resp.get("NextShardIterator", ""))
        return resp

    def expire(self) -> None:
        self.expired |= self.seen


def test_a_reader_idle_past_its_iterators_expiry_goes_on_after_the_last_record_it_read():
    with mock_aws():
        ddb = boto3.client("dynamodb", region_name="us-east-1")
        table = ddb.create_table(
            TableName="t",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"},
        )["TableDescription"]
        # moto serves the streams API only at its classic endpoint, not botocore's account-based one.
        streams = ExpiringStreams(
            boto3.client(
                "dynamodbstreams",
                region_name="us-east-1",
                endpoint_url="https://streams.dynamodb.us-east-1.amazonaws.com",
            )
        )
        reader = StreamReader(streams, table["LatestStreamArn"])
        for pk in ("a", "b", "c"):
            ddb.put_item(TableName="t", Item={"pk": {"S": pk}})
        first = reader.read(1)
        streams.expire()
        rest = reader.read(100)
        streams.expire()
        assert reader.read(100) == []  # expired again, with nothing new: a fresh iterator, no record twice
    assert [r["dynamodb"]["Keys"]["pk"]["S"] for r in first + rest] == ["a", "b", "c"]
