"""tests/support/moto_speedups.py keeps moto's behaviour: a cancelled transaction still leaves a table's items and
its stream exactly as they were, and a backup is still a copy of the items (only the stream records are shared)."""

from __future__ import annotations

import copy

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws
from moto.core import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends

from tests.support import moto_speedups

STREAMS_URL = "https://streams.dynamodb.us-east-1.amazonaws.com"  # moto serves streams at the classic endpoint


@pytest.fixture
def table():
    moto_speedups.install()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        client.create_table(
            TableName="t",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
            StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        )
        yield client


def stream_records(client) -> list[dict]:
    streams = boto3.client("dynamodbstreams", region_name="us-east-1", endpoint_url=STREAMS_URL)
    arn = client.describe_table(TableName="t")["Table"]["LatestStreamArn"]
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
    return streams.get_records(ShardIterator=iterator["ShardIterator"])["Records"]


def test_a_cancelled_transaction_leaves_the_items_and_the_stream_as_they_were(table):
    table.put_item(TableName="t", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    table.put_item(TableName="t", Item={"pk": {"S": "b"}, "n": {"N": "1"}})
    before_items = sorted(table.scan(TableName="t")["Items"], key=lambda i: i["pk"]["S"])
    before_stream = [(r["eventName"], r["dynamodb"]["Keys"]) for r in stream_records(table)]
    with pytest.raises(ClientError) as refused:
        table.transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": "t",
                        "Key": {"pk": {"S": "a"}},
                        "UpdateExpression": "SET n = n + :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}},
                    }
                },
                {"Put": {"TableName": "t", "Item": {"pk": {"S": "c"}}}},
                {
                    "Put": {
                        "TableName": "t",
                        "Item": {"pk": {"S": "b"}},
                        "ConditionExpression": "attribute_not_exists(pk)",
                    }
                },
            ]
        )
    assert refused.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert sorted(table.scan(TableName="t")["Items"], key=lambda i: i["pk"]["S"]) == before_items
    assert [(r["eventName"], r["dynamodb"]["Keys"]) for r in stream_records(table)] == before_stream
    # and a transaction that goes through still writes both its items and their records
    table.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": {"pk": {"S": "c"}}}}])
    assert [r["eventName"] for r in stream_records(table)] == ["INSERT", "INSERT", "INSERT"]


def test_a_tables_backup_copies_its_items_and_shares_only_its_stream_records(table):
    table.put_item(TableName="t", Item={"pk": {"S": "a"}, "n": {"N": "1"}})
    live = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].tables["t"]
    backup = copy.deepcopy(live)
    assert backup is not live and backup.stream_shard is not live.stream_shard
    assert backup.stream_shard.items is not live.stream_shard.items
    assert [id(r) for r in backup.stream_shard.items] == [id(r) for r in live.stream_shard.items]
    assert backup.stream_shard.table is backup  # the copy's shard belongs to the copy, as with moto's own deepcopy
    assert backup.items is not live.items
    assert all(backup.items[k] is not live.items[k] for k in live.items)
    table.put_item(TableName="t", Item={"pk": {"S": "b"}})
    assert len(backup.items) == 1 and len(backup.stream_shard.items) == 1


def test_the_serializers_remembered_attribute_names_are_the_ones_moto_works_out(table, monkeypatch):
    from moto.core.serialize import XFormedAttributePicker

    cached = XFormedAttributePicker.get_possible_keys
    compared = []

    def checked(self, context):
        keys = list(cached(self, context))
        assert keys == list(moto_speedups.ORIGINAL_POSSIBLE_KEYS(self, context)), (context.key, context.shape)
        compared.append(context.key)
        yield from keys

    monkeypatch.setattr(XFormedAttributePicker, "get_possible_keys", checked)
    for _ in range(2):  # the second time from what the first remembered
        table.put_item(TableName="t", Item={"pk": {"S": "a"}, "m": {"M": {"l": {"L": [{"N": "1"}, {"S": "x"}]}}}})
        table.describe_table(TableName="t")
        table.query(TableName="t", KeyConditionExpression="pk = :a", ExpressionAttributeValues={":a": {"S": "a"}})
        table.transact_get_items(TransactItems=[{"Get": {"TableName": "t", "Key": {"pk": {"S": "a"}}}}])
    assert {"Table", "Items", "Responses"} <= set(compared)


def test_the_cast_values_and_the_order_of_a_tables_items_are_motos_own():
    from moto.dynamodb.models.dynamo_type import DynamoType

    moto_speedups.install()
    values = [
        {"S": "b"},
        {"S": ""},
        {"N": "-1.50"},
        {"N": "10"},
        {"B": b"\x00\xff"},
        {"BOOL": False},
        {"NULL": True},
        {"SS": ["a", "b"]},
        {"NS": ["1", "2.0"]},
        {"L": [{"N": "1"}, {"S": "x"}]},
        {"M": {"k": {"N": "3"}}},
    ]
    for value in values:
        typed = DynamoType(value)
        assert typed.cast_value == moto_speedups.ORIGINAL_CAST_VALUE.fget(typed), value

    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        for name, attributes, schema in [
            ("ranged", [("h", "S"), ("r", "N")], [("h", "HASH"), ("r", "RANGE")]),
            ("hashed", [("h", "N")], [("h", "HASH")]),
        ]:
            client.create_table(
                TableName=name,
                KeySchema=[{"AttributeName": a, "KeyType": k} for a, k in schema],
                AttributeDefinitions=[{"AttributeName": a, "AttributeType": t} for a, t in attributes],
                BillingMode="PAY_PER_REQUEST",
            )
        for i in range(40):  # numbers that sort differently as text, strings that share prefixes
            client.put_item(
                TableName="ranged", Item={"h": {"S": "ab"[i % 2] * (i % 3 + 1)}, "r": {"N": str(7 - i * 1.5)}}
            )
            client.put_item(TableName="hashed", Item={"h": {"N": str((i * 37) % 23 - 11)}})
        tables = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].tables
        for name in ("ranged", "hashed"):
            assert [id(i) for i in tables[name].all_items()] == [
                id(i) for i in moto_speedups.ORIGINAL_ALL_ITEMS(tables[name])
            ]


def test_a_transaction_backs_each_of_its_tables_up_once(table, monkeypatch):
    from moto.dynamodb.models.table import Table

    made = []

    def recorded(self, memo):
        clone = moto_speedups._table_deepcopy(self, memo)
        made.append(id(clone))
        return clone

    monkeypatch.setattr(Table, "__deepcopy__", recorded)
    table.transact_write_items(TransactItems=[{"Put": {"TableName": "t", "Item": {"pk": {"S": key}}}} for key in "abc"])
    assert len(made) == 3 and len(set(made)) == 1  # moto asks once per item; the one copy answers each time
    made.clear()
    table.transact_write_items(TransactItems=[{"Delete": {"TableName": "t", "Key": {"pk": {"S": "a"}}}}])
    assert len(made) == 1  # the next transaction makes its own
    assert moto_speedups._backups_of_this_transaction is None
