"""Ranks, totals and percentiles equal a brute-force oracle on random boards.

Random submissions on boards of both orders, every operator, with and without write sharding, and a tiny bucket
capacity so that bucket and band splits happen all the time, on the in-memory stores. The rank counters come
from the entries' stream (in memory; tests/contract/test_entry_stream.py holds it to a table's), delivered to the
consumer the way Lambda may deliver it: in random batches, the stream's shards interleaved in any order, batches
redelivered and old batches replayed after newer ones.
"""

from __future__ import annotations

import itertools
import zlib
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdk_leaderboard_lambda.data.stream_changes import entry_changes
from cdk_leaderboard_lambda.domain import periods, rank_counters
from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog, counter_upkeep, ranking_reads, score_submission
from cdk_leaderboard_lambda.operations import submissions as scores_in
from cdk_leaderboard_lambda.operations.score_submission import Writer
from cdk_leaderboard_lambda.shared import item_keys, limits
from cdk_leaderboard_lambda.shared.errors import BadRequest, ServiceUnavailable
from local import invocation
from tests.support.capacities import counter_capacities

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)
PLAYERS = [f"p{i}" for i in range(7)]
_board_ids = itertools.count()


@pytest.fixture
def small_buckets(in_memory):
    with counter_capacities(None, bucket=3, band=2):
        yield in_memory


@pytest.fixture
def stream(in_memory):
    """A reader of the entries' stream (in memory: tests/contract/test_entry_stream.py holds it to a table's)."""
    return in_memory.entries.stream.reader()


def oracle(config, submissions):
    """The expected board: operator applied in order, ties by who reached the score first."""
    state: dict[str, tuple[int, int]] = {}  # player -> (score, reached index)
    for i, (player, score) in enumerate(submissions):
        old = state.get(player)
        if config.operator == limits.INCREMENT:
            new = (old[0] if old else 0) + score
        elif config.operator == limits.LATEST or old is None or config.better(score, old[0]):
            new = score
        else:
            continue
        if not config.in_bounds(new):
            continue  # refused: nothing stored
        if old is None or new != old[0]:
            state[player] = (new, i)
    sign = -1 if config.order == limits.DESC else 1
    return sorted(state, key=lambda p: (sign * state[p][0], state[p][1], p)), state


def deliver(records: list[dict], plan: dict) -> None:
    """Hand the records to the consumer as Lambda might: per stream shard in order (records of one item always
    share a shard), the shards interleaved, in batches, some batches again later (redelivery, replay)."""
    shards: dict[int, list[dict]] = {}
    for r in records:
        player = r["dynamodb"]["Keys"]["player_id"]["S"]
        shards.setdefault(zlib.crc32(player.encode()) % plan["shards"], []).append(r)
    batches = []
    for records_of_shard in shards.values():
        size = plan["batch"]
        batches.append([records_of_shard[i : i + size] for i in range(0, len(records_of_shard), size)])
    order = plan["interleave"]
    delivered: list[list[dict]] = []
    while any(batches):
        live = [b for b in batches if b]
        nxt = live[order.draw(len(live))].pop(0)
        _recount(nxt)
        delivered.append(nxt)
        if delivered and order.draw(3) == 0:  # redeliver or replay an earlier batch
            _recount(delivered[order.draw(len(delivered))])


def _recount(batch: list[dict]) -> None:
    """The rank-counter function's recount of a batch, with the stores and capacities of the runtime serving now."""
    runtime = invocation.runtime()
    counter_upkeep.apply(runtime.counters, runtime.entries, runtime.clock, runtime.settings, entry_changes(batch))


class Draws:
    """Deterministic choices from hypothesis-drawn integers."""

    def __init__(self, numbers: list[int]):
        self.numbers, self.i = numbers or [0], 0

    def draw(self, n: int) -> int:
        self.i += 1
        return self.numbers[self.i % len(self.numbers)] % n


