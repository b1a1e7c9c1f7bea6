"""Every handler under moto: behaviour, limits, CORS and every bad input."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cdk_leaderboard_lambda.domain import periods
from cdk_leaderboard_lambda.operations import original_api
from cdk_leaderboard_lambda.web.routes import MAX_SCORE
from local import invocation
from tests.support.lambda_api import call, scan

PERIOD_KINDS = ["all-time", "daily", "weekly"]  # the boards one submission updates


def submit(player_id, score, name=None, **kwargs):
    body = {"player_id": player_id, "score": score}
    if name:
        body["player_name"] = name
    return call("POST", "/scores", body=body, **kwargs)


def top(period="all-time", limit=None):
    query = {"period": period}
    if limit is not None:
        query["limit"] = str(limit)
    return call("GET", "/leaderboard", query=query)


def test_submit_fans_out_to_all_three_periods(ddb, settle):
    status, body, _ = submit("p1", 100, "Ada")
    assert status == 200
    now = datetime.now(UTC)
    expected = [p.period_id for p in periods.current(now, (periods.ALL_TIME, periods.DAILY, periods.WEEKLY))]
    assert [b["leaderboard_id"] for b in body["boards"]] == expected
    assert [b["period"] for b in body["boards"]] == ["all-time", "daily", "weekly"]
    assert all(b["best_score"] == 100 and b["improved"] for b in body["boards"])
    items = scan(ddb, invocation.settings().scores_table)
    assert [i["player_id"]["S"] for i in items] == ["p1"] * 3  # one entry per period, nothing else
    settle()  # the table's stream reaches the rank-counter function
    items = scan(ddb, invocation.settings().scores_table)
    counters = sorted(i["player_id"]["S"] for i in items if i["player_id"]["S"].startswith(("#buckets#", "#segments#")))
    # then one rank counter per level and period
    assert counters == sorted(f"#{level}#{lb}" for lb in expected for level in ("buckets", "segments"))
    # and each period's log: its head and one record, the stream record's mark, the player's commitment key
    logged = sorted(i["player_id"]["S"] for i in items if "rank_key" not in i and i["player_id"]["S"] not in counters)
    assert [p for p in logged if p.startswith("#log#")] == sorted(f"#log#{lb}" for lb in expected for _ in "hr")
    assert len([p for p in logged if p.startswith("#logsrc#")]) == 3
    assert len([p for p in logged if p.startswith("#logkey#") and "p1" not in p]) == 1  # keyed by a hash of the id
    assert len(logged) == 6 + 3 + 1


def test_higher_score_wins_and_lower_is_ignored(ddb):
    submit("p1", 100)
    status, body, _ = submit("p1", 50)
    assert status == 200
    assert [(b["period"], b["best_score"], b["improved"]) for b in body["boards"]] == [
        (kind, 100, False) for kind in PERIOD_KINDS
    ]
    _, body, _ = submit("p1", 150)
    assert [(b["period"], b["best_score"], b["improved"]) for b in body["boards"]] == [
        (kind, 150, True) for kind in PERIOD_KINDS
    ]
    _, board, _ = top()
    assert board["entries"] == [{"rank": 1, "player_id": "p1", "player_name": "p1", "score": 150}]


def test_equal_score_does_not_count_as_improvement(ddb):
    submit("p1", 100)
    _, body, _ = submit("p1", 100)
    assert [b["improved"] for b in body["boards"]] == [False] * len(PERIOD_KINDS)


def test_many_submissions_keep_the_maximum(ddb):
    """In any order the best stays (real concurrency is tested against DynamoDB Local in
    tests/integration: moto's transactions are not thread-safe)."""
    scores = [17, 3, 99, 42, 98, 5, 64, 99, 1, 77]
    for s in scores:
        submit("racer", s)
    _, body, _ = call("GET", "/player", query={"player_id": "racer"})
    assert [b["score"] for b in body["boards"]] == [99] * len(PERIOD_KINDS)


def test_leaderboard_is_sorted_best_first_with_consecutive_ranks(ddb):
    for pid, score in [("a", 10), ("b", 30), ("c", 20), ("d", MAX_SCORE), ("e", 0)]:
        submit(pid, score)
    status, body, _ = top(limit=10)
    assert status == 200
    assert [e["player_id"] for e in body["entries"]] == ["d", "b", "c", "a", "e"]
    assert [e["rank"] for e in body["entries"]] == [1, 2, 3, 4, 5]
    assert body["entries"][0]["score"] == MAX_SCORE
    assert body["leaderboard_id"] == "all-time" and body["period"] == "all-time"


def test_ties_go_to_whoever_reached_the_score_first(ddb):
    early = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)
    late = datetime(2026, 11, 30, 11, 0, tzinfo=UTC)
    original_api.submit(invocation.runtime(), "zed", "Zed", 500, now=early)  # alphabetically last, but first to 500
    original_api.submit(invocation.runtime(), "amy", "Amy", 500, now=late)
    _, body, _ = top()
    assert [e["player_id"] for e in body["entries"]] == ["zed", "amy"]


