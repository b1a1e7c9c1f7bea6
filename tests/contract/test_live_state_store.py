"""The live broadcaster's "last sent" state (ports.LiveState): the same cases on DynamoDB Local and in
memory (conftest.py)."""

from __future__ import annotations

import threading

import pytest

from local import invocation

EXPIRES = 2_000_000_000


@pytest.fixture
def store(runtime):
    return runtime.live_state


def test_publishes_are_claimed_once_per_state_read(store):
    assert store.last_sent("global", "all-time") is None
    assert store.claim_send("global", "all-time", None, 1000, "a", EXPIRES)
    assert not store.claim_send("global", "all-time", None, 1500, "b", EXPIRES)  # someone published
    assert store.claim_send("global", "all-time", 1000, 2000, "b", EXPIRES)
    assert not store.claim_send("global", "all-time", 1000, 2500, "c", EXPIRES)  # stale read
    sent = store.last_sent("global", "all-time")
    assert (sent["sent_at_ms"], sent["digest"]) == (2000, "b") and isinstance(sent["sent_at_ms"], int)
    assert store.last_sent("global", "daily-2026-11-30") is None  # board periods apart
    assert store.last_sent("cup", "all-time") is None


def test_finishing_moves_the_time_and_releasing_forgets_the_digest_only_for_the_current_claim(store):
    store.claim_send("global", "all-time", None, 1000, "a", EXPIRES)
    store.finish_send("global", "all-time", 999, 5000)  # not the current claim: nothing
    store.release("global", "all-time", 999)
    unchanged = store.last_sent("global", "all-time")
    assert (unchanged["sent_at_ms"], unchanged["digest"]) == (1000, "a")
    store.finish_send("global", "all-time", 1000, 1200)
    assert store.last_sent("global", "all-time")["sent_at_ms"] == 1200
    store.release("global", "all-time", 1200)
    sent = store.last_sent("global", "all-time")
    assert sent["sent_at_ms"] == 1200 and "digest" not in sent  # the time stays: the interval still holds
    assert store.claim_send("global", "all-time", 1200, 2300, "b", EXPIRES)  # the next claim reads the moved time
    store.finish_send("nobody", "all-time", 1000, 2000)  # nothing stored: nothing happens, no item made
    store.release("nobody", "all-time", 1000)
    assert store.last_sent("nobody", "all-time") is None


def test_concurrent_claims_from_one_read_have_one_winner(store):
    store.claim_send("global", "all-time", None, 1000, "a", EXPIRES)
    barrier, results = threading.Barrier(8), []

    def claim(n: int) -> None:
        barrier.wait()
        results.append(store.claim_send("global", "all-time", 1000, 2000 + n, f"d{n}", EXPIRES))

    threads = [threading.Thread(target=invocation.carried(claim), args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True]
    assert store.last_sent("global", "all-time")["digest"] in {f"d{n}" for n in range(8)}


def test_the_kill_switch_is_on_until_turned_off_and_leaves_every_board_s_state_alone(store):
    store.claim_send("global", "all-time", None, 1000, "a", EXPIRES)
    assert store.switched_off() is False
    store.set_switch(off=True, at=100)
    assert store.switched_off() is True
    store.set_switch(off=False, at=200)
    assert store.switched_off() is False
    assert store.last_sent("global", "all-time")["digest"] == "a"
