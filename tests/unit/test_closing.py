"""Closing periods on the in-memory stores: the summary (top, total, tier cut-offs, reward winners) against a brute
force, the final snapshot, the event, idempotency, 409 for open periods, the periods routes, the scheduled job, tiers
on player lookups."""

from __future__ import annotations

import itertools
import json
import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from cdk_leaderboard_lambda.domain import periods, rank_counters
from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog, closing
from cdk_leaderboard_lambda.operations import submissions as scores_in
from cdk_leaderboard_lambda.shared import limits
from cdk_leaderboard_lambda.shared.clock import iso
from local import invocation
from tests.support.lambda_api import call
from tests.support.season import REWARDS, TIERS

NOW = datetime.now(UTC)
YESTERDAY = NOW - timedelta(days=1)
_board_ids = itertools.count()


@pytest.fixture
def events_file(in_memory, tmp_path, monkeypatch, reconfigure):
    """Where the closing's events go when there is no EventBridge (local runs and tests)."""
    path = tmp_path / "events.jsonl"
    monkeypatch.setenv("LOCAL_EVENTS_FILE", str(path))
    reconfigure()
    yield lambda: [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def winners(top, ranks):
    return [e for e in top if ranks[0] <= e["rank"] <= ranks[1]]


def brute_force(scores: dict[str, tuple[int, int]], order: str, tiers, rewards):
    """The expected summary from the submissions alone: players by score, then who reached it first."""
    sign = -1 if order == limits.DESC else 1
    ranked = sorted(scores, key=lambda p: (sign * scores[p][0], scores[p][1], p))
    total = len(ranked)
    top = [{"rank": r, "player_id": p, "player_name": p, "score": scores[p][0]} for r, p in enumerate(ranked, 1)]
    cutoffs = {}
    for tier in tiers:
        reaching = [e for e in top if round((total - e["rank"]) / total * 100, 1) >= tier["min_percentile"]]
        cutoffs[tier["name"]] = reaching[-1]["score"] if reaching else None
    won = [
        {
            "reward": r["reward"],
            "ranks": r["ranks"],
            "players": [e for e in top if r["ranks"][0] <= e["rank"] <= r["ranks"][1]],
        }
        for r in rewards
    ]
    return top[:100], total, cutoffs, won


@settings(
    max_examples=6,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    order=st.sampled_from(limits.ORDERS),
    shards=st.sampled_from([1, 3]),
    scores=st.lists(st.integers(min_value=0, max_value=30), min_size=1, max_size=40),
)
def test_a_closing_summary_matches_brute_force(in_memory, settle, events_file, order, shards, scores):
    board_id = f"s{next(_board_ids)}"
    body = {"board_id": board_id, "periods": ["daily"], "order": order, "shards": shards, "max_score": 30}
    board_catalog.create_board(
        invocation.runtime(), {**body, "tiers": TIERS, "rewards": REWARDS}, YESTERDAY - timedelta(days=1)
    )
    config = board_catalog.get_board(invocation.runtime(), board_id)
    day = datetime.combine(YESTERDAY.date(), datetime.min.time(), tzinfo=UTC) + timedelta(hours=1)
    expected: dict[str, tuple[int, int]] = {}
    for i, score in enumerate(scores):
        player = f"p{i:02d}"
        scores_in.submit(
            invocation.runtime(), config, Submission(player, player, score), day + timedelta(milliseconds=i)
        )
        expected[player] = (score, i)
    settle()
    period_id = f"daily-{YESTERDAY.date().isoformat()}"
    summary = call("POST", f"/leaderboards/{board_id}/periods/{period_id}/close").body
    top, total, cutoffs, won = brute_force(expected, order, TIERS, REWARDS)
    assert (summary["status"], summary["period_id"], summary["kind"]) == ("closed", period_id, "daily")
    assert summary["top"] == top
    assert summary["total_players"] == total
    assert summary["tier_cutoffs"] == cutoffs
    assert summary["rewards"] == won
    assert summary["ends_at"] == f"{(YESTERDAY + timedelta(days=1)).date().isoformat()}T00:00:00Z"
    assert summary["starts_at"] == f"{YESTERDAY.date().isoformat()}T00:00:00.000Z"
    # the final top is in the snapshot archive, the event carries the summary, once
    snapshot = invocation.runtime().snapshots.newest(config.leaderboard_id(period_id), 5)
    assert [s["entries"] for s in snapshot] == [top]
    sent = [e for e in events_file() if e["detail"]["board_id"] == board_id]
    assert [(e["source"], e["detail-type"], e["detail"]) for e in sent] == [
        ("leaderboard", "Leaderboard Period Closed", summary)
    ]


def test_score_at_rank_finds_every_rank(in_memory, settle):
    """The binary search behind tier cut-offs, on a sharded board with many ties, both orders."""
    rng = random.Random(7)
    for order in limits.ORDERS:
        board_catalog.create_board(
            invocation.runtime(),
            {"board_id": f"r-{order}", "order": order, "shards": 3, "max_score": 1000},
            invocation.now(),
        )
        config = board_catalog.get_board(invocation.runtime(), f"r-{order}")
        scores = [rng.choice([0, 5, 5, 5, 17, 999, 1000]) for _ in range(30)]
        for i, s in enumerate(scores):
            scores_in.submit(invocation.runtime(), config, Submission(f"p{i}", None, s), invocation.now())
        settle()
        ordered = sorted(scores, reverse=order == limits.DESC)
        parts = config.partitions("all-time")
        for rank, score in enumerate(ordered, start=1):
            assert (
                rank_counters.score_at_rank(invocation.runtime(), parts, rank, 0, 1000, order == limits.DESC) == score
            )
        assert rank_counters.score_at_rank(invocation.runtime(), parts, 31, 0, 1000, order == limits.DESC) is None


def test_closing_is_idempotent_and_open_periods_are_409(in_memory, settle, events_file):
    call("POST", "/leaderboards", body={"board_id": "wk", "periods": ["all-time", "daily"], "tiers": TIERS})
    config = board_catalog.get_board(invocation.runtime(), "wk")
    scores_in.submit(invocation.runtime(), config, Submission("ada", "Ada", 10), YESTERDAY)
    scores_in.submit(invocation.runtime(), config, Submission("bob", "Bob", 20), invocation.now())
    settle()
    yesterday = f"daily-{YESTERDAY.date().isoformat()}"
    today = f"daily-{NOW.date().isoformat()}"
    first = call("POST", f"/leaderboards/wk/periods/{yesterday}/close")
    assert first.status == 200
    assert [e["player_id"] for e in first.body["top"]] == ["ada"]
    scores_in.submit(
        invocation.runtime(), config, Submission("late", None, 99), YESTERDAY
    )  # a write after the closing changes nothing
    again = call("POST", f"/leaderboards/wk/periods/{yesterday}/close")
    assert (again.status, again.body) == (200, first.body)
    assert len(events_file()) == 1
    for period, fragment in ((today, "is open until"), ("daily", "is open until"), ("all-time", "never ends")):
        reply = call("POST", f"/leaderboards/wk/periods/{period}/close")
        assert reply.status == 409 and fragment in reply.body["error"]
    assert call("POST", "/leaderboards/wk/periods/monthly/close").status == 404
    assert call("POST", "/leaderboards/nope/periods/daily/close").status == 404
    assert call("GET", f"/leaderboards/wk/periods/{yesterday}").body == first.body

    listing = call("GET", "/leaderboards/wk/periods").body
    assert listing["board_id"] == "wk"
    assert [(p["period_id"], p["status"]) for p in listing["periods"]] == [
        ("all-time", "open"),
        (today, "open"),
        (yesterday, "closed"),
    ]
    assert listing["periods"][1]["total_players"] == 1  # bob today
    assert listing["periods"][2]["closed_at"] == first.body["closed_at"]
    assert listing["periods"][2]["total_players"] == 1
    shown = call("GET", f"/leaderboards/wk/periods/{today}").body
    assert (shown["status"], shown["total_players"], shown["next_reset"]) == ("open", 1, shown["ends_at"])


def test_a_tournament_closes_once_it_ends_by_the_scheduled_job(in_memory, clock, settle, events_file):
    start, end = clock.now() - timedelta(hours=1), clock.now() + timedelta(seconds=8)
    body = {"board_id": "cup", "starts_at": iso(start), "ends_at": iso(end), "rewards": REWARDS, "tiers": TIERS}
    assert call("POST", "/leaderboards", body=body).status == 201
    for player, score in (("ada", 5), ("bob", 9), ("cy", 9)):
        assert call("POST", "/leaderboards/cup/scores", body={"player_id": player, "score": score}).status == 200
        clock.advance(0.001)  # bob reaches 9 before cy
    settle()
    me = call("GET", "/leaderboards/cup/players/ada").body
    assert (me["rank"], me["percentile"], me["tier"]) == (3, 0.0, "bronze")
    assert call("GET", "/leaderboards/cup/players/bob").body["tier"] == "silver"  # 66.7
    assert call("POST", "/leaderboards/cup/periods/tournament/close").status == 409
    assert [c for c in closing.close_ended(invocation.runtime()) if c["board_id"] == "cup"] == []  # not ended yet
    clock.set(end + timedelta(milliseconds=100))  # the tournament has ended (no sleep: the clock is set)
    late = call("POST", "/leaderboards/cup/scores", body={"player_id": "dan", "score": 50})
    assert late.status == 409
    assert {"board_id": "cup", "period_id": "tournament"} in closing.close_ended(invocation.runtime())
    assert closing.close_ended(invocation.runtime()) == []  # once
    summary = call("GET", "/leaderboards/cup/periods/tournament").body
    assert [e["player_id"] for e in summary["top"]] == ["bob", "cy", "ada"]
    assert summary["rewards"][0]["players"][0]["player_id"] == "bob"
    assert [e["player_id"] for e in summary["rewards"][1]["players"]] == ["cy", "ada"]
    assert summary["tier_cutoffs"] == {"diamond": None, "gold": None, "silver": 9, "bronze": 5}  # 66.7, 33.3, 0
    assert (summary["starts_at"], summary["ends_at"]) == (iso(start), iso(end))
    assert [e["detail"]["period_id"] for e in events_file() if e["detail"]["board_id"] == "cup"] == ["tournament"]


def test_the_scheduled_job_closes_each_kind_s_previous_period(in_memory, events_file):
    now = datetime(2026, 12, 1, 0, 3, tzinfo=UTC)  # a Tuesday: yesterday's day and November have ended
    board_catalog.create_board(
        invocation.runtime(), {"board_id": "all", "periods": list(periods.KINDS)}, now - timedelta(days=60)
    )
    config = board_catalog.get_board(invocation.runtime(), "all")
    assert [p.period_id for p in closing.due(config, now)] == ["daily-2026-11-30", "weekly-2026-W48", "monthly-2026-11"]
    board_catalog.create_board(invocation.runtime(), {"board_id": "new", "periods": ["daily"]}, now)
    assert closing.due(board_catalog.get_board(invocation.runtime(), "new"), now) == []  # it did not exist yesterday


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"rewards": [{"reward": "x", "ranks": [1, 101]}]}, "rewards must be"),
        ({"tiers": [{"name": "a", "min_percentile": 101}]}, "tiers must be"),
    ],
)
def test_bad_rewards_and_tiers_are_400(in_memory, fields, fragment):
    reply = call("POST", "/leaderboards", body={"board_id": "bad", **fields})
    assert reply.status == 400 and fragment in reply.body["error"]


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"rewards": [{"reward": "x", "ranks": [3, 2]}]}, "rewards must be"),
        ({"tiers": [{"name": "a", "min_percentile": 5}, {"name": "a", "min_percentile": 6}]}, "tiers must be"),
        ({"tiers": [{"name": "a", "min_percentile": 5}, {"name": "b", "min_percentile": 5}]}, "tiers must be"),
    ],
)
def test_rewards_and_tiers_of_the_documents_shape_that_break_a_rule_in_words_are_422(in_memory, fields, fragment):
    """Valid by the document's schema (JSON Schema cannot compare two items), refused by the rule its description
    states: 422, a status the document declares, and nothing stored."""
    reply = call("POST", "/leaderboards", body={"board_id": "bad", **fields})
    assert reply.status == 422 and fragment in reply.body["error"]
    assert call("GET", "/leaderboards/bad").status == 404