def test_limit_defaults_to_10_and_caps_at_100(ddb):
    for i in range(12):
        submit(f"p{i:02d}", i)
    assert len(top()[1]["entries"]) == 10
    assert len(top(limit=3)[1]["entries"]) == 3
    assert top(limit=100)[0] == 200
    for bad in (0, 101, -1, "ten", "1.5"):
        status, body, _ = top(limit=bad)
        assert status == 400 and "limit" in body["error"]


def test_daily_and_weekly_boards_and_bad_period(ddb):
    submit("p1", 5)
    for period in ("daily", "weekly"):
        _, body, _ = top(period)
        assert body["period"] == period and body["entries"][0]["player_id"] == "p1"
    status, body, _ = top("monthly")
    assert status == 404 and "monthly" in body["error"]  # the default board keeps no monthly period
    status, body, _ = top("yearly")
    assert status == 400 and "period" in body["error"]


def test_player_stats_rank_and_percentile(ddb):
    for i in range(10):
        submit(f"p{i}", i * 10)  # p9 best, p0 worst
    status, body, _ = call("GET", "/player", query={"player_id": "p7"})
    assert status == 200
    assert len(body["boards"]) == 3
    for board in body["boards"]:
        assert board["rank"] == 3 and board["total_players"] == 10
        assert board["percentile"] == round((10 - 3) / 10 * 100, 1) == 70.0
        assert board["score"] == 70
    _, best, _ = call("GET", "/player", query={"player_id": "p9"})
    assert best["boards"][0]["rank"] == 1 and best["boards"][0]["percentile"] == 90.0


def test_unknown_player_is_404(ddb):
    status, body, headers = call("GET", "/player", query={"player_id": "ghost"})
    assert status == 404 and "ghost" in body["error"]
    assert headers["Access-Control-Allow-Origin"] == "*"


def test_player_stats_needs_a_valid_player_id(ddb):
    for query in ({}, {"player_id": ""}, {"player_id": "x" * 65}, {"player_id": "bad id!"}):
        status, body, _ = call("GET", "/player", query=query)
        assert status == 400 and "player_id" in body["error"]


@pytest.mark.parametrize(
    "body, fragment",
    [
        ({"player_id": "p", "score": -1}, "between 0 and"),
        ({"player_id": "p", "score": MAX_SCORE + 1}, "between 0 and"),
        ({"player_id": "p", "score": 1.5}, "integer"),
        ({"player_id": "p", "score": "10"}, "integer"),
        ({"player_id": "p", "score": True}, "integer"),
        ({"player_id": "p", "score": None}, "integer"),
        ({"player_id": "p"}, "integer"),
        ({"score": 5}, "player_id"),
        ({"player_id": 7, "score": 5}, "player_id"),
        ({"player_id": "", "score": 5}, "player_id"),
        ({"player_id": "p", "score": 5, "player_name": ""}, "player_name"),
        ({"player_id": "p", "score": 5, "player_name": "n" * 65}, "player_name"),
        ({"player_id": "p", "score": 5, "extra": 1}, "unknown field"),
        ([1, 2], "JSON object"),
        ("{not json", "not valid JSON"),
        ("", "player_id"),
    ],
)
def test_bad_submissions_are_400_and_write_nothing(ddb, body, fragment):
    status, payload, headers = call("POST", "/scores", body=body)
    assert status == 400
    assert fragment in payload["error"]
    assert headers["Access-Control-Allow-Origin"] == "*"
    assert scan(ddb, invocation.settings().scores_table) == []


def test_huge_body_is_413_and_writes_nothing(ddb):
    body = '{"player_id": "p", "score": 1, "player_name": "' + "x" * 70_000 + '"}'
    status, payload, _ = call("POST", "/scores", body=body)
    assert status == 413 and "larger" in payload["error"]
    assert scan(ddb, invocation.settings().scores_table) == []


def test_cors_headers_follow_the_allowed_origins(ddb, monkeypatch, reconfigure):
    """Keyed routes answer the caller's origin if allowed (else the first); public reads answer "*" whatever the
    allowed origins: they take no credentials, and one answer cached at the edge serves every origin."""
    monkeypatch.setenv("CORS_ALLOWED_ORIGINS", "https://a.example,https://b.example")
    reconfigure()
    _, _, headers = top()
    assert headers["Access-Control-Allow-Origin"] == "*" and "Vary" not in headers
    _, _, headers = call("GET", "/leaderboard", headers={"Origin": "https://b.example"})
    assert headers["Access-Control-Allow-Origin"] == "*" and "Vary" not in headers
    _, _, headers = call("POST", "/scores", body='{"player_id": "p", "score": 1}')  # no Origin: the first allowed
    assert headers["Access-Control-Allow-Origin"] == "https://a.example"
    _, _, headers = call(
        "POST", "/scores", body='{"player_id": "p", "score": 1}', headers={"Origin": "https://b.example"}
    )
    assert headers["Access-Control-Allow-Origin"] == "https://b.example"
    assert headers["Vary"] == "Origin"
    status, _, headers = call("POST", "/scores", body="nope", headers={"Origin": "https://evil.example"})
    assert status == 400 and headers["Access-Control-Allow-Origin"] == "https://a.example"


