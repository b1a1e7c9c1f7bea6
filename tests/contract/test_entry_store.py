"""The entries and the rank index (ports.EntryStore): the same cases on DynamoDB Local and in memory
(conftest.py). What the domain relies on: conditional writes and their refusals, keep_best never lowering a score,
the rank index's order, pages, counts and projection, hidden entries kept out of it, an erasure's fences refusing
every write, and batches past DynamoDB's per-request limits."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from cdk_leaderboard_lambda.domain import entry_store
from cdk_leaderboard_lambda.domain.ports import Purged
from cdk_leaderboard_lambda.shared import item_keys, schema
from cdk_leaderboard_lambda.shared.clock import SettableClock
from cdk_leaderboard_lambda.shared.model import Entry, EntryWrite

PART = "race#all-time"


def entry(player: str, score: int, part: str = PART, name: str | None = None, reached: int = 1) -> Entry:
    """An entry whose rank key orders by score, highest first (the encoding is the domain's, not the store's)."""
    return Entry(part, player, name or player, score, f"{999_999 - score:06d}#{player}", reached, None, None)


@pytest.fixture
def store(runtime):
    return runtime.entries


def ranked(store, part: str = PART) -> list[str]:
    return [i["player_id"] for i in store.page(part, 100)]


def test_keep_best_creates_then_keeps_only_a_better_score(store):
    first = store.keep_best(entry("ada", 10), descending=True, name_given=True)
    assert first.changed and first.created
    lower = store.keep_best(entry("ada", 7), descending=True, name_given=True)
    assert (lower.changed, lower.item["score"], lower.created) == (False, 10, False)  # refused, the stored item
    equal = store.keep_best(entry("ada", 10, reached=5), descending=True, name_given=True)
    assert not equal.changed  # the first reached stays
    named = store.keep_best(entry("ada", 12, name="Ada"), descending=True, name_given=True)
    assert (named.changed, named.item["score"], named.item["player_name"], named.created) == (True, 12, "Ada", False)
    store.keep_best(entry("ada", 15, name="ignored"), descending=True, name_given=False)  # the stored name is kept
    assert store.one("ada", PART)["player_name"] == "Ada" and store.one("ada", PART)["score"] == 15


def test_keep_best_on_an_ascending_board_keeps_the_lowest(store):
    store.keep_best(entry("bo", 30), descending=False, name_given=True)
    assert store.keep_best(entry("bo", 40), descending=False, name_given=True).changed is False
    assert store.keep_best(entry("bo", 20), descending=False, name_given=True).changed is True
    assert store.one("bo", PART)["score"] == 20


def test_keep_best_follows_an_entry_hidden_meanwhile_and_keeps_it_hidden(store):
    store.keep_best(entry("cy", 5), descending=True, name_given=True)
    store.set_hidden("cy", PART, store.one("cy", PART), hidden=True)
    kept = store.keep_best(entry("cy", 9), descending=True, name_given=True, hidden=False)  # read as shown: 2 rounds
    assert kept.changed and entry_store.is_hidden(kept.item) and kept.item["score"] == 9
    assert ranked(store) == [] and entry_store.is_hidden(store.one("cy", PART))


def test_a_write_expecting_no_entry_is_refused_once_one_exists(store):
    store.write([EntryWrite(entry("ada", 3), None)])
    with pytest.raises(entry_store.Changed):
        store.write([EntryWrite(entry("ada", 4), None)])
    assert store.one("ada", PART)["score"] == 3


def test_a_write_expecting_a_stale_entry_is_refused(store):
    store.write([EntryWrite(entry("ada", 3), None)])
    read = store.one("ada", PART)
    store.write([EntryWrite(entry("ada", 5), read)])
    with pytest.raises(entry_store.Changed):
        store.write([EntryWrite(entry("ada", 8), read)])  # its rank key is no longer the one stored
    assert store.one("ada", PART)["score"] == 5


def test_writes_of_several_entries_are_all_or_none(store):
    other = "race#daily#2026-12-01"
    store.write([EntryWrite(entry("ada", 3), None)])
    with pytest.raises(entry_store.Changed):
        store.write([EntryWrite(entry("ada", 9, other), None), EntryWrite(entry("ada", 9), None)])
    assert store.one("ada", other) is None and store.one("ada", PART)["score"] == 3
    store.write([EntryWrite(entry("ada", 9, other), None), EntryWrite(entry("ada", 9), store.one("ada", PART))])
    assert store.one("ada", other)["score"] == 9 == store.one("ada", PART)["score"]


def test_an_idempotent_write_remembers_its_operation_and_forgets_the_oldest(store):
    store.write([EntryWrite(entry("ada", 1), None, "op-0", 100)])
    for n in range(1, 20):
        store.write([EntryWrite(entry("ada", 1 + n), store.one("ada", PART), f"op-{n}", 100 + n)])
    item = store.one("ada", PART)
    assert entry_store.applied(item, "op-19") and not entry_store.applied(item, "op-0")
    assert sorted(item["ops"], key=item["ops"].get) == [f"op-{n}" for n in range(4, 20)]  # the newest 16


def test_the_rank_index_lists_in_rank_key_order_in_pages(store):
    assert store.put_new(entry(f"p{n:02d}", n) for n in range(30)) == 30
    store.put_new([entry("elsewhere", 99, "lap#all-time")])
    best_first = [f"p{n:02d}" for n in reversed(range(30))]
    assert ranked(store) == best_first
    first = store.page(PART, 10)
    assert [i["player_id"] for i in first] == best_first[:10]
    after = store.page(PART, 10, after=first[-1]["rank_key"])
    assert [i["player_id"] for i in after] == best_first[10:20]
    before = store.page(PART, 3, before=after[0]["rank_key"])
    assert [i["player_id"] for i in before] == best_first[9:6:-1]  # closest first
    lo, hi = first[2]["rank_key"], first[6]["rank_key"]
    assert [i["player_id"] for i in store.page(PART, 10, between=(lo, hi))] == best_first[2:7]
    assert [i["player_id"] for i in store.page(PART, 2, after=lo, between=(lo, hi))] == best_first[3:5]
    assert set(first[0]) <= {"player_id", "leaderboard_id", "rank_key", "score", "player_name", "reached_at",
                             "metadata"}  # fmt: skip


def test_counts_and_keys_over_rank_key_ranges(store):
    store.put_new(entry(f"p{n:02d}", n) for n in range(40))
    every = store.index_keys(PART, item_keys.FIRST_LO, item_keys.LAST_HI)
    assert every == sorted(every) and len(every) == 40
    assert store.count_range(PART, every[5], every[14]) == 10  # both ends included
    assert store.count_range(PART, every[5], every[14], at_most=4) == 4
    assert store.count_range(PART, every[14], every[5]) == 0  # an empty range, not an error
    assert store.count_range("nobody#all-time", item_keys.FIRST_LO, item_keys.LAST_HI) == 0
    assert store.index_keys(PART, every[5], every[14]) == every[5:15]
    assert store.index_keys(PART, every[5], every[14], at_most=3) == every[5:8]


def test_a_hidden_entry_leaves_the_index_and_comes_back(store):
    store.put_new([entry("ada", 5), entry("bo", 6)])
    read = store.one("ada", PART)
    store.set_hidden("ada", PART, read, hidden=True)
    assert ranked(store) == ["bo"] and store.count_range(PART, item_keys.FIRST_LO, item_keys.LAST_HI) == 1
    with pytest.raises(entry_store.Changed):
        store.set_hidden("ada", PART, read, hidden=True)  # already hidden: not as read
    store.set_hidden("ada", PART, store.one("ada", PART), hidden=False)
    assert ranked(store) == ["bo", "ada"]
    with pytest.raises(entry_store.Changed):
        store.set_hidden("nobody", PART, read, hidden=True)


def test_a_fence_refuses_every_write_and_reads_as_no_entry(store):
    store.put_new([entry("ada", 5), entry("ada", 5, "lap#all-time")])
    until = int(time.time()) + 60
    assert store.raise_fence("ada", [PART, "race#daily#2026-12-01", PART], until, {PART: {"commitment": "c"}}) == 2
    assert store.get([("ada", PART)]) == {} and store.one("ada", PART) is None
    assert [e[schema.SCORES_SORT_KEY] for e in store.of_player("ada")] == ["lap#all-time"]
    assert sorted(store.partitions_of("ada")) == ["lap#all-time", PART, "race#daily#2026-12-01"]
    with pytest.raises(entry_store.Erasing):
        store.keep_best(entry("ada", 50), descending=True, name_given=True)
    with pytest.raises(entry_store.Changed):
        store.write([EntryWrite(entry("ada", 50, "race#daily#2026-12-01"), None)])
    read = store.get_for_submission([("ada", PART)], "race", stored_board=False)
    assert entry_store.is_fence(read.entries[("ada", PART)]) and ranked(store) == []
    store.lift_fence("ada")
    assert store.partitions_of("ada") == []
    assert store.keep_best(entry("ada", 1), descending=True, name_given=True).changed


def test_a_submission_s_read_finds_the_erasure_the_moderation_and_the_board(runtime, store):
    store.put_new([entry("ada", 5), entry("bo", 6)])
    runtime.moderation.hide("race", "bo", "2026-12-01T00:00:00Z")
    runtime.moderation.hide("lap", "ada", "2026-12-01T00:00:00Z")
    runtime.boards.put_counted({"board_id": "race", "order": "desc"}, 10)
    pairs = [("ada", PART), ("bo", PART), ("cy", PART)]
    read = store.get_for_submission(pairs, "race", stored_board=True)
    assert set(read.entries) == {("ada", PART), ("bo", PART)} and read.hidden == {"bo"}
    assert read.board is not None and read.board["order"] == "desc"
    lap = store.get_for_submission(pairs, "lap", stored_board=False, consistent=False)
    assert (lap.hidden, lap.board) == ({"ada"}, None)
    now = int(time.time())
    runtime.erasures.create(item_keys.erasing_key(runtime.digest_key.value(), "cy"), {"phase": "erasing"}, now + 60)
    stored = store.get_for_submission(pairs, "race", stored_board=True).entries
    assert entry_store.is_fence(stored[("cy", PART)]) and not entry_store.is_fence(stored[("ada", PART)])
    runtime.erasures.save_state(
        item_keys.erasing_key(runtime.digest_key.value(), "cy"), {"phase": "fenced", "fence_until": now - 1}
    )
    assert ("cy", PART) not in store.get_for_submission(pairs, "race", stored_board=True).entries  # gone by


def test_whether_an_erasure_stands_is_read_on_the_clock_of_the_store_s_own_runtime(runtime):
    """The entries read the time of the runtime that holds them (DynamoEntries: its constructor's clock; the
    in-memory entries: bound again when a runtime is rebuilt with another clock), not of another runtime serving
    the invocation: a fence that stands until a minute after 2100-01-01 stands then, and has gone by a minute on."""
    clock = SettableClock(datetime(2100, 1, 1, tzinfo=UTC))
    later = runtime.rebuilt(clock=clock)
    key = item_keys.erasing_key(later.digest_key.value(), "cy")
    later.erasures.save_state(key, {"phase": "fenced", "fence_until": int(clock.now().timestamp()) + 60})
    pairs = [("cy", PART)]
    assert entry_store.is_fence(
        later.entries.get_for_submission(pairs, "race", stored_board=False).entries[("cy", PART)]
    )
    clock.advance(120)
    assert later.entries.get_for_submission(pairs, "race", stored_board=False).entries == {}


def test_batches_past_dynamodb_s_limits_are_read_and_written_whole(store):
    assert store.put_new(entry(f"p{n:03d}", n) for n in range(130)) == 130
    pairs = [(f"p{n:03d}", PART) for n in range(230)]  # BatchGetItem: 100 keys a request
    assert set(store.get(pairs)) == set(pairs[:130])
    assert store.delete(pairs[:60]) == 60  # BatchWriteItem: 25 a request
    assert len(store.get(pairs)) == 70
    assert store.delete_partition(PART, 50) == Purged(50, done=False)
    assert store.delete_partition(PART, 50) == Purged(20, done=True)
    assert ranked(store) == []


def test_a_player_s_partition_pages_in_sort_key_order(store):
    parts = ["race#all-time", "lap#all-time", "cup#all-time", "race#daily#2026-12-01"]
    store.put_new(entry("ada", 1, p) for p in parts)
    page, more = store.page_of_player("ada", None, 3)
    assert [i[schema.SCORES_SORT_KEY] for i in page] == sorted(parts)[:3] and more
    page, more = store.page_of_player("ada", page[-1][schema.SCORES_SORT_KEY], 3)
    assert [i[schema.SCORES_SORT_KEY] for i in page] == sorted(parts)[3:] and not more
    assert sorted(p for _, p in store.keys_of_player_on("ada", "race")) == ["race#all-time", "race#daily#2026-12-01"]
    assert sorted(store.keys_in_partition("ada")) == sorted(("ada", p) for p in parts)
