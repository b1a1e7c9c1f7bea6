"""Plausibility rules and the quarantine through the handlers (moto): a rule rejects (422) or holds back (202) as
declared; a held score is on no list, rank or total and shows as pending to its player (their token) and in the
queue; approve puts it where it would have gone at its submission time (ranks checked against a brute-force oracle),
reject leaves no trace; a decided submission answers 404."""

from __future__ import annotations

import json
import random

import pytest

from cdk_leaderboard_lambda.shared import schema
from local import invocation
from tests.support.lambda_api import call, create_board, run_submit, scan, submit, top
from tests.support.player_tokens import bearer

RULES = {"max_score": {"value": 1000, "action": "quarantine"}, "max_improvement": {"value": 2, "action": "reject"}}


def start_run(board: str, player: str) -> dict:
    token = call("POST", f"/players/{player}/tokens", body={}).body["token"]
    reply = call("POST", f"/leaderboards/{board}/runs", headers=bearer(token))
    assert reply.status == 201, reply.body
    return reply.body


def pending_rows(board: str) -> list[dict]:
    reply = call("GET", f"/leaderboards/{board}/pending")
    assert reply.status == 200, reply.body
    return reply.body["pending"]


def entries_of(ddb) -> list[dict]:
    table = invocation.settings().scores_table
    return [i for i in scan(ddb, table) if not i["player_id"]["S"].startswith("#")]


def ranked(board: str) -> list[tuple[str, int]]:
    return [(e["player_id"], e["score"]) for e in top(board).body["entries"]]


def test_a_rule_rejects_or_holds_back_as_declared_and_approve_puts_the_score_in_its_place(ddb, clock, settle):
    assert create_board("q", rules=RULES).status == 201
    assert call("GET", "/leaderboards/q/pending").body["rules"] == RULES
    assert submit("q", "ada", 500).status == 200
    assert submit("q", "bob", 400).status == 200
    assert submit("q", "ada", 999).status == 200  # below 2 x ada's 500: allowed
    too_much = submit("q", "bob", 801)  # more than 2 x bob's 400
    assert too_much.status == 422 and too_much.body["rule"] == "max_improvement", too_much.body
    clock.advance(1)
    held = submit("q", "cy", 5000, evidence={"replay": "s3://replays/1"})
    assert held.status == 202 and held.body["status"] == "pending" and held.body["rule"] == "max_score", held.body
    pending_id = held.body["pending_id"]
    settle()
    assert ranked("q") == [("ada", 999), ("bob", 400)]
    assert call("GET", "/leaderboards/q/players/cy").status == 404
    token = call("POST", "/players/cy/tokens", body={}).body["token"]
    own = call("GET", "/players/cy", headers=bearer(token)).body
    assert own["pending"] == [
        {
            "board_id": "q",
            "pending_id": pending_id,
            "score": 5000,
            "rule": "max_score",
            "submitted_at": own["pending"][0]["submitted_at"],
        }
    ]
    [row] = pending_rows("q")
    assert row["player_id"] == "cy" and row["evidence"] == {"replay": "s3://replays/1"} and "run_id" not in row
    clock.advance(5)
    approved = call("POST", f"/leaderboards/q/pending/{pending_id}/approve")
    assert approved.status == 200 and approved.body["status"] == "approved", approved.body
    settle()
    assert ranked("q") == [("cy", 5000), ("ada", 999), ("bob", 400)]
    assert call("GET", "/leaderboards/q/players/cy").body["rank"] == 1
    assert pending_rows("q") == []
    again = call("POST", f"/leaderboards/q/pending/{pending_id}/approve")
    assert again.status == 404 and call("POST", f"/leaderboards/q/pending/{pending_id}/reject").status == 404


def test_reject_leaves_no_trace(ddb, clock, settle):
    assert create_board("q", rules={"max_score": {"value": 10, "action": "quarantine"}}).status == 201
    assert submit("q", "ada", 5).status == 200
    settle()
    before = entries_of(ddb)
    table = invocation.settings().scores_table
    items_before = scan(ddb, table)
    held = submit("q", "bob", 50)
    assert held.status == 202
    assert call("POST", f"/leaderboards/q/pending/{held.body['pending_id']}/reject").body["status"] == "rejected"
    settle()
    assert entries_of(ddb) == before
    # only the rate counters' and bookkeeping items may differ; no pending item or pointer stays
    left = [i for i in scan(ddb, table) if i not in items_before]
    assert not [i for i in left if i["player_id"]["S"].startswith("#pending")], left


