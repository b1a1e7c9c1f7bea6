"""The rank counters (ports.CounterStore): the same cases on DynamoDB Local and in memory (conftest.py).

What the rank and percentile math and the stream consumer rely on: ranges in key order, conditional recounts that
a stale one cannot overwrite, a split that is all or nothing, and generations that concurrent claims never share."""

from __future__ import annotations

import threading

import pytest
from botocore.exceptions import ClientError

from cdk_leaderboard_lambda.shared import item_keys
from cdk_leaderboard_lambda.shared.model import Counter
from local import invocation

PART, OTHER = "race#all-time", "race#2026-12"
B, S = item_keys.BUCKETS, item_keys.BANDS


@pytest.fixture
def store(runtime):
    return runtime.counters


def ranges(found: list[Counter]) -> list[tuple[str, str, int]]:
    return [(c.lo, c.hi, c.count) for c in found]


def test_a_partition_without_counters_reads_none_and_create_first_makes_one_whole_range_per_level(store):
    assert store.read(PART, B) == [] and store.read(PART, S, consistent=True) == []
    store.create_first(PART, 1_900_000_000)
    for level in (B, S):
        (whole,) = store.read(PART, level, consistent=True)
        assert (whole.lo, whole.hi, whole.count, whole.gen, whole.counted_gen) == (
            item_keys.FIRST_LO,
            item_keys.LAST_HI,
            0,
            0,
            0,
        )
        assert whole.expires_at == 1_900_000_000
    assert store.read(OTHER, B, consistent=True) == []


def test_create_first_again_changes_nothing(store):
    store.create_first(PART, None)
    (bucket,) = store.read(PART, B, consistent=True)
    gen = store.claim(PART, B, bucket)
    assert store.store(PART, B, bucket, gen, 7)
    store.create_first(PART, None)  # a second consumer, late: the counted range stays
    assert ranges(store.read(PART, B, consistent=True)) == [(item_keys.FIRST_LO, item_keys.LAST_HI, 7)]
    assert store.read(PART, B, consistent=True)[0].expires_at is None


def test_claims_hand_out_the_next_generation_and_none_for_a_range_that_changed_or_is_absent(store):
    store.create_first(PART, None)
    (bucket,) = store.read(PART, B, consistent=True)
    assert [store.claim(PART, B, bucket) for _ in range(3)] == [1, 2, 3]
    assert store.claim(PART, B, Counter(bucket.lo, "5000", 0)) is None  # another end: the range was split
    assert store.claim(PART, B, Counter("3000", item_keys.LAST_HI, 0)) is None  # no such counter
    assert store.claim(PART, S, store.read(PART, S, consistent=True)[0]) == 1  # levels count apart


def test_a_recount_is_stored_unless_a_later_one_was_or_the_range_changed(store):
    store.create_first(PART, None)
    (bucket,) = store.read(PART, B, consistent=True)
    early, late = store.claim(PART, B, bucket), store.claim(PART, B, bucket)
    assert store.store(PART, B, bucket, late, 5)
    assert not store.store(PART, B, bucket, early, 4)  # began first, finished last: refused
    assert not store.store(PART, B, bucket, late, 6)  # the same generation twice: refused
    assert not store.store(PART, B, Counter(bucket.lo, "5000", 0), late + 1, 9)  # a range it no longer has
    (now,) = store.read(PART, B, consistent=True)
    assert (now.count, now.gen, now.counted_gen) == (5, 2, late)


def test_a_split_cuts_the_range_in_key_order_and_the_pieces_carry_the_recount(store):
    store.create_first(PART, 1_900_000_000)
    (bucket,) = store.read(PART, B, consistent=True)
    gen = store.claim(PART, B, bucket)
    assert store.split(PART, B, bucket, gen, [(bucket.lo, 3), ("4000", 2), ("7000", 4)])
    found = store.read(PART, B, consistent=True)
    assert ranges(found) == [(item_keys.FIRST_LO, "4000", 3), ("4000", "7000", 2), ("7000", item_keys.LAST_HI, 4)]
    assert [(c.gen, c.counted_gen, c.expires_at) for c in found] == [(gen, gen, 1_900_000_000)] * 3
    assert ranges(store.read(PART, S, consistent=True)) == [(item_keys.FIRST_LO, item_keys.LAST_HI, 0)]  # its own level


