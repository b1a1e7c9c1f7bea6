"""Tournaments under moto: a board with its own start and end, one period `tournament`, scores only inside it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cdk_leaderboard_lambda.shared.clock import iso
from local import invocation
from tests.support.lambda_api import call, scan


def at(**delta) -> str:
    return iso(datetime.now(UTC) + timedelta(**delta))


def create(board_id, **fields):
    return call("POST", "/leaderboards", body={"board_id": board_id, **fields})


def post(board, player, score):
    return call("POST", f"/leaderboards/{board}/scores", body={"player_id": player, "score": score})


def entries_of(ddb, board):
    return [
        i for i in scan(ddb, invocation.settings().scores_table) if i["leaderboard_id"]["S"].startswith(f"{board}#")
    ]


def test_a_running_tournament_takes_scores_in_its_one_period(ddb, settle):
    starts, ends = at(hours=-1), at(hours=1)
    status, board, _ = create("cup", starts_at=starts, ends_at=ends)
    assert status == 201
    assert (board["starts_at"], board["ends_at"]) == (starts, ends)
    assert board["periods"] == [{"period": "tournament", "current": "tournament", "next_reset": ends}]
    assert post("cup", "ada", 10).status == 200
    assert post("cup", "bob", 12).body["periods"][0]["leaderboard_id"] == f"cup.{board['generation']}#tournament"
    settle()
    for query in ({}, {"period": "tournament"}):
        page = call("GET", "/leaderboards/cup/top", query=query).body
        assert (page["period"], page["period_id"]) == ("tournament", "tournament")
        assert [(e["player_id"], e["rank"]) for e in page["entries"]] == [("bob", 1), ("ada", 2)]
    me = call("GET", "/leaderboards/cup/players/ada").body
    assert (me["rank"], me["total_players"]) == (2, 2)
    assert call("GET", "/leaderboards/cup/top", query={"period": "all-time"}).status == 404
    bulk = call("POST", "/leaderboards/cup/scores/bulk", body={"entries": [{"player_id": "cy", "score": 3}]})
    assert (bulk.status, bulk.body["accepted"]) == (200, 1)


@pytest.mark.parametrize(
    ("window", "fragment"),
    [((dict(hours=1), dict(hours=2)), "has not started"), ((dict(hours=-2), dict(seconds=-1)), "has ended")],
)
def test_scores_outside_the_window_are_409_and_write_nothing(ddb, window, fragment):
    starts, ends = at(**window[0]), at(**window[1])
    assert create("cup", starts_at=starts, ends_at=ends).status == 201
    reply = post("cup", "ada", 10)
    assert reply.status == 409
    assert fragment in reply.body["error"]
    bulk = call("POST", "/leaderboards/cup/scores/bulk", body={"entries": [{"player_id": "bob", "score": 3}]})
    assert bulk.status == 409 and fragment in bulk.body["error"]
    assert entries_of(ddb, "cup") == []


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"starts_at": "2026-12-01T10:00:00Z"}, "both starts_at and ends_at"),
        ({"ends_at": "2026-12-01T10:00:00Z"}, "both starts_at and ends_at"),
        (
            {"starts_at": "2026-12-01T10:00:00Z", "ends_at": "2026-12-01T11:00:00Z", "periods": ["daily"]},
            "instead of periods",
        ),
        ({"starts_at": "2026-12-01T10:00:00Z", "ends_at": "2026-12-01T10:00:00Z"}, "ends_at must be after"),
        ({"starts_at": "2026-12-01T10:00:00+01:00", "ends_at": "2026-12-01T12:00:00Z"}, "ISO 8601 UTC"),
        ({"starts_at": "2026-02-30T10:00:00Z", "ends_at": "2026-12-01T12:00:00Z"}, "ISO 8601 UTC"),
        ({"starts_at": 1764583200, "ends_at": "2026-12-01T12:00:00Z"}, "ISO 8601 UTC"),
    ],
)
def test_bad_tournaments_are_refused_and_create_nothing(ddb, fields, fragment):
    reply = create("cup", **fields)
    # of the document's shape, refused by a rule it says in words (an empty window, a day the calendar lacks): 422
    in_words = fragment == "ends_at must be after" or fields.get("starts_at") == "2026-02-30T10:00:00Z"
    assert reply.status == (422 if in_words else 400)
    assert fragment in reply.body["error"]
    assert call("GET", "/leaderboards/cup").status == 404


def test_a_board_with_periods_has_no_tournament_period(ddb):
    create("race")
    post("race", "ada", 1)
    reply = call("GET", "/leaderboards/race/top", query={"period": "tournament"})
    assert reply.status == 404
    assert "no tournament period" in reply.body["error"]
