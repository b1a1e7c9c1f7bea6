"""The entries' changes as the scores table's stream holds them: the same records (kind, keys, new and old images)
from DynamoDB Local's stream and from the in-memory stream (data/memory_stream.py) for the same writes, and the same
typed changes decoded from them (data/stream_changes.py, the one decoder). The stream consumers (the rank counters,
moderation, the period logs, the live broadcaster) read nothing else, so domain tests that settle the in-memory
stream deliver them what the table's stream would."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from cdk_leaderboard_lambda.data.memory_entries import MemoryEntries
from cdk_leaderboard_lambda.data.stream_changes import entry_change, entry_changes
from cdk_leaderboard_lambda.domain.changes import INSERT, MODIFY, REMOVE, EntryChange, Standing
from cdk_leaderboard_lambda.shared import item_keys, schema
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
        (r["eventName"], change.key, image(r, "NewImage"), image(r, "OldImage"))
        for r in records
        if (change := entry_change(r))
    ]


def decoded(reader) -> list[EntryChange]:
    """The entries' changes written since the last call, as the change feed decodes them (without their ids, which
    each stream makes its own)."""
    reader.forget_shards()
    return [replace(change, event_id="") for change in entry_changes(reader.read(1000))]


def on_race(kind, player: str, old: Standing | None, new: Standing | None, part: str = PART) -> EntryChange:
    """A change on the race board's all-time period (a board of one shard, older than generations)."""
    period_id = item_keys.evidence_and_period(part)[1]
    return EntryChange(kind, player, part, "race", item_keys.LEGACY_GENERATION, period_id, 0, old, new)


def standing(player: str, score: int, reached: int = 1, hidden: bool = False) -> Standing:
    key = f"{999_999 - score:06d}#{player}"  # test_entry_store.entry's
    return Standing(score=score, reached_at_ms=reached, rank_key=None if hidden else key, hidden=hidden)


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


def test_an_insert_and_a_modify_decode_to_the_same_changes_from_either_stream(runtime, reader):
    store = runtime.entries
    store.keep_best(entry("ada", 10, reached=5), descending=True, name_given=True)
    store.keep_best(entry("ada", 12, reached=7), descending=True, name_given=True)
    created, improved = standing("ada", 10, 5), standing("ada", 12, 7)
    assert decoded(reader) == [on_race(INSERT, "ada", None, created), on_race(MODIFY, "ada", created, improved)]


def test_a_hide_decodes_to_a_modify_out_of_the_rank_index(runtime, reader):
    store = runtime.entries
    store.write([EntryWrite(entry("bo", 3), None)])
    store.set_hidden("bo", PART, store.one("bo", PART), hidden=True)
    listed, hidden = standing("bo", 3), standing("bo", 3, hidden=True)
    assert decoded(reader) == [on_race(INSERT, "bo", None, listed), on_race(MODIFY, "bo", listed, hidden)]


def test_a_remove_decodes_with_the_entry_before_and_nothing_after(runtime, reader):
    store = runtime.entries
    store.put_new([entry("cy", 6, OTHER)])
    store.delete([("cy", OTHER)])
    (_, removed) = decoded(reader)
    assert removed == on_race(REMOVE, "cy", standing("cy", 6), None, part=OTHER)
    assert (removed.period_id, removed.expired) == ("daily#2026-12-01", False)


def test_a_fence_decodes_as_no_entry_with_its_commitment(runtime, reader):
    store = runtime.entries
    store.put_new([entry("dee", 5)])
    until = int(time.time()) + 60
    store.raise_fence("dee", [PART], until, {PART: {schema.FENCE_COMMITMENT: "c0ffee"}})
    store.lift_fence("dee")
    (_, fenced, lifted) = decoded(reader)
    assert (fenced.kind, fenced.old, lifted.kind, lifted.new) == (MODIFY, standing("dee", 5), REMOVE, None)
    assert fenced.new is not None and fenced.new.erasing and not fenced.new.is_entry
    assert (fenced.new.score, fenced.new.rank_key, fenced.new.commitment) == (None, None, "c0ffee")
    assert lifted.old == fenced.new