boards_strategy = st.builds(
    lambda order, operator, shards: dict(order=order, operator=operator, shards=shards, max_score=40),
    st.sampled_from(limits.ORDERS),
    st.sampled_from(limits.OPERATORS),
    st.sampled_from([1, 3]),
)
submissions_strategy = st.lists(
    st.tuples(st.sampled_from(PLAYERS), st.integers(min_value=-5, max_value=20)), min_size=1, max_size=25
)
delivery_strategy = st.builds(
    lambda shards, batch, numbers: {"shards": shards, "batch": batch, "interleave": Draws(numbers)},
    st.integers(min_value=1, max_value=4),
    st.integers(min_value=1, max_value=8),
    st.lists(st.integers(min_value=0, max_value=1000), min_size=1, max_size=20),
)


def assert_counters_exact(part: str) -> None:
    """Every bucket and band counts exactly the index entries in its range; the ranges tile the key space."""
    in_index = invocation.runtime().entries.index_keys(part, item_keys.FIRST_LO, item_keys.LAST_HI)
    buckets = invocation.runtime().counters.read(part, item_keys.BUCKETS, consistent=True)
    bands = invocation.runtime().counters.read(part, item_keys.BANDS, consistent=True)
    if not in_index and not buckets:
        return
    for level in (buckets, bands):
        assert level[0].lo == item_keys.FIRST_LO and level[-1].hi == item_keys.LAST_HI
        assert [c.hi for c in level[:-1]] == [c.lo for c in level[1:]]
        for c in level:
            assert c.count == sum(c.lo <= k < c.hi for k in in_index)
    assert {s.lo for s in bands} <= {b.lo for b in buckets}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(spec=boards_strategy, submissions=submissions_strategy, plan=delivery_strategy)
def test_rank_total_percentile_match_brute_force(small_buckets, stream, spec, submissions, plan):
    board_id = f"b{next(_board_ids)}"
    board_catalog.create_board(
        invocation.runtime(), {"board_id": board_id, "periods": ["all-time"], **spec}, invocation.now()
    )
    config = board_catalog.get_board(invocation.runtime(), board_id)
    for i, (player, score) in enumerate(submissions):
        try:
            scores_in.submit(
                invocation.runtime(), config, Submission(player, player, score), T0 + timedelta(milliseconds=i)
            )
        except BadRequest:
            pass  # out of bounds (or a negative score on a best/latest board): refused, as the oracle does
    deliver(stream.read(10_000), plan)
    expected, state = oracle(config, submissions)

    page = ranking_reads.top(invocation.runtime(), config, "all-time", 100, None, now=T0)
    assert [e["player_id"] for e in page["entries"]] == expected
    assert [e["score"] for e in page["entries"]] == [state[p][0] for p in expected]
    assert [e["rank"] for e in page["entries"]] == list(range(1, len(expected) + 1))

    total = len(expected)
    for rank, player in enumerate(expected, start=1):
        me = ranking_reads.around(invocation.runtime(), config, "all-time", player, 1, now=T0)
        assert (me["rank"], me["total_players"]) == (rank, total)
        assert me["percentile"] == round((total - rank) / total * 100, 1)
        assert [e["player_id"] for e in me["above"]] == expected[max(0, rank - 2) : rank - 1]
        assert [e["player_id"] for e in me["below"]] == expected[rank : rank + 1]
    for part in config.partitions("all-time"):
        assert_counters_exact(part)
        buckets = invocation.runtime().counters.read(part, item_keys.BUCKETS)
        assert all(b.count <= invocation.settings().bucket_capacity for b in buckets)


def test_buckets_split_and_pages_stay_exact_with_shards(small_buckets, settle):
    """A sharded board pages exactly like the unsharded one, through many splits."""
    for board_id, shards in (("flat", 1), ("sharded", 4)):
        board_catalog.create_board(invocation.runtime(), {"board_id": board_id, "shards": shards}, invocation.now())
    plain, sharded = (
        board_catalog.get_board(invocation.runtime(), "flat"),
        board_catalog.get_board(invocation.runtime(), "sharded"),
    )
    for i in range(40):
        player, score = f"p{i % 23}", (i * 7) % 31
        for config in (plain, sharded):
            scores_in.submit(
                invocation.runtime(), config, Submission(player, player, score), T0 + timedelta(milliseconds=i)
            )
        if i % 10 == 9:
            settle()

    def walk(config):
        cursor, seen = None, []
        while True:
            page = ranking_reads.top(invocation.runtime(), config, "all-time", 5, cursor, now=T0)
            seen += [(e["rank"], e["player_id"], e["score"]) for e in page["entries"]]
            cursor = page.get("next_cursor")
            if not cursor:
                return seen

    assert walk(sharded) == walk(plain)
    assert len(walk(plain)) == 23
    assert len(invocation.runtime().counters.read(_all_time("flat"), item_keys.BUCKETS)) > 3  # buckets split
    assert len(invocation.runtime().counters.read(_all_time("flat"), item_keys.BANDS)) > 1  # and bands too
    assert len(sharded.partitions("all-time")) == 4
    for part in plain.partitions("all-time") + sharded.partitions("all-time"):
        assert_counters_exact(part)