def test_internal_errors_are_500_without_details(ddb, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("secret table name leaked")

    monkeypatch.setattr(invocation.runtime().entries, "page", boom)
    status, body, headers = top()
    assert status == 500 and body == {"error": "internal error"}
    assert "Access-Control-Allow-Origin" in headers


def test_snapshot_freezes_top_n_and_lists_newest_first(ddb):
    for i in range(5):
        submit(f"p{i}", i)
    status, first, _ = call("POST", "/snapshot", body={"limit": 3})
    assert status == 201
    assert [e["player_id"] for e in first["entries"]] == ["p4", "p3", "p2"]
    assert first["snapshot_id"].startswith(f"all-time#{first['taken_at']}#")
    submit("p9", 100)
    _, second, _ = call("POST", "/snapshot", body={})
    assert second["entries"][0]["player_id"] == "p9"
    status, listing, _ = call("GET", "/snapshots", query={"period": "all-time"})
    assert status == 200
    assert [s["snapshot_id"] for s in listing["snapshots"]] == [second["snapshot_id"], first["snapshot_id"]]
    assert listing["snapshots"][1]["entries"][0] == {"rank": 1, "player_id": "p4", "player_name": "p4", "score": 4}


def test_snapshot_of_daily_board_and_bad_input(ddb):
    submit("p1", 1)
    status, snap, _ = call("POST", "/snapshot", body={"period": "daily"})
    assert status == 201 and snap["leaderboard_id"].startswith("daily-")
    for body in ({"limit": 0}, {"limit": 101}, {"period": 5}, {"period": "hourly"}, {"bogus": 1}):
        status, payload, _ = call("POST", "/snapshot", body=body)
        assert status == 400, body
    assert len(scan(ddb, invocation.settings().snapshots_table)) == 1
    status, _, _ = call("GET", "/snapshots", query={"limit": "51"})
    assert status == 400


def test_simulator_seeds_consistent_players(ddb):
    status, body, _ = call("POST", "/simulate", body={"players": 40})
    assert status == 200 and body["players"] == 40 and body["writes"] == 120
    _, board, _ = top(limit=100)
    assert len(board["entries"]) == 40
    scores = [e["score"] for e in board["entries"]]
    assert scores == sorted(scores, reverse=True)
    # A player's best today never exceeds this week's, which never exceeds all-time.
    player = board["entries"][0]["player_id"]
    _, stats, _ = call("GET", "/player", query={"player_id": player})
    by_period = {b["period"]: b["score"] for b in stats["boards"]}
    assert by_period["daily"] <= by_period["weekly"] <= by_period["all-time"]


def test_simulator_limits_and_disabled_stage(ddb, monkeypatch, reconfigure):
    for players in (0, 1001, "many", "5"):  # "5": a body's integer is a JSON integer, whatever its content type
        status, body, _ = call("POST", "/simulate", body={"players": players})
        assert status == 400 and "players" in body["error"]
    status, body, _ = call("POST", "/snapshot", body={"limit": "5"})
    assert status == 400 and "limit" in body["error"]
    monkeypatch.setenv("ENABLE_SIMULATOR", "false")
    reconfigure()
    status, body, _ = call("POST", "/simulate", body={"players": 1})
    assert status == 403 and "disabled" in body["error"]
    assert scan(ddb, invocation.settings().scores_table) == []


def test_a_submission_without_name_keeps_the_stored_name(ddb):
    submit("p-ken", 10, "Ken")
    _, body, _ = submit("p-ken", 20)
    assert body["player_name"] == "Ken"
    _, board, _ = top()
    assert board["entries"][0]["player_name"] == "Ken"
    _, body, _ = submit("p-new", 5)
    assert body["player_name"] == "p-new"


def test_snapshot_taken_at_is_a_plain_timestamp(ddb):
    submit("p1", 1)
    _, snap, _ = call("POST", "/snapshot", body={})
    assert snap["taken_at"].endswith("Z") and "#" not in snap["taken_at"]
    _, listing, _ = call("GET", "/snapshots", query={})
    assert listing["snapshots"][0]["taken_at"] == snap["taken_at"]
    assert listing["snapshots"][0]["snapshot_id"] == snap["snapshot_id"]
