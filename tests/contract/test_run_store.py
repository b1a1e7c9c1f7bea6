"""Client runs (runs.RunStore): the same cases on DynamoDB Local and in memory (conftest.py)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

ENDS = 1_900_000_000  # epoch seconds


@pytest.fixture
def store(runtime):
    return runtime.runs


def test_a_stored_run_reads_back_with_its_expiry(store):
    store.put("r1", "ada", "race", 42, 1_899_999_000_000, ENDS)
    assert store.get("ada", "r1") == {
        "board_id": "race",
        "seed": 42,
        "started_ms": 1_899_999_000_000,
        "ends_at": ENDS,
        "expires_at": ENDS + 24 * 3600,
    }
    assert store.get("bo", "r1") is None and store.get("ada", "r2") is None


def test_a_run_id_is_never_stored_twice(store):
    store.put("r1", "ada", "race", 42, 0, ENDS)
    with pytest.raises(ClientError) as refused:
        store.put("r1", "ada", "lap", 7, 0, ENDS)
    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert store.get("ada", "r1")["board_id"] == "race"


def test_a_run_is_used_once_and_only_on_its_board_before_it_ends(store):
    store.put("r1", "ada", "race", 42, 0, ENDS)
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
    store.put("r1", "ada", "race", 42, 0, ENDS)
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
        store.put(f"r{n:02}", "ada", "race", n, 0, ENDS)
    store.put("r00", "bo", "race", 1, 0, ENDS)
    store.forget_player("ada")
    store.forget_player("nobody")
    assert all(store.get("ada", f"r{n:02}") is None for n in range(30))
    assert store.get("bo", "r00")["seed"] == 1