@pytest.mark.parametrize(("order", "shards"), [(limits.DESC, 1), (limits.ASC, 3)])
def test_tier_cutoffs_below_the_closing_top_are_searched(in_memory, settle, events_file, order, shards):
    """150 players: the silver and bronze cut-offs lie past the top 100 the summary keeps."""
    board_id = f"big-{order}"
    body = {"board_id": board_id, "periods": ["daily"], "order": order, "shards": shards, "tiers": TIERS}
    board_catalog.create_board(invocation.runtime(), body, YESTERDAY - timedelta(days=1))
    config = board_catalog.get_board(invocation.runtime(), board_id)
    rng = random.Random(order)
    expected = {}
    for i in range(150):
        score = rng.randrange(0, 60)
        scores_in.submit(
            invocation.runtime(), config, Submission(f"p{i:03d}", None, score), YESTERDAY + timedelta(milliseconds=i)
        )
        expected[f"p{i:03d}"] = (score, i)
    settle()
    summary = closing.close(invocation.runtime(), config, f"daily-{YESTERDAY.date().isoformat()}")
    _, total, cutoffs, _ = brute_force(expected, order, TIERS, [])
    assert summary["total_players"] == total == 150
    assert summary["tier_cutoffs"] == cutoffs
    assert len(summary["top"]) == 100


