"""The hash-chained log's store (ports.ChainStore): the same cases on DynamoDB Local and in memory
(conftest.py)."""

from __future__ import annotations

import threading

import pytest

from cdk_leaderboard_lambda.data.chain import ERASED_KEY_SECONDS
from cdk_leaderboard_lambda.domain import hashchain
from cdk_leaderboard_lambda.domain.hashchain import MAX_APPEND
from local import invocation

NOW_S = 1_796_000_000


@pytest.fixture
def store(runtime):
    return runtime.chain


def records(head, n, player="c" * 64, start_ms=1_796_000_000_000):
    return hashchain.chain(head, [(start_ms + i, "score", 100 + i, player) for i in range(n)])


def test_the_first_append_starts_the_chain_and_moves_the_head(store):
    assert store.log_head("race", "weekly-2026-W49") is None
    first = records(None, 3)
    assert store.append("race", "weekly-2026-W49", None, first, ["e1", "e2", "e3"], NOW_S)
    assert store.log_head("race", "weekly-2026-W49") == (3, first[-1]["hash"])
    assert store.log_head("race", "daily-2026-12-02") is None  # another period of the board: its own chain
    assert store.log_head("global", "weekly-2026-W49") is None
    page, more = store.page("race", "weekly-2026-W49", 0, 10)
    assert page == first and more is False
    assert page[0]["prev_hash"] == hashchain.GENESIS_HASH and page[0]["score"] == 100


def test_an_append_expecting_an_old_head_writes_nothing(store):
    """The conditional write on the sequence: of two appenders that read the same head, one wins."""
    first = records(None, 2)
    assert store.append("race", "all-time", None, first, ["a"], NOW_S)
    head = store.log_head("race", "all-time")
    ours, theirs = records(head, 1, "a" * 64), records(head, 2, "b" * 64)
    assert store.append("race", "all-time", head, theirs, ["b"], NOW_S)
    assert not store.append("race", "all-time", head, ours, ["c"], NOW_S)
    assert not store.append("race", "all-time", None, records(None, 1), ["d"], NOW_S)  # "no chain yet": stale too
    assert store.appended(["a", "b", "c", "d", "never"]) == {"a", "b"}  # a refused append marks nothing
    page, _ = store.page("race", "all-time", 0, 100)
    assert [r["seq"] for r in page] == [1, 2, 3, 4] and page[2:] == theirs
    assert store.log_head("race", "all-time") == (4, theirs[-1]["hash"])


def test_a_source_appended_already_refuses_the_whole_append(store):
    """A retried stream batch: its records' sources are marked, so a second append of them changes nothing."""
    assert store.append("race", "all-time", None, records(None, 1), ["e1"], NOW_S)
    head = store.log_head("race", "all-time")
    assert not store.append("race", "all-time", head, records(head, 2), ["e2", "e1"], NOW_S)
    assert store.log_head("race", "all-time") == head
    assert store.appended(["e2"]) == set()


def test_records_must_follow_the_head_without_gaps(store):
    with pytest.raises(ValueError):
        store.append("race", "all-time", (5, "f" * 64), records(None, 1), ["x"], NOW_S)  # seq 1 after 5
    with pytest.raises(ValueError):
        store.append("race", "all-time", None, [], [], NOW_S)
    with pytest.raises(ValueError):
        store.append("race", "all-time", None, records(None, MAX_APPEND + 1), [], NOW_S)
    assert store.log_head("race", "all-time") is None


def test_pages_go_in_seq_order_past_the_tenth_and_the_hundredth(store):
    head = None
    written = []
    for n in range(3):  # 3 appends of 49: 147 records, seq 1..147 (the sort key's digits keep 10 after 9)
        batch = records(head, MAX_APPEND, start_ms=1_796_000_000_000 + 1000 * n)
        assert store.append("lap", "all-time", head, batch, [f"s{n}-{i}" for i in range(MAX_APPEND)], NOW_S)
        head, written = (batch[-1]["seq"], batch[-1]["hash"]), written + batch
    seen, after = [], 0
    while True:
        page, more = store.page("lap", "all-time", after, 40)
        seen += page
        if not more:
            break
        after = page[-1]["seq"]
    assert seen == written and [r["seq"] for r in seen] == list(range(1, 148))
    assert store.page("lap", "all-time", 147, 10) == ([], False)
    assert store.page("lap", "all-time", 100, 47) == (written[100:], False)  # exactly the page's size: no more
    assert store.appended([f"s2-{i}" for i in range(MAX_APPEND)]) == {f"s2-{i}" for i in range(MAX_APPEND)}


def test_a_record_reads_back_as_written(store):
    """Every field, a null score and non-ASCII text included: the stored record hashes to its hash."""
    record = hashchain.new_record(1, hashchain.GENESIS_HASH, 1_796_000_000_123, "erase", None, "d" * 64)
    assert store.append("réunion", "all-time", None, [record], ["z"], NOW_S)
    (back,), _ = store.page("réunion", "all-time", 0, 5)
    assert back == record and hashchain.record_hash(back) == back["hash"]
    assert back["at"] == "2026-11-30T00:53:20.123Z" and set(back) == set(hashchain.FIELDS)


def test_concurrent_appenders_leave_a_gap_free_chain(store):
    """Eight appenders, each re-reading the head until its append wins: 8 x 3 records, seq 1..24, linked."""

    def appender(n: int) -> None:
        while True:
            head = store.log_head("race", "all-time")
            if store.append("race", "all-time", head, records(head, 3, f"{n:064x}"), [f"w{n}"], NOW_S):
                return

    threads = [threading.Thread(target=appender, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    page, _ = store.page("race", "all-time", 0, 100)
    assert [r["seq"] for r in page] == list(range(1, 25))
    assert all(r["prev_hash"] == p["hash"] for p, r in zip(page, page[1:], strict=False))
    assert sorted({r["player"] for r in page}) == [f"{n:064x}" for n in range(8)]


def test_player_keys_are_made_once_and_forgotten_by_erasure(store):
    keys = store.player_keys(["ada", "bo", "ada"], NOW_S)
    assert set(keys) == {"ada", "bo"} and all(len(k) == 32 for k in keys.values()) and keys["ada"] != keys["bo"]
    assert store.player_keys(["bo", "cy"], NOW_S)["bo"] == keys["bo"]
    assert store.player_keys(["dee"], NOW_S, create=False) == {}  # a look without making one
    assert store.player_keys(["dee", "bo"], NOW_S, create=False) == {"bo": keys["bo"]}
    store.forget_player("ada", NOW_S)
    store.forget_player("nobody", NOW_S)  # no key: nothing to forget, and none is made for a while
    # a change of an erased player still on its way through the stream makes no new key ...
    assert store.player_keys(["ada", "nobody", "bo"], NOW_S + ERASED_KEY_SECONDS) == {"bo": keys["bo"]}
    # ... until the window has passed: then the id is a new player's, with a new key
    again = store.player_keys(["ada"], NOW_S + ERASED_KEY_SECONDS + 1)
    assert len(again["ada"]) == 32 and again["ada"] != keys["ada"]
    assert store.player_keys([], NOW_S) == {}


def test_concurrent_key_makers_agree_on_one_key(store):
    got: list[bytes] = []

    def make() -> None:
        got.append(store.player_keys(["émile"], NOW_S)["émile"])

    threads = [threading.Thread(target=invocation.carried(make)) for _ in range(6)]  # keys hash ids: the secret
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == 1