def test_run_rules_use_the_server_clock_and_are_skipped_without_a_run(ddb, clock, settle):
    rules = {
        "min_run_seconds": {"value": 30, "action": "reject"},
        "max_score_per_second": {"value": 10, "action": "quarantine"},
    }
    assert create_board("c", submissions="client", rules=rules).status == 201
    run = start_run("c", "ada")
    clock.advance(29.999)
    early = run_submit("c", "ada", 1, run)
    assert early.status == 422 and early.body["rule"] == "min_run_seconds"
    run = start_run("c", "ada")
    clock.advance(40)
    fast = run_submit("c", "ada", 401, run, evidence={"inputs": [1, 2]})
    assert fast.status == 202 and fast.body["rule"] == "max_score_per_second"
    [row] = pending_rows("c")
    assert row["run_id"] == run["run_id"] and row["evidence"] == {"inputs": [1, 2]}
    run = start_run("c", "ada")
    clock.advance(40)
    assert run_submit("c", "ada", 400, run).status == 200  # 400 = 10/s x 40 s
    assert submit("c", "bob", 10**6).status == 200  # the game key: no run, so neither run rule applies


@pytest.mark.parametrize(
    ("rules", "words"),
    [
        ({"max_scor": {"value": 1, "action": "reject"}}, "unknown rule"),
        ({"max_score": {"value": 1, "action": "drop"}}, "action must be one of"),
        ({"max_score": {"value": 1.5, "action": "reject"}}, "an integer score"),
        ({"max_improvement": {"value": 0.5, "action": "reject"}}, "a factor"),
        ({"min_run_seconds": {"value": 4000, "action": "reject"}}, "a run's lifetime"),
        ({"max_score": {"value": 1}}, "{value, action}"),
        ([], "must be an object"),
    ],
)
def test_bad_rule_declarations_are_refused_with_what_is_wrong(ddb, rules, words):
    reply = create_board("bad", rules=rules)
    assert reply.status == 400 and words in reply.body["error"], reply.body
    assert call("GET", "/leaderboards/bad").status == 404


def test_an_admin_changes_the_rules_and_the_submission_mode(ddb):
    assert create_board("p").status == 201
    changed = call("PATCH", "/leaderboards/p", body={"rules": {"max_score": {"value": 7, "action": "reject"}}})
    assert changed.status == 200 and changed.body["rules"] == {"max_score": {"value": 7, "action": "reject"}}
    assert submit("p", "ada", 8).status == 422
    assert call("PATCH", "/leaderboards/p", body={"submissions": "client", "rules": {}}).body["submissions"] == "client"
    assert submit("p", "ada", 8).status == 200
    assert call("PATCH", "/leaderboards/p", body={"name": "x"}).status == 400
    assert call("PATCH", "/leaderboards/global", body={"rules": {}}).status == 400
    assert call("PATCH", "/leaderboards/none", body={"rules": {}}).status == 404
    assert json.dumps(call("GET", "/leaderboards/p/pending").body["rules"]) == "{}"