def test_a_closing_sends_its_event_once_and_its_claim_can_be_taken_over(in_memory, settle, events_file):
    """A second close call answers the same summary and sends nothing; the sending is claimed on the summary, and a
    claim left by a sender that died is taken over later. (Closings racing each other are tested against DynamoDB
    Local in tests/integration/test_season.py: moto's conditional writes are not atomic across threads.)"""
    closings = invocation.runtime().closings
    call("POST", "/leaderboards", body={"board_id": "race-close", "periods": ["daily"]})
    config = board_catalog.get_board(invocation.runtime(), "race-close")
    scores_in.submit(invocation.runtime(), config, Submission("ada", "Ada", 10), YESTERDAY)
    settle()
    path = f"/leaderboards/race-close/periods/daily-{YESTERDAY.date().isoformat()}/close"
    first, second = call("POST", path), call("POST", path)
    assert (first.status, second.status) == (200, 200) and first.body == second.body
    assert "event_claimed_until" not in first.body
    assert len(events_file()) == 1

    assert closings.claim_event("race-close", "x", now_s=1000, lease_s=300) is False  # no such summary
    closings.put_new("race-close", "x", {"board_id": "race-close", "event_sent": False})
    assert closings.claim_event("race-close", "x", now_s=1000, lease_s=300) is True
    assert closings.claim_event("race-close", "x", now_s=1200, lease_s=300) is False  # held
    assert closings.claim_event("race-close", "x", now_s=1301, lease_s=300) is True  # its holder died: taken over
