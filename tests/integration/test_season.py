"""A tournament end to end over HTTP against DynamoDB Local: scores in its window, 409 after, closed on its own
by the local schedule within a stated delay, its summary, rewards, tiers, snapshot and event against a brute
force; the close route is idempotent and 409 for an open period; competition ranks and dense refused."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import boto3.dynamodb.types

from cdk_leaderboard_lambda.shared.clock import iso
from local.schedules import SCHEDULE_SECONDS
from tests.support import clock
from tests.support.season import REWARDS, TIERS

SCORES = {f"p{i:02d}": (i * 37) % 23 for i in range(24)}  # ties on purpose
# The schedule runs every SCHEDULE_SECONDS locally (on the real clock); a closing of this size takes well under a
# second more, but a loaded 2-core machine may delay the timer's run: waited for this long, no less.
CLOSING_DELAY = SCHEDULE_SECONDS + 30


def brute_force():
    order = sorted(SCORES, key=lambda p: (-SCORES[p], list(SCORES).index(p)))  # ties: who reached it first
    total = len(order)
    top = [{"rank": r, "player_id": p, "player_name": p, "score": SCORES[p]} for r, p in enumerate(order, 1)]
    cutoffs = {}
    for tier in TIERS:
        reaching = [e for e in top if round((total - e["rank"]) / total * 100, 1) >= tier["min_percentile"]]
        cutoffs[tier["name"]] = reaching[-1]["score"] if reaching else None
    rewards = [
        {"reward": r["reward"], "ranks": r["ranks"], "players": top[r["ranks"][0] - 1 : r["ranks"][1]]} for r in REWARDS
    ]
    return top, total, cutoffs, rewards


def test_a_short_tournament_takes_scores_then_closes_on_its_own(api, stack):
    now = stack.clock.now()
    start, end = now - timedelta(seconds=1), now + timedelta(seconds=10)
    body = {"board_id": "blitz", "starts_at": iso(start), "ends_at": iso(end), "tiers": TIERS, "rewards": REWARDS}
    assert api.post("/leaderboards", body).status_code == 201
    # one request (the window is short): equal scores then rank by player id, as the brute force does
    bulk = api.post(
        "/leaderboards/blitz/scores/bulk", {"entries": [{"player_id": p, "score": s} for p, s in SCORES.items()]}
    )
    assert bulk.status_code == 200 and bulk.json()["accepted"] == len(SCORES), bulk.text
    assert api.post("/leaderboards/blitz/periods/tournament/close").status_code == 409  # still open
    stack.settle()

    clock.move(stack, to=end + timedelta(milliseconds=50))  # the tournament is over
    ended = time.monotonic()
    late = api.post("/leaderboards/blitz/scores", {"player_id": "late", "score": 99})
    assert late.status_code == 409 and "has ended" in late.json()["error"]
    assert api.get("/leaderboards/blitz/players/late").status_code == 404  # nothing written
    me = api.get("/leaderboards/blitz/players/p00?rank_mode=competition").json()
    assert me["rank"] == 1 + sum(s > SCORES["p00"] for s in SCORES.values())
    assert me["tier"] == "bronze"
    assert api.get("/leaderboards/blitz/top?rank_mode=dense").status_code == 400

    while True:
        summary = api.get("/leaderboards/blitz/periods/tournament").json()
        if summary["status"] == "closed":
            break
        assert time.monotonic() - ended < CLOSING_DELAY, f"not closed within {CLOSING_DELAY} s"
        time.sleep(0.2)
    closed_at = datetime.fromisoformat(summary["closed_at"].replace("Z", "+00:00"))
    assert end <= closed_at <= end + timedelta(seconds=CLOSING_DELAY)

    top, total, cutoffs, rewards = brute_force()
    assert summary["top"] == top
    assert summary["total_players"] == total
    assert summary["tier_cutoffs"] == cutoffs
    assert summary["rewards"] == rewards
    assert (summary["starts_at"], summary["ends_at"]) == (iso(start), iso(end))

    again = api.post("/leaderboards/blitz/periods/tournament/close")
    assert (again.status_code, again.json()) == (200, summary)  # idempotent
    listing = api.get("/leaderboards/blitz/periods").json()
    assert [(p["period_id"], p["status"], p["total_players"]) for p in listing["periods"]] == [
        ("tournament", "closed", total)
    ]
    # the final top went into the append-only archive, and the event once (the scheduled closing and the close call
    # above both found the summary; the sending is claimed on it)
    snapshots = stack.ddb.query(
        TableName=_snapshots_table(stack),
        KeyConditionExpression="leaderboard_id = :b",
        ExpressionAttributeValues={":b": {"S": summary["leaderboard_id"]}},  # blitz.<generation>#tournament
    )["Items"]
    deserialize = boto3.dynamodb.types.TypeDeserializer().deserialize
    frozen = [
        [{k: int(v) if k in ("rank", "score") else v for k, v in e.items()} for e in deserialize(s["entries"])]
        for s in snapshots
    ]
    assert frozen == [top]
    sent = [e for e in stack.events() if e["detail"]["board_id"] == "blitz"]
    assert len(sent) == 1
    assert {json.dumps((e["source"], e["detail-type"], e["detail"]), sort_keys=True) for e in sent} == {
        json.dumps(("leaderboard", "Leaderboard Period Closed", summary), sort_keys=True)
    }


def test_closings_racing_each_other_send_one_event(api, stack):
    """Four close calls at the moment a tournament ends, beside the scheduled closing: one summary, one event."""
    now = stack.clock.now()
    end = now + timedelta(seconds=2)
    body = {"board_id": "race", "starts_at": iso(now - timedelta(seconds=1)), "ends_at": iso(end)}
    assert api.post("/leaderboards", body).status_code == 201
    assert api.post("/leaderboards/race/scores", {"player_id": "ada", "score": 10}).status_code == 200
    stack.settle()
    clock.move(stack, to=end + timedelta(milliseconds=50))  # the tournament is over
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: api.post("/leaderboards/race/periods/tournament/close"), range(4)))
    assert {a.status_code for a in answers} == {200}, [a.text for a in answers]
    assert all(a.json() == answers[0].json() for a in answers)
    clock.run_schedules(stack)  # the scheduled closing has run too (after any run under way), senders finished
    assert len([e for e in stack.events() if e["detail"]["board_id"] == "race"]) == 1


def _snapshots_table(stack) -> str:
    return next(s.local_name for s in stack.specs if s.create_args["KeySchema"][0]["AttributeName"] == "leaderboard_id")


def test_closing_an_open_period_is_409_and_changes_nothing(api):
    assert api.post("/leaderboards", {"board_id": "daily-only", "periods": ["daily"]}).status_code == 201
    r = api.post("/leaderboards/daily-only/periods/daily/close")
    assert r.status_code == 409 and "is open until" in r.json()["error"]
    period = api.get("/leaderboards/daily-only/periods/daily").json()
    assert period["status"] == "open"
    # admin only: the game key is of the wrong class on admin routes (403)
    assert api.post("/leaderboards/daily-only/periods/daily/close", key=api.key).status_code == 403