def _oracle(order: str, submitted: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Keep-best applied in submission order, ties by who reached the score first."""
    best: dict[str, tuple[int, int]] = {}
    for i, (player, score) in enumerate(submitted):
        old = best.get(player)
        if old is None or (score > old[0] if order == "desc" else score < old[0]):
            best[player] = (score, i)
    sign = -1 if order == "desc" else 1
    return [(p, best[p][0]) for p in sorted(best, key=lambda p: (sign * best[p][0], best[p][1], p))]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize(("order", "shards"), [("desc", 1), ("asc", 3)])
def test_approved_scores_take_the_place_of_their_submission_time_against_a_brute_force_oracle(
    in_memory, clock, settle, seed, order, shards
):
    """Random scores, those past the rule held back; approved later in random order, the board is what applying
    every submission at its own time gives: the same order, ranks and total (ties by submission time). On the
    in-memory stores."""
    rng = random.Random(seed)
    limit = 50 if order == "desc" else 10  # desc: above 50 is held; asc: below 10 is held
    rules = {"max_score": {"value": limit, "action": "quarantine"}}
    assert create_board("o", order=order, shards=shards, rules=rules).status == 201
    submitted, held = [], []
    for _ in range(24):
        player, score = f"p{rng.randrange(6)}", rng.randrange(0, 61, 5)  # few values: many ties
        reply = submit("o", player, score)
        assert reply.status in (200, 202), reply.body
        if reply.status == 202:
            held.append(reply.body["pending_id"])
        submitted.append((player, score))
        clock.advance(0.001 * rng.randrange(1, 3))
    settle()
    visible = [(pl, sc) for pl, sc in submitted if (sc <= limit if order == "desc" else sc >= limit)]
    assert ranked("o") == _oracle(order, visible)
    assert len(pending_rows("o")) == len(held) and held
    rng.shuffle(held)
    for pending_id in held:
        clock.advance(1)
        assert call("POST", f"/leaderboards/o/pending/{pending_id}/approve").status == 200
    settle()
    expected = _oracle(order, submitted)
    assert ranked("o") == expected
    for rank, (player, score) in enumerate(expected, start=1):
        mine = call("GET", f"/leaderboards/o/players/{player}").body
        assert (mine["rank"], mine["score"], mine["total_players"]) == (rank, score, len(expected))
    assert pending_rows("o") == []


def test_the_pending_event_carries_the_runs_seed_and_the_evidence(ddb, clock, monkeypatch, reconfigure, tmp_path):
    monkeypatch.setenv("LOCAL_EVENTS_FILE", str(tmp_path / "events.jsonl"))
    reconfigure()
    rules = {"max_score": {"value": 10, "action": "quarantine"}}
    assert create_board("ev", submissions="client", rules=rules).status == 201
    run = start_run("ev", "ada")
    held = run_submit("ev", "ada", 11, run, evidence={"replay": "r-1"})
    assert held.status == 202
    [event] = [json.loads(line) for line in (tmp_path / "events.jsonl").read_text().splitlines()]
    assert (event["source"], event["detail-type"]) == ("leaderboard", "Leaderboard Score Pending")
    assert event["detail"] == {
        "board_id": "ev",
        "pending_id": held.body["pending_id"],
        "player_id": "ada",
        "score": 11,
        "rule": "max_score",
        "submitted_at": event["detail"]["submitted_at"],
        "run_id": run["run_id"],
        "seed": run["seed"],
        "evidence": {"replay": "r-1"},
    }


def test_an_erasure_removes_the_players_pending_submissions_and_runs(ddb, clock):
    assert (
        create_board("er", submissions="client", rules={"max_score": {"value": 10, "action": "quarantine"}}).status
        == 201
    )
    start_run("er", "ada")
    assert submit("er", "ada", 11).status == 202
    assert submit("er", "bob", 12).status == 202
    table = invocation.settings().scores_table
    names = lambda: {i["player_id"]["S"].split("#")[1] for i in scan(ddb, table) if i["player_id"]["S"].startswith("#")}  # noqa: E731
    assert {"runs", "pending", "pending-of"} <= names()
    clock.advance(60)
    while call("DELETE", "/players/ada").status == 202:
        clock.advance(60)
    assert [r["player_id"] for r in pending_rows("er")] == ["bob"]
    left = [i for i in scan(ddb, table) if i["player_id"]["S"].startswith(("#runs#", "#pending-of#"))]
    assert len(left) == 1  # bob's pointer; ada's run and pointer are gone


def test_deleting_a_board_deletes_its_pending_submissions(ddb, clock):
    assert create_board("del", rules={"max_score": {"value": 1, "action": "quarantine"}}).status == 201
    assert submit("del", "ada", 5).status == 202
    assert call("DELETE", "/leaderboards/del").status == 200
    table = invocation.settings().scores_table
    assert [i for i in scan(ddb, table) if i["player_id"]["S"].startswith(("#pending#", "#pending-of#"))] == []


def _conflicting_once(ddb, monkeypatch) -> list[list[dict]]:
    """Make the client's next TransactWriteItems that touches a pending submission be cancelled as DynamoDB cancels
    one while another transaction is in progress on one of its items: botocore's own TransactionCanceledException
    (a ClientError) with the response shape DynamoDB gives, one reason per action and TransactionConflict for the
    pending item (DynamoDB Local serializes transactions, moto never conflicts). Later calls go through to moto.
    Returns the cancelled calls' actions."""
    real, cancelled = ddb.transact_write_items, []

    def transact_write_items(**kwargs):
        actions = kwargs["TransactItems"]
        touched = [next(iter(a.values()))["Key" if "Delete" in a or "Update" in a else "Item"] for a in actions]
        on_pending = [k[schema.SCORES_PARTITION_KEY]["S"].startswith("#pending#") for k in touched]
        if cancelled or not any(on_pending):
            return real(**kwargs)
        cancelled.append(actions)
        conflict = {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}
        reasons = [conflict if hit else {"Code": "None"} for hit in on_pending]
        codes = ", ".join(r["Code"] for r in reasons)
        error = {
            "Error": {
                "Code": "TransactionCanceledException",
                "Message": f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]",
            },
            "CancellationReasons": reasons,
            "ResponseMetadata": {"HTTPStatusCode": 400},
        }
        raise ddb.exceptions.TransactionCanceledException(error, "TransactWriteItems")

    monkeypatch.setattr(ddb, "transact_write_items", transact_write_items)
    return cancelled


