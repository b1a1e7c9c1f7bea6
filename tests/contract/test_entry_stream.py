"""The entries' changes as the scores table's stream holds them: the same records (kind, keys, new and old images)
from DynamoDB Local's stream and from the in-memory stream (data/memory_stream.py) for the same writes. The stream
consumers (the rank counters, the live broadcaster) read nothing else, so domain tests that settle the in-memory
stream deliver them what the table's stream would."""

from __future__ import annotations

import time

import pytest

from cdk_leaderboard_lambda.data.memory_entries import MemoryEntries
from cdk_leaderboard_lambda.shared import item_keys
from cdk_leaderboard_lambda.shared.attribute_values import from_item
from cdk_leaderboard_lambda.shared.model import EntryWrite
from local import dynamodb_local
from local.streams import StreamReader

from .test_entry_store import PART, entry

OTHER = "race#daily#2026-12-01"


@pytest.fixture
def reader(runtime, request):
    """A reader of the entries' stream, past every record written before the test."""
    if isinstance(runtime.entries, MemoryEntries):
        found = runtime.entries.stream.reader()
    else:
        client, env = request.getfixturevalue("engine")
        arn = client.describe_table(TableName=env["SCORES_TABLE"])["Table"]["LatestStreamArn"]
        found = StreamReader(dynamodb_local.client(client.meta.endpoint_url, "dynamodbstreams"), arn)
    while found.read(1000):
        pass
    return found


def changes(reader) -> list[tuple]:
    """The entry records written since the last call: (event, keys, new image, old image), images as items."""
    reader.forget_shards()
    records = reader.read(1000)
    return [
        (r["eventName"], entry, image(r, "NewImage"), image(r, "OldImage"))
        for r in records
        if (entry := item_keys.entry_of_record(r))
    ]


def image(record: dict, which: str) -> dict | None:
    change = record["dynamodb"]
    return from_item(change[which]) if which in change else None


def test_a_write_that_changes_an_entry_is_one_record_and_a_refused_one_none(runtime, reader):
    store = runtime.entries
    store.keep_best(entry("ada", 10), descending=True, name_given=True)
    store.keep_best(entry("ada", 7), descending=True, name_given=True)  # not better: refused
    store.keep_best(entry("ada", 12), descending=True, name_given=True)
    (created, improved) = changes(reader)
    assert created[:2] == ("INSERT", ("ada", PART)) and created[3] is None and created[2]["score"] == 10
    assert improved[:2] == ("MODIFY", ("ada", PART))
    assert (improved[2]["score"], improved[3]) == (12, created[2])


def test_a_hide_moves_the_rank_key_in_one_modify(runtime, reader):
    store = runtime.entries
    store.write([EntryWrite(entry("bo", 3), None)])
    store.set_hidden("bo", PART, store.one("bo", PART), hidden=True)
    (_, hidden) = changes(reader)
    event, key, new, old = hidden
    assert (event, key) == ("MODIFY", ("bo", PART))
    assert "rank_key" in old and "hidden_rank_key" not in old
    assert "rank_key" not in new and new["hidden_rank_key"] == old["rank_key"]


def test_batched_puts_and_deletes_are_a_record_each_and_a_delete_of_nothing_none(runtime, reader):
    store = runtime.entries
    store.put_new([entry("cy", 5), entry("cy", 6, OTHER)])
    store.delete([("cy", OTHER), ("nobody", PART)])
    found = changes(reader)
    assert [(e, k) for e, k, _, _ in found] == [("INSERT", ("cy", PART)), ("INSERT", ("cy", OTHER)),
                                                ("REMOVE", ("cy", OTHER))]  # fmt: skip
    assert found[2][2] is None and found[2][3]["score"] == 6


def test_a_fence_replaces_the_entry_in_a_modify_and_its_lifting_removes_it(runtime, reader):
    store = runtime.entries
    store.put_new([entry("dee", 5)])
    store.raise_fence("dee", [PART], int(time.time()) + 60)
    store.lift_fence("dee")
    (_, fenced, lifted) = changes(reader)
    assert fenced[:2] == ("MODIFY", ("dee", PART)) and fenced[3]["score"] == 5 and "score" not in fenced[2]
    assert lifted[:2] == ("REMOVE", ("dee", PART)) and lifted[3] == fenced[2]


def test_a_put_of_the_item_already_stored_is_no_record(runtime, reader):
    store = runtime.entries
    store.put_new([entry("eve", 5)])
    store.put_new([entry("eve", 5)])
    assert [(e, k) for e, k, _, _ in changes(reader)] == [("INSERT", ("eve", PART))]
