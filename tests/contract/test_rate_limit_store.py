"""The rate limits (ports.RateLimitStore): the same cases on DynamoDB Local and in memory (conftest.py)."""

from __future__ import annotations

import threading

import pytest

from local import invocation

MINUTE, EXPIRES = 29_000_000, 1_900_000_000


@pytest.fixture
def store(runtime):
    return runtime.rate_limits


def test_takes_count_up_to_the_limit_and_a_refused_take_changes_nothing(store):
    assert [store.take("ada", "race", MINUTE, 1, 3, EXPIRES) for _ in range(4)] == [True, True, True, False]
    store.give_back("ada", "race", MINUTE, 1)
    assert store.take("ada", "race", MINUTE, 2, 3, EXPIRES) is False  # 2 + 2 > 3: refused whole, not in part
    assert store.take("ada", "race", MINUTE, 1, 3, EXPIRES) is True  # so exactly one place was left
    assert store.take("ada", "race", MINUTE, 1, 3, EXPIRES) is False


def test_a_take_of_several_fits_only_whole(store):
    """(A take of more than `most` at once is the caller's to refuse: rate_limits.take does, before the store.)"""
    assert store.take("bo", "race", MINUTE, 3, 3, EXPIRES) is True
    assert store.take("bo", "race", MINUTE, 1, 3, EXPIRES) is False
    assert store.take("cy", "race", MINUTE, 2, 3, EXPIRES) is True
    assert store.take("cy", "race", MINUTE, 2, 3, EXPIRES) is False  # 2 + 2 > 3, and that refusal counted nothing
    assert store.take("cy", "race", MINUTE, 1, 3, EXPIRES) is True


def test_players_boards_and_minutes_are_counted_apart(store):
    assert store.take("ada", "race", MINUTE, 1, 1, EXPIRES)
    assert store.take("bo", "race", MINUTE, 1, 1, EXPIRES)
    assert store.take("ada", "lap", MINUTE, 1, 1, EXPIRES)
    assert store.take("ada", "race", MINUTE + 1, 1, 1, EXPIRES)
    assert not store.take("ada", "race", MINUTE, 1, 1, EXPIRES)


def test_giving_back_more_than_was_counted_or_to_a_minute_never_counted_changes_nothing(store):
    store.give_back("ada", "race", MINUTE, 1)  # no item: nothing to give back, and no negative count
    assert [store.take("ada", "race", MINUTE, 1, 2, EXPIRES) for _ in range(3)] == [True, True, False]
    store.give_back("ada", "race", MINUTE, 5)  # more than counted: refused, the count stays at 2
    assert store.take("ada", "race", MINUTE, 1, 2, EXPIRES) is False


def test_concurrent_takes_never_pass_the_limit_together(store):
    """What makes the limit a limit: 12 takes at once, a limit of 5, exactly 5 pass (one conditional write each)."""
    barrier, results = threading.Barrier(12), []

    def take() -> None:
        barrier.wait()
        results.append(store.take("rush", "race", MINUTE, 1, 5, EXPIRES))

    threads = [threading.Thread(target=invocation.carried(take)) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True] * 5


def test_forgetting_a_player_drops_their_counts_on_every_board_and_minute_and_no_one_elses(store):
    for board, minute in (("race", MINUTE), ("lap", MINUTE), ("race", MINUTE + 1)):
        assert store.take("ada", board, minute, 2, 2, EXPIRES)
    assert store.take("bo", "race", MINUTE, 2, 2, EXPIRES)
    store.forget_player("ada")
    for board, minute in (("race", MINUTE), ("lap", MINUTE), ("race", MINUTE + 1)):
        assert store.take("ada", board, minute, 2, 2, EXPIRES)  # counted from nothing again
    assert not store.take("bo", "race", MINUTE, 1, 2, EXPIRES)
    store.forget_player("cy")  # no counts: nothing to do
