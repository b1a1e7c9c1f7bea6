"""Stored boards (ports.BoardStore): the same cases on DynamoDB Local and in memory (conftest.py)."""

from __future__ import annotations

import pytest

from cdk_leaderboard_lambda.data import boards as board_items
from cdk_leaderboard_lambda.data import dynamo
from cdk_leaderboard_lambda.domain.ports import BUSY, CREATED, DELETED, EXISTS, FULL, MISSING


@pytest.fixture
def store(runtime):
    return runtime.boards


def config(board_id: str, **more) -> dict:
    return {"board_id": board_id, "order": "desc", "periods": ["daily"], **more}


def test_a_created_board_reads_back_as_stored_and_counts(store):
    assert store.counted() is None  # nothing counted before the first create
    assert store.put_counted(config("race", rules={"max_per_second": 5}), cap=10) == CREATED
    assert store.get("race") == {
        "player_id": "#boards",
        "leaderboard_id": "race",
        **config("race", rules={"max_per_second": 5}),
    }
    assert store.get("nothing") is None
    assert (store.counted(), store.count()) == (1, 1)


def test_a_taken_id_is_refused_and_changes_nothing(store):
    assert store.put_counted(config("race"), cap=10) == CREATED
    assert store.put_counted(config("race", order="asc"), cap=10) == EXISTS
    assert store.get("race")["order"] == "desc" and store.counted() == 1


def test_the_cap_is_exact_and_a_delete_makes_room(store):
    for n in range(3):
        assert store.put_counted(config(f"b{n}"), cap=3) == CREATED
    assert store.put_counted(config("b3"), cap=3) == FULL
    assert store.get("b3") is None and store.counted() == 3
    assert store.delete_counted("b1") == DELETED
    assert store.get("b1") is None and store.counted() == 2
    assert store.delete_counted("b1") == MISSING
    assert store.counted() == 2
    assert store.put_counted(config("b3"), cap=3) == CREATED


def test_boards_stored_before_the_count_are_counted_on_the_first_create(store):
    """A deployment from before the count: its board items are there, the count item is not (set_status on an
    absent board makes an item, as UpdateItem does; it stands in for an old board here)."""
    store.set_status("old1", "active")
    store.set_status("old2", "active")
    assert store.counted() is None and store.count() == 2
    assert store.put_counted(config("new"), cap=3) == CREATED
    assert store.counted() == 3
    assert store.put_counted(config("more"), cap=3) == FULL


def test_a_delete_before_any_count_counts_the_boards_first(store):
    store.set_status("old", "active")
    assert store.delete_counted("old") == DELETED
    assert store.counted() == 0 and store.count() == 0


def test_replace_changes_a_board_unless_it_is_gone_or_being_deleted(store):
    store.put_counted(config("race"), cap=10)
    assert store.replace(config("race", submissions="client")) is True
    assert store.get("race")["submissions"] == "client"
    assert store.replace(config("ghost")) is False
    assert store.get("ghost") is None
    store.set_status("race", "deleting")
    assert store.replace(config("race", submissions="server")) is False
    assert store.get("race")["submissions"] == "client" and store.get("race")["status"] == "deleting"
    assert store.count() == 1  # a tombstone still counts


def test_boards_page_in_board_id_order_and_a_full_page_says_more_may_follow(store):
    ids = ["zed", "Ada", "bo", "ada", "émile", "cy"]
    for board_id in ids:
        assert store.put_counted(config(board_id), cap=10) == CREATED
    seen, after = [], None
    while True:
        page, more = store.page(after, 4)
        seen += page
        if not more:
            break
        after = page[-1]["board_id"]
    assert [i["board_id"] for i in seen] == sorted(ids)  # by UTF-8 bytes
    assert store.page(None, 6)[1] is True  # exactly full: DynamoDB's Limit stops there, and more MAY follow
    assert store.page("émile", 4) == ([], False)
    assert [i["board_id"] for i in store.all()] == sorted(ids)


def test_every_transaction_cancelled_by_others_is_busy_and_stores_nothing(store, monkeypatch):
    """Only the DynamoDB implementation meets other transactions on the count item (TransactionConflict)."""
    if isinstance(store, board_items.MemoryBoards):
        pytest.skip("in memory, a create holds a lock: no other transaction can cancel it")

    def conflicting(actions, on=None):
        raise dynamo.Cancelled(["None", "TransactionConflict"])

    monkeypatch.setattr(dynamo, "transact", conflicting)
    monkeypatch.setattr(board_items.time, "sleep", lambda s: None)
    assert store.put_counted(config("race"), cap=10) == BUSY
    assert store.delete_counted("race") == BUSY
    monkeypatch.undo()
    assert store.get("race") is None and store.counted() is None


def test_a_deleted_generations_record_is_kept_and_listed_by_board(store):
    """The archive (board_catalog._archive): each deleted generation's record reads back by its board id, and all
    of them together (erasure reaches their summaries); a board id that prefixes another's lists only its own."""
    first = {"board_id": "race", "generation": "0", "config": config("race"), "keep_until": "2027-01-01T00:00:00.000Z"}
    second = {**first, "generation": "abcdefgh", "config": config("race", order="asc")}
    other = {**first, "board_id": "race-2", "config": config("race-2")}
    for record in (first, second, other):
        store.archive(record, 1_800_000_000)
    assert store.archived("race") == [first, second]
    assert store.archived("race-2") == [other]
    assert store.archived("nothing") == []
    assert sorted((r["board_id"], r["generation"]) for r in store.archived()) == [
        ("race", "0"),
        ("race", "abcdefgh"),
        ("race-2", "0"),
    ]
    store.archive({**second, "keep_until": "2028-01-01T00:00:00.000Z"}, 1_900_000_000)  # archived again: replaced
    assert store.archived("race")[1]["keep_until"] == "2028-01-01T00:00:00.000Z"
