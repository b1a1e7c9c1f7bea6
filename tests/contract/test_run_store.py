"""Client runs (ports.RunStore): the same cases on DynamoDB Local and in memory (conftest.py)."""

from __future__ import annotations

import pytest

from cdk_leaderboard_lambda.domain.ports import Taken

ENDS = 1_900_000_000  # epoch seconds
NOW = ENDS - 1000  # epoch seconds, inside every run below


@pytest.fixture
def store(runtime):
    return runtime.runs


def put(store, run_id, board="race", seed=42, started_ms=0, player="ada"):
    """A run started as the code starts one (RunStore.start), in one of enough places that it ends no other."""
    assert store.start(run_id, player, board, seed, started_ms, ENDS, now_s=NOW, most_open=50) is None


def test_a_stored_run_reads_back_with_its_expiry(store):
    put(store, "r1", started_ms=1_899_999_000_000)
    assert store.get("ada", "r1") == {
        "board_id": "race",
        "seed": 42,
        "started_ms": 1_899_999_000_000,
        "ends_at": ENDS,
        "expires_at": ENDS + 24 * 3600,
    }
    assert store.get("bo", "r1") is None and store.get("ada", "r2") is None


def test_a_run_id_is_never_stored_twice(store):
    put(store, "r1")
    with pytest.raises(Taken):
        put(store, "r1", board="lap", seed=7)
    assert store.get("ada", "r1")["board_id"] == "race"


def test_a_run_is_used_once_and_only_on_its_board_before_it_ends(store):
    put(store, "r1")
    assert store.use("r1", "ada", "lap", ENDS - 10, 5) is None  # another board
    assert store.use("r1", "ada", "race", ENDS, 5) is None  # over (ends_at is not after now)
    assert store.use("r1", "bo", "race", ENDS - 10, 5) is None  # another player's
    assert store.use("nope", "ada", "race", ENDS - 10, 5) is None  # no such run: nothing made
    assert store.get("ada", "nope") is None
    used = store.use("r1", "ada", "race", ENDS - 10, 5)
    assert used is not None and (used["used_ms"], used["seed"], used["started_ms"]) == (5, 42, 0)
    assert store.use("r1", "ada", "race", ENDS - 9, 6) is None  # used already
    assert store.get("ada", "r1")["used_ms"] == 5


def test_release_gives_back_only_the_use_it_names(store):
    put(store, "r1")
    store.use("r1", "ada", "race", ENDS - 10, 5)
    store.release("r1", "ada", 4)  # not this use: nothing
    assert store.get("ada", "r1")["used_ms"] == 5
    store.release("r1", "ada", 5)
    assert "used_ms" not in store.get("ada", "r1")
    store.release("gone", "ada", 5)  # no such run: nothing
    assert store.use("r1", "ada", "race", ENDS - 10, 7)["used_ms"] == 7


def test_forgetting_a_player_deletes_all_their_runs_past_one_batch(store):
    """BatchWriteItem deletes 25 keys a request: 30 runs take two."""
    for n in range(30):
        put(store, f"r{n:02}", seed=n)
    put(store, "r00", seed=1, player="bo")
    store.forget_player("ada")
    store.forget_player("nobody")
    assert all(store.get("ada", f"r{n:02}") is None for n in range(30))
    assert store.get("bo", "r00")["seed"] == 1


def start(store, run_id, board="race", started_ms=0, most=1, player="ada", baseline=None):
    return store.start(run_id, player, board, 7, started_ms, ENDS, now_s=NOW, most_open=most, baseline=baseline)


def test_a_started_run_keeps_its_baseline_and_its_id_is_never_taken_again(store):
    assert start(store, "r1", baseline={"own": [10], "leaders": [10, 30]}) is None
    run = store.get("ada", "r1")
    assert run["baseline"] == {"own": [10], "leaders": [10, 30]} and run["ends_at"] == ENDS
    assert store.use("r1", "ada", "race", NOW, 5)["baseline"] == {"own": [10], "leaders": [10, 30]}
    assert start(store, "r2") == "r1" and "baseline" not in store.get("ada", "r2")  # r1 used: its place is free
    with pytest.raises(Taken):
        start(store, "r2", board="lap")


def test_one_open_run_a_board_and_starting_another_ends_it(store):
    start(store, "r1")
    assert start(store, "r2", started_ms=1) == "r1"
    assert store.get("ada", "r1")["ends_at"] == NOW and store.use("r1", "ada", "race", NOW, 5) is None  # ended
    assert start(store, "l1", board="lap") is None and start(store, "b1", player="bo") is None  # other places
    assert store.use("r2", "ada", "race", NOW, 6)["used_ms"] == 6


def test_more_places_keep_more_runs_open_and_the_oldest_is_ended_past_them(store):
    start(store, "a", started_ms=3, most=3)
    start(store, "b", started_ms=1, most=3)
    start(store, "c", started_ms=2, most=3)
    assert start(store, "d", started_ms=4, most=3) == "b"  # the oldest open run, not the first place's
    assert [store.use(r, "ada", "race", NOW, 9) is not None for r in "abcd"] == [True, False, True, True]
    assert start(store, "e", most=3) == "a"  # a used run's place is taken first (and it is ended: no release)
    store.release("a", "ada", 9)
    assert store.use("a", "ada", "race", NOW, 10) is None


def test_a_place_whose_run_is_over_or_forgotten_is_free(store):
    store.start("old", "ada", "race", 7, 0, NOW, now_s=NOW, most_open=1)  # over: ends_at is not after now
    assert start(store, "r1") is None and store.get("ada", "old")["ends_at"] == NOW
    store.forget_player("ada")
    assert start(store, "r2") is None and store.get("ada", "r1") is None