def test_a_split_is_all_or_nothing(store):
    store.create_first(PART, None)
    (bucket,) = store.read(PART, B, consistent=True)
    stale, gen = store.claim(PART, B, bucket), store.claim(PART, B, bucket)
    assert store.store(PART, B, bucket, gen, 5)
    assert not store.split(PART, B, bucket, stale, [(bucket.lo, 2), ("4000", 3)])  # a later recount is stored
    # A piece whose item exists already cancels the whole split, the first piece's update included.
    store.replace_all(
        PART, S, [Counter(item_keys.FIRST_LO, item_keys.LAST_HI, 5), Counter("4000", item_keys.LAST_HI, 1)]
    )
    (band, _) = store.read(PART, S, consistent=True)
    assert not store.split(PART, S, band, store.claim(PART, S, band), [(band.lo, 2), ("4000", 3)])
    assert ranges(store.read(PART, B, consistent=True)) == [(item_keys.FIRST_LO, item_keys.LAST_HI, 5)]
    assert ranges(store.read(PART, S, consistent=True)) == [
        (item_keys.FIRST_LO, item_keys.LAST_HI, 5),
        ("4000", "~", 1),
    ]


def test_a_read_between_two_keys_gives_the_ranges_that_start_there_both_ends_included(store):
    counters = [Counter(lo, hi, n) for lo, hi, n in [("0", "2000", 1), ("2000", "4000", 2), ("4000", "~", 3)]]
    store.replace_all(PART, B, counters)
    assert ranges(store.read(PART, B, lo="2000", hi="4000")) == [("2000", "4000", 2), ("4000", "~", 3)]
    assert ranges(store.read(PART, B, consistent=True, lo="0", hi="1999")) == [("0", "2000", 1)]
    assert store.read(PART, B, lo="2001", hi="3999") == []
    with pytest.raises(ClientError) as refused:  # DynamoDB refuses a BETWEEN whose bounds are the wrong way round
        store.read(PART, B, lo="4000", hi="2000")
    assert refused.value.response["Error"]["Code"] == "ValidationException"


def test_replace_all_replaces_one_level_of_one_partition(store):
    store.create_first(PART, None)
    store.create_first(OTHER, None)
    store.replace_all(PART, B, [Counter("0", "5000", 4, gen=3, counted_gen=3), Counter("5000", "~", 6)])
    assert ranges(store.read(PART, B, consistent=True)) == [("0", "5000", 4), ("5000", "~", 6)]
    assert store.read(PART, B, consistent=True)[0].gen == 3
    store.replace_all(PART, B, [Counter("0", "~", 10)])  # the old ranges go, the new one keeps the first's item
    assert ranges(store.read(PART, B, consistent=True)) == [("0", "~", 10)]
    store.replace_all(PART, B, [])  # a board purge
    assert store.read(PART, B, consistent=True) == []
    assert ranges(store.read(PART, S, consistent=True)) == [("0", "~", 0)]
    assert ranges(store.read(OTHER, B, consistent=True)) == [("0", "~", 0)]


def test_concurrent_claims_never_share_a_generation(store):
    """What keeps a stale recount from overwriting a later one: each claim is one atomic ADD."""
    store.create_first(PART, None)
    (bucket,) = store.read(PART, B, consistent=True)
    barrier, gens = threading.Barrier(8), []

    def claim() -> None:
        barrier.wait()
        gens.append(store.claim(PART, B, bucket))

    threads = [threading.Thread(target=invocation.carried(claim)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(gens) == list(range(1, 9))