def test_a_rebuild_counts_a_bulk_load_in_one_pass(small_buckets):
    """Bulk loads (benchmarks) write entries without the consumer and rebuild the counters from the index."""
    board_catalog.create_board(invocation.runtime(), {"board_id": "seeded"}, invocation.now())
    config = board_catalog.get_board(invocation.runtime(), "seeded")
    period = periods.resolve("all-time", T0, config.periods)
    from cdk_leaderboard_lambda.domain.score_writes import make_entry

    loaded = [
        make_entry(
            config,
            period,
            f"s{i}",
            "s",
            i * 3,
            1_000 + i,
            None,
            retention_days=invocation.settings().period_retention_days,
        )
        for i in range(50)
    ]
    assert invocation.runtime().entries.put_new(loaded) == 50
    runtime = invocation.runtime()
    assert counter_upkeep.rebuild(runtime.counters, runtime.entries, runtime.settings, _all_time("seeded")) == 50
    assert_counters_exact(_all_time("seeded"))
    expected = sorted(
        invocation.runtime().entries.index_keys(_all_time("seeded"), item_keys.FIRST_LO, item_keys.LAST_HI)
    )
    for rank, key in enumerate(expected[:10], start=1):
        assert rank_counters.rank_and_total(invocation.runtime(), [_all_time("seeded")], key) == (rank, 50)


def test_ranks_are_right_before_the_consumer_has_seen_a_new_partition(small_buckets):
    """Until the first counters exist, a (new, hence small) partition is counted directly."""
    board_catalog.create_board(invocation.runtime(), {"board_id": "fresh", "periods": ["all-time"]}, invocation.now())
    config = board_catalog.get_board(invocation.runtime(), "fresh")
    for i in range(5):
        scores_in.submit(invocation.runtime(), config, Submission(f"p{i}", None, i), T0 + timedelta(milliseconds=i))
    assert invocation.runtime().counters.read("fresh#all-time", item_keys.BANDS) == []
    me = ranking_reads.around(invocation.runtime(), config, "all-time", "p1", 0, invocation.now())
    assert (me["rank"], me["total_players"]) == (4, 5)


def test_a_write_to_a_partition_too_big_to_count_directly_stores_and_answers_without_rank(small_buckets, settle):
    """Past rank_counters.UNCOUNTED_LIMIT buckets of uncounted entries a rank read answers 503 (the consumer is behind),
    but a submission has committed by then: it answers 200 without that period's rank instead of failing."""
    board_catalog.create_board(invocation.runtime(), {"board_id": "rush", "periods": ["all-time"]}, invocation.now())
    config = board_catalog.get_board(invocation.runtime(), "rush")
    period = periods.resolve("all-time", T0, config.periods)
    from cdk_leaderboard_lambda.domain.score_writes import make_entry

    crowd = rank_counters.UNCOUNTED_LIMIT * invocation.settings().bucket_capacity + 1
    invocation.runtime().entries.put_new(
        make_entry(
            config,
            period,
            f"r{i:03d}",
            "r",
            i,
            1_000 + i,
            None,
            retention_days=invocation.settings().period_retention_days,
        )
        for i in range(crowd)
    )
    answer = scores_in.submit(invocation.runtime(), config, Submission("late", None, 10_000), T0)
    assert [(row["score"], row["changed"], "rank" in row) for row in answer["periods"]] == [(10_000, True, False)]
    with pytest.raises(ServiceUnavailable):
        ranking_reads.around(invocation.runtime(), config, "all-time", "late", 0, invocation.now())
    settle()  # the consumer catches up: the stored write ranks first
    me = ranking_reads.around(invocation.runtime(), config, "all-time", "late", 0, invocation.now())
    assert (me["rank"], me["total_players"]) == (1, crowd + 1)


