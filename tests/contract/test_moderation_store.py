"""The moderation decisions (ports.ModerationStore): the same cases on DynamoDB Local and in memory
(conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture
def store(runtime):
    return runtime.moderation


def test_hiding_and_showing_decide_per_board_and_player(store):
    store.hide("race", "ada", "2026-11-30T00:00:00Z")
    store.hide("race", "bo", "2026-11-30T00:01:00Z")
    store.hide("lap", "cy", "2026-11-30T00:02:00Z")
    store.show("race", "bo")
    store.show("race", "nobody")  # not hidden: nothing happens
    asked = [("race", "ada"), ("race", "bo"), ("lap", "ada"), ("lap", "cy"), ("race", "ada")]
    assert store.hidden_among(asked) == {("race", "ada"), ("lap", "cy")}
    assert store.hidden_among([]) == set()


def test_more_than_one_batch_of_pairs_is_read_whole(store):
    """BatchGetItem reads 100 keys a request: 230 pairs take three, and every hidden one is found."""
    for n in range(0, 230, 7):
        store.hide("race", f"p{n:03}", "2026-11-30T00:00:00Z")
    pairs = [("race", f"p{n:03}") for n in range(230)]
    assert store.hidden_among(pairs) == {("race", f"p{n:03}") for n in range(0, 230, 7)}


def test_forgetting_a_player_removes_their_decisions_on_the_boards_named(store):
    for board in ("race", "lap", "cup"):
        store.hide(board, "ada", "2026-11-30T00:00:00Z")
    store.hide("race", "bo", "2026-11-30T00:00:00Z")
    store.forget("ada", ["race", "lap", "gone"])
    store.forget("ada", [])
    assert store.hidden_among([(b, p) for b in ("race", "lap", "cup") for p in ("ada", "bo")]) == {
        ("cup", "ada"),
        ("race", "bo"),
    }


def test_a_board_s_hidden_players_page_in_player_id_order(store):
    players = ["zed", "Ada", "bo", "ada", "émile", "cy"]
    for n, player in enumerate(players):
        store.hide("race", player, f"2026-11-30T00:0{n}:00Z")
    store.hide("lap", "other", "2026-11-30T00:00:00Z")
    seen, after = [], None
    while True:
        page, more = store.page_of_board("race", after, 4)
        seen += page
        if not more:
            break
        after = page[-1]["leaderboard_id"]
    assert [i["leaderboard_id"] for i in seen] == sorted(players)  # by UTF-8 bytes: "Ada" < "ada" < "émile"
    assert seen[0] == {"player_id": "#hidden#race", "leaderboard_id": "Ada", "hidden_at": "2026-11-30T00:01:00Z"}
    assert store.page_of_board("race", "émile", 4) == ([], False)  # the last in that order
    assert store.page_of_board("race", None, 6)[1] is False  # exactly the page's size: no more


def test_a_board_s_hidden_players_are_listed_and_forgotten_with_the_board(store):
    for player in ("zed", "ada", "bo"):
        store.hide("race", player, "2026-11-30T00:00:00Z")
    store.hide("lap", "ada", "2026-11-30T00:00:00Z")
    assert store.players_of_board("race") == ["ada", "bo", "zed"]
    assert store.players_of_board("none") == []
    store.forget_board("race", store.players_of_board("race"))
    store.forget_board("race", [])
    assert store.players_of_board("race") == []
    assert store.hidden_among([("lap", "ada"), ("race", "ada")]) == {("lap", "ada")}
