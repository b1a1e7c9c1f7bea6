"""Players across boards under moto: the friends view, every board of a player."""

from __future__ import annotations

import random

import pytest

from leaderboard import limits
from leaderboard.settings import get_settings
from tests.support.lambda_api import call


def create(board_id, **fields):
    reply = call("POST", "/leaderboards", body={"board_id": board_id, **fields})
    assert reply.status == 201, reply.body


def post(board, player, score, **extra):
    reply = call("POST", f"/leaderboards/{board}/scores", body={"player_id": player, "score": score, **extra})
    assert reply.status == 200, reply.body


def friends(board, ids, **query):
    return call("GET", f"/leaderboards/{board}/players", query={"ids": ",".join(ids), **query})


@pytest.fixture
def small_counters(monkeypatch, ddb):
    """Tiny buckets and segments, so ranks come from several counter levels."""
    monkeypatch.setenv("BUCKET_CAPACITY", "4")
    monkeypatch.setenv("SEGMENT_CAPACITY", "3")
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


@pytest.mark.parametrize("shards", [1, 3])
def test_friends_are_in_rank_order_with_board_wide_ranks(ddb, settle, small_counters, shards):
    create("duel", periods=["all-time"], shards=shards)
    rng = random.Random(shards)
    scores = {f"p{i:02d}": rng.randrange(0, 40) for i in range(30)}
    for player, score in scores.items():
        post("duel", player, score)
    settle()
    board = call("GET", "/leaderboards/duel/top", query={"limit": "100"}).body["entries"]
    rank_of = {e["player_id"]: e["rank"] for e in board}
    asked = ["p03", "ghost", "p17", "p03", "p29", "p00", "nobody"]
    reply = friends("duel", asked)
    assert reply.status == 200
    got = reply.body["entries"]
    on_board = sorted({p for p in asked if p in scores}, key=lambda p: rank_of[p])
    assert [e["player_id"] for e in got] == on_board  # ghosts left out, a repeat once, rank order
    assert [e["rank"] for e in got] == [rank_of[p] for p in on_board]
    assert [e["score"] for e in got] == [scores[p] for p in on_board]
    assert reply.body["period"] == "all-time" and reply.body["board_id"] == "duel"


def test_friends_refuses_bad_ids_and_more_than_the_limit(ddb):
    create("duel", periods=["all-time"])
    assert friends("duel", [f"p{i}" for i in range(limits.MAX_FRIEND_IDS)]).status == 200
    too_many = friends("duel", [f"p{i}" for i in range(limits.MAX_FRIEND_IDS + 1)])
    assert too_many.status == 400 and "at most" in too_many.body["error"]
    assert friends("duel", ["ok", "bad id"]).status == 400
    assert friends("duel", ["ok", ""]).status == 400
    assert call("GET", "/leaderboards/duel/players").status == 400  # ids is required
    assert friends("nope", ["a"]).status == 404
    assert friends("duel", ["a"], period="daily").status == 404  # a period the board does not keep


def test_friends_cost_one_batch_read_whatever_the_number_of_ids(ddb, settle):
    create("duel", periods=["all-time"])
    for i in range(5):
        post("duel", f"p{i}", i)
    settle()
    from leaderboard.data import dynamo

    calls: list[str] = []
    dynamo.client().meta.events.register(
        "before-call.dynamodb.*", lambda model, **_: calls.append(model.name), unique_id="count-calls"
    )
    assert friends("duel", ["p1", "p3"] + [f"ghost{i}" for i in range(90)]).status == 200
    dynamo.client().meta.events.unregister("before-call.dynamodb.*", unique_id="count-calls")
    assert calls.count("BatchGetItem") == 1 and "Scan" not in calls
    # two players found: one segment read, one bucket read, one COUNT each
    assert 1 <= calls.count("Query") <= 2 + 2, calls


def test_every_board_of_a_player_with_rank_and_percentile(ddb, settle):
    create("race", order="asc", periods=["all-time", "weekly"])
    create("coins", operator="increment", periods=["daily"])
    create("other", periods=["all-time"])
    for player, lap in (("ada", 60), ("bob", 55), ("cy", 70)):
        post("race", player, lap)
    post("coins", "ada", 5)
    post("coins", "ada", 7)
    post("other", "bob", 1)
    call("POST", "/scores", body={"player_id": "ada", "score": 10})
    settle()
    reply = call("GET", "/players/ada/boards")
    assert reply.status == 200
    rows = {(b["board_id"], b["period"]): b for b in reply.body["boards"]}
    assert set(rows) == {
        ("coins", "daily"),
        ("global", "all-time"),
        ("global", "daily"),
        ("global", "weekly"),
        ("race", "all-time"),
        ("race", "weekly"),
    }
    assert rows[("race", "all-time")] | {"period_id": "x"} == {
        "board_id": "race",
        "period": "all-time",
        "period_id": "x",
        "rank": 2,
        "score": 60,
        "total_players": 3,
        "percentile": round(1 / 3 * 100, 1),
    }
    assert rows[("coins", "daily")]["score"] == 12 and rows[("coins", "daily")]["rank"] == 1
    assert rows[("race", "weekly")]["period_id"].startswith("weekly-")
    assert call("GET", "/players/nobody/boards").body == {"player_id": "nobody", "boards": []}
    assert call("GET", "/players/bad%20id/boards").status == 400


def test_a_deleted_board_leaves_a_players_boards(ddb, settle):
    create("gone", periods=["all-time"])
    post("gone", "ada", 3)
    settle()
    assert [b["board_id"] for b in call("GET", "/players/ada/boards").body["boards"]] == ["gone"]
    assert call("DELETE", "/leaderboards/gone").status == 200
    assert call("GET", "/players/ada/boards").body["boards"] == []
