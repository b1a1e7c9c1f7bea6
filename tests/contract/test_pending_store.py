"""Quarantined submissions (ports.PendingStore): the same cases on DynamoDB Local and in memory
(conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def store(runtime):
    return runtime.pending


def values(score: int, n: int = 0) -> dict:
    return {"board_id": "race", "score": score, "rule": "max_score", "submitted_at": f"2026-11-30T00:0{n}:00Z"}


def test_a_held_submission_reads_back_and_its_player_finds_it(store):
    store.put("race", "0001-a", "ada", {**values(90), "metadata": None, "player_name": "Ada"})
    store.put("race", "0002-b", "ada", values(80, 1))
    store.put("lap", "0003-c", "ada", {**values(70, 2), "board_id": "lap"})
    assert store.get("race", "0001-a") == {
        "player_id": "#pending#race",
        "leaderboard_id": "0001-a",
        "pending_player": "ada",
        "player_name": "Ada",
        **values(90),
    }  # None attributes are not stored
    assert store.get("race", "nope") is None
    assert store.of_player_on("ada", "race") == [
        {"pending_id": "0001-a", "score": 90, "rule": "max_score", "submitted_at": "2026-11-30T00:00:00Z"},
        {"pending_id": "0002-b", "score": 80, "rule": "max_score", "submitted_at": "2026-11-30T00:01:00Z"},
    ]
    assert store.of_player_on("bo", "race") == []
    assert [(p["board_id"], p["pending_id"], p["score"]) for p in store.of_player("ada")] == [
        ("lap", "0003-c", 70),
        ("race", "0001-a", 90),
        ("race", "0002-b", 80),
    ]  # every board's, for the player's own token (GET /players/{player_id})
    assert store.of_player("bo") == []


def test_the_queue_pages_in_pending_id_order(store):
    for n, pending_id in enumerate(["0005-e", "0001-a", "0003-c", "0002-b", "0004-d"]):
        store.put("race", pending_id, f"p{n}", values(n))
    store.put("lap", "0000-z", "p9", values(1))
    seen, after = [], None
    while True:
        page, more = store.page_of_board("race", after, 2)
        seen += page
        if not more:
            break
        after = page[-1]["leaderboard_id"]
    assert [i["leaderboard_id"] for i in seen] == ["0001-a", "0002-b", "0003-c", "0004-d", "0005-e"]
    assert store.page_of_board("race", None, 5)[1] is False  # exactly the page's size: no more


def test_one_claim_at_a_time_and_only_its_holder_gives_it_back(store):
    store.put("race", "0001-a", "ada", values(90))
    assert store.claim("race", "0001-a", "t1") is True
    assert store.claim("race", "0001-a", "t2") is False  # held
    assert store.get("race", "0001-a")["deciding"] == "t1"
    store.unclaim("race", "0001-a", "t2")  # not its claim: nothing
    assert store.claim("race", "0001-a", "t3") is False
    store.unclaim("race", "0001-a", "t1")
    assert "deciding" not in store.get("race", "0001-a")
    assert store.claim("race", "0001-a", "t4") is True
    assert store.claim("race", "gone", "t5") is False  # never there: nothing made
    assert store.get("race", "gone") is None


def test_a_dropped_submission_leaves_no_trace(store):
    store.put("race", "0001-a", "ada", values(90))
    store.claim("race", "0001-a", "t1")
    store.drop("race", "0001-a", "ada")
    assert store.get("race", "0001-a") is None
    assert store.of_player_on("ada", "race") == []
    assert store.page_of_board("race", None, 10) == ([], False)
    assert store.claim("race", "0001-a", "t2") is False


def test_forgetting_a_player_deletes_theirs_on_every_board_past_one_batch(store):
    """BatchWriteItem deletes 25 items a request: 15 submissions and their pointers take two."""
    for n in range(15):
        store.put("race" if n % 2 else "lap", f"{n:04}-x", "ada", values(n))
    store.put("race", "9999-b", "bo", values(1))
    store.forget_player("ada")
    store.forget_player("nobody")
    assert store.of_player_on("ada", "race") == [] and store.of_player_on("ada", "lap") == []
    assert store.page_of_board("lap", None, 20) == ([], False)
    assert [i["leaderboard_id"] for i in store.page_of_board("race", None, 20)[0]] == ["9999-b"]


def test_forgetting_a_board_deletes_its_submissions_and_their_pointers(store):
    for n in range(14):
        store.put("race", f"{n:04}-x", f"p{n % 3}", values(n))
    store.put("lap", "0001-y", "p0", values(1))
    store.forget_board("race")
    store.forget_board("none")
    assert store.page_of_board("race", None, 20) == ([], False)
    assert all(store.of_player_on(f"p{n}", "race") == [] for n in range(3))
    assert [p["pending_id"] for p in store.of_player_on("p0", "lap")] == ["0001-y"]
