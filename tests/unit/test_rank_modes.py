"""Rank modes against a brute force: competition ranks (1, 2, 2, 4) on random boards with many ties, both orders,
sharded and not, through every read that shows ranks (pages walked with cursors, score ranges, a player with the
players around them); dense ranks are refused (400) with the reason. On the in-memory stores."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog, ranking_reads
from cdk_leaderboard_lambda.operations import submissions as scores_in
from cdk_leaderboard_lambda.shared import limits
from cdk_leaderboard_lambda.shared.errors import BadRequest
from local import invocation
from tests.support.capacities import counter_capacities
from tests.support.lambda_api import call

T0 = datetime(2026, 11, 29, 12, tzinfo=UTC)
_board_ids = itertools.count()


@pytest.fixture
def small_buckets(in_memory):
    """Tiny buckets and counter bands: ties straddle buckets, bands and pages."""
    with counter_capacities(None, bucket=3, band=2):
        yield in_memory


def competition(best: dict[str, int], order: str) -> dict[str, int]:
    """Brute force: 1 + the players with a strictly better score."""
    sign = 1 if order == limits.DESC else -1
    return {p: 1 + sum(sign * other > sign * s for other in best.values()) for p, s in best.items()}


def walk(read, limit):
    cursor, seen = None, []
    while True:
        page = read(limit, cursor)
        assert page["rank_mode"] == "competition"
        seen += page["entries"]
        cursor = page.get("next_cursor")
        if not cursor:
            return seen


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    order=st.sampled_from(limits.ORDERS),
    shards=st.sampled_from([1, 3]),
    # few distinct scores for many players: long runs of ties
    scores=st.lists(st.integers(min_value=0, max_value=4), min_size=1, max_size=12),
    limit=st.integers(min_value=1, max_value=4),
    bounds=st.tuples(st.integers(min_value=0, max_value=4), st.integers(min_value=0, max_value=4)).map(sorted),
)
def test_competition_ranks_match_brute_force(small_buckets, settle, order, shards, scores, limit, bounds):
    board_id = f"c{next(_board_ids)}"
    board_catalog.create_board(
        invocation.runtime(),
        {"board_id": board_id, "periods": ["all-time"], "order": order, "shards": shards},
        invocation.now(),
    )
    config = board_catalog.get_board(invocation.runtime(), board_id)
    best = {}
    for i, score in enumerate(scores):
        player = f"p{i:02d}"
        scores_in.submit(
            invocation.runtime(), config, Submission(player, player, score), T0 + timedelta(milliseconds=i)
        )
        best[player] = score
    settle()
    expected = competition(best, order)

    def top(limit, cursor):
        return ranking_reads.top(invocation.runtime(), config, "all-time", limit, cursor, now=T0, mode="competition")

    shown = walk(top, limit)
    assert sorted(e["player_id"] for e in shown) == sorted(best)
    assert {e["player_id"]: e["rank"] for e in shown} == expected

    low, high = bounds

    def in_range(limit, cursor):
        return ranking_reads.score_range(
            invocation.runtime(), config, "all-time", low, high, limit, cursor, now=T0, mode="competition"
        )

    ranged = walk(in_range, limit)
    assert {e["player_id"]: e["rank"] for e in ranged} == {p: r for p, r in expected.items() if low <= best[p] <= high}

    for player in best:
        me = ranking_reads.around(invocation.runtime(), config, "all-time", player, 2, now=T0, mode="competition")
        assert me["rank"] == expected[player]
        assert me["total_players"] == len(best)
        for e in me["above"] + me["below"]:
            assert e["rank"] == expected[e["player_id"]]
        # the window is still the unique order's neighbours
        unique = ranking_reads.around(invocation.runtime(), config, "all-time", player, 2, now=T0)
        assert [e["player_id"] for e in me["above"] + me["below"]] == [
            e["player_id"] for e in unique["above"] + unique["below"]
        ]


def test_competition_ranks_over_http_and_the_default_is_unique(in_memory, settle):
    call("POST", "/leaderboards", body={"board_id": "ties"})
    for player, score in (("a", 50), ("b", 40), ("c", 40), ("d", 30), ("e", 40)):
        call("POST", "/leaderboards/ties/scores", body={"player_id": player, "score": score})
    settle()
    top = call("GET", "/leaderboards/ties/top", query={"rank_mode": "competition"}).body
    assert [(e["player_id"], e["rank"]) for e in top["entries"]] == [("a", 1), ("b", 2), ("c", 2), ("e", 2), ("d", 5)]
    plain = call("GET", "/leaderboards/ties/top").body
    assert plain["rank_mode"] == "unique"
    assert [e["rank"] for e in plain["entries"]] == [1, 2, 3, 4, 5]
    me = call("GET", "/leaderboards/ties/players/e", query={"rank_mode": "competition", "window": "1"}).body
    assert (me["rank"], me["above"][0]["rank"], me["below"][0]["rank"]) == (2, 2, 5)
    page2 = call("GET", "/leaderboards/ties/top", query={"rank_mode": "competition", "limit": "2"}).body
    query = {"rank_mode": "competition", "limit": "2", "cursor": page2["next_cursor"]}
    rest = call("GET", "/leaderboards/ties/top", query=query).body
    assert [e["rank"] for e in rest["entries"]] == [2, 2]
    call("POST", "/scores", body={"player_id": "x", "score": 7})
    call("POST", "/scores", body={"player_id": "y", "score": 7})
    default = call("GET", "/leaderboard", query={"rank_mode": "competition"}).body
    assert [e["rank"] for e in default["entries"]] == [1, 1]


@pytest.mark.parametrize(
    ("path", "mode", "fragment"),
    [
        ("/leaderboards/ties/top", "dense", "distinct scores"),
        ("/leaderboards/ties/players/a", "dense", "distinct scores"),
        ("/leaderboards/ties/range", "dense", "distinct scores"),
        ("/leaderboard", "dense", "distinct scores"),
        ("/leaderboards/ties/top", "olympic", "rank_mode must be one of unique, competition"),
    ],
)
def test_dense_and_unknown_rank_modes_are_400(in_memory, path, mode, fragment):
    call("POST", "/leaderboards", body={"board_id": "ties"})
    call("POST", "/leaderboards/ties/scores", body={"player_id": "a", "score": 1})
    query = {"rank_mode": mode} | ({"min_score": "0", "max_score": "9"} if path.endswith("range") else {})
    reply = call("GET", path, query=query)
    assert reply.status == 400
    assert fragment in reply.body["error"]


def test_rank_mode_parsing():
    assert ranking_reads.rank_mode(None) == "unique"
    assert ranking_reads.rank_mode("competition") == "competition"
    with pytest.raises(BadRequest):
        ranking_reads.rank_mode("dense")