@pytest.mark.parametrize("periods", [["all-time"], ["all-time", "daily"]])
def test_a_cancelled_approval_answers_503_applies_nothing_and_its_retry_applies_once(
    ddb, clock, settle, monkeypatch, periods
):
    rules = {"max_score": {"value": 100, "action": "quarantine"}}
    assert create_board("tc", periods=periods, rules=rules).status == 201
    assert submit("tc", "ada", 50).status == 200
    held = submit("tc", "bob", 500, player_name="Bob")
    assert held.status == 202
    settle()
    table = invocation.settings().scores_table
    before = scan(ddb, table)
    cancelled = _conflicting_once(ddb, monkeypatch)
    busy = call("POST", f"/leaderboards/tc/pending/{held.body['pending_id']}/approve")
    assert busy.status == 503, busy.body
    assert busy.headers["Retry-After"] == "1" and "Retry-After" in busy.headers["Access-Control-Expose-Headers"]
    assert set(busy.body) == {"error"} and "retry" in busy.body["error"], busy.body
    assert len(cancelled) == 1
    assert scan(ddb, table) == before  # nothing applied: no entry of bob's, the submission still pending, unclaimed
    assert [r["pending_id"] for r in pending_rows("tc")] == [held.body["pending_id"]]
    again = call("POST", f"/leaderboards/tc/pending/{held.body['pending_id']}/approve")
    assert again.status == 200 and again.body["status"] == "approved", again.body
    settle()
    assert ranked("tc") == [("bob", 500), ("ada", 50)]
    assert call("GET", "/leaderboards/tc/players/bob").body["score"] == 500
    assert pending_rows("tc") == [] and len(cancelled) == 1
    assert call("POST", f"/leaderboards/tc/pending/{held.body['pending_id']}/approve").status == 404


def test_a_cancelled_rejection_answers_503_changes_nothing_and_its_retry_rejects_once(ddb, clock, monkeypatch):
    assert create_board("tc", rules={"max_score": {"value": 100, "action": "quarantine"}}).status == 201
    held = submit("tc", "bob", 500)
    assert held.status == 202
    table = invocation.settings().scores_table
    before = scan(ddb, table)
    cancelled = _conflicting_once(ddb, monkeypatch)
    busy = call("POST", f"/leaderboards/tc/pending/{held.body['pending_id']}/reject")
    assert busy.status == 503 and busy.headers["Retry-After"] == "1", busy.body
    assert len(cancelled) == 1 and scan(ddb, table) == before
    token = call("POST", "/players/bob/tokens", body={}).body["token"]
    assert call("GET", "/players/bob", headers=bearer(token)).body["pending"][0]["score"] == 500
    again = call("POST", f"/leaderboards/tc/pending/{held.body['pending_id']}/reject")
    assert again.status == 200 and again.body["status"] == "rejected", again.body
    assert pending_rows("tc") == []
    assert call("POST", f"/leaderboards/tc/pending/{held.body['pending_id']}/reject").status == 404


def test_a_submission_whose_hold_is_cancelled_answers_503_and_holds_nothing(ddb, clock, monkeypatch):
    assert create_board("tc", rules={"max_score": {"value": 100, "action": "quarantine"}}).status == 201
    cancelled = _conflicting_once(ddb, monkeypatch)
    busy = submit("tc", "bob", 500)
    assert busy.status == 503 and busy.headers["Retry-After"] == "1", busy.body
    assert len(cancelled) == 1 and pending_rows("tc") == []
    held = submit("tc", "bob", 500)
    assert held.status == 202 and [r["pending_id"] for r in pending_rows("tc")] == [held.body["pending_id"]]


def test_a_run_whose_held_score_is_cancelled_stays_unused_and_the_limit_uncounted(ddb, clock, monkeypatch):
    rules = {"max_score": {"value": 100, "action": "quarantine"}}
    board = {"submissions": "client", "rules": rules, "max_submissions_per_minute": 2}
    assert create_board("tr", **board).status == 201
    run = start_run("tr", "bob")  # the run start counts: 1 of 2
    cancelled = _conflicting_once(ddb, monkeypatch)
    busy = run_submit("tr", "bob", 500, run)
    assert busy.status == 503 and busy.headers["Retry-After"] == "1" and len(cancelled) == 1, busy.body
    held = run_submit("tr", "bob", 500, run)  # the same run, and 2 of 2
    assert held.status == 202 and held.body["status"] == "pending", held.body
    assert [(r["pending_id"], r["run_id"]) for r in pending_rows("tr")] == [(held.body["pending_id"], run["run_id"])]