def test_a_player_who_keeps_writing_does_not_hold_a_recount_back(small_buckets, settle, monkeypatch):
    """Between the consumer's read of the table and each of its index queries, a touched player writes again: the
    key that player left is missing from the index, which is not lag (the newer write's own record recounts), so
    the batch is counted at once rather than failing as 'the index lags' and being retried while writes go on."""
    board_catalog.create_board(invocation.runtime(), {"board_id": "busy", "periods": ["all-time"]}, invocation.now())
    config = board_catalog.get_board(invocation.runtime(), "busy")
    for i in range(4):
        score_submission.submit(
            Writer.of(invocation.runtime()), config, Submission(f"p{i}", None, 10 + i), invocation.now()
        )
    settle()
    score_submission.submit(Writer.of(invocation.runtime()), config, Submission("p0", None, 100), invocation.now())
    runtime = invocation.runtime()
    query, rising = runtime.entries.index_keys, itertools.count(101)

    def query_after_another_write(*args, **kwargs):
        score = next(rising)
        if score <= 120:  # then the writes stop, so that the stream runs dry
            # the player's request, with the runtime handed to it (the recount's worker thread binds none)
            score_submission.submit(Writer.of(runtime), config, Submission("p0", None, score), runtime.clock.now())
        return query(*args, **kwargs)

    monkeypatch.setattr(invocation.runtime().entries, "index_keys", query_after_another_write)
    monkeypatch.setattr(counter_upkeep, "VISIBILITY_WAIT_SECONDS", 0.5)
    settle()  # raises IndexLag if a recount waits for the index to show a key its player has left
    monkeypatch.setattr(invocation.runtime().entries, "index_keys", query)
    settle()
    assert_counters_exact("busy#all-time")
    me = ranking_reads.around(invocation.runtime(), config, "all-time", "p0", 0, invocation.now())
    assert (me["rank"], me["score"], me["total_players"]) == (1, 120, 4)


def test_a_bucket_far_past_its_capacity_splits_in_rounds_of_one_transaction(small_buckets, settle):
    """200 entries land before the consumer first counts (capacity 3): a split is one transaction of at most 100
    items, so the bucket is cut into at most 25 pieces per round; later rounds cut the pieces again."""
    board_catalog.create_board(invocation.runtime(), {"board_id": "burst", "periods": ["all-time"]}, invocation.now())
    config = board_catalog.get_board(invocation.runtime(), "burst")
    period = periods.resolve("all-time", T0, config.periods)
    from cdk_leaderboard_lambda.domain.score_writes import make_entry

    invocation.runtime().entries.put_new(
        make_entry(
            config,
            period,
            f"b{i:03d}",
            "b",
            i,
            1_000 + i,
            None,
            retention_days=invocation.settings().period_retention_days,
        )
        for i in range(200)
    )
    settle()  # one batch: the first bucket is counted and cut in 25
    assert len(invocation.runtime().counters.read(_all_time("burst"), item_keys.BUCKETS)) == 25
    assert_counters_exact(_all_time("burst"))
    for _ in range(3):  # later writes into the pieces recount (and cut) them again
        for i in range(0, 200, 3):
            scores_in.submit(invocation.runtime(), config, Submission(f"b{i:03d}", None, 1_000 + i), invocation.now())
        settle()
    assert_counters_exact(_all_time("burst"))
    assert max(b.count for b in invocation.runtime().counters.read(_all_time("burst"), item_keys.BUCKETS)) <= 8


def _all_time(board: str) -> str:
    """The board's all-time index partition: its generation's (item_keys.py)."""
    from cdk_leaderboard_lambda.operations import board_catalog

    return board_catalog.get_board(invocation.runtime(), board).leaderboard_id("all-time")
