"""Closed means closed, on the in-memory stores (and moto where a day's approval meets its closing)
through the handlers: after a period's ends_at nothing changes its standings. A score held before the end and
approved after it is written only to the periods still open (all-time, the week) and refused where none is (a
tournament); hiding, showing and removing a player leave an ended period as it closed; a closed period's receipts
are computed at its summary's log_head, so `/top`, the receipts and the signed summary agree, and the verifier
accepts them together; an ended period not closed yet gives no receipt."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cdk_leaderboard_lambda.data.memory_entries import MemoryEntries
from cdk_leaderboard_lambda.domain import boards, periods
from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS
from cdk_leaderboard_lambda.shared.clock import iso
from leaderboard_verify.cli import run as verify
from local import invocation
from tests.support import jws
from tests.support.lambda_api import call, create_board, own_receipt, submit, top

DAY = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)  # a Monday: the next day is in the same ISO week
DAILY, MONTH = "daily-2026-11-30", "monthly-2026-11"  # November's last day
AFTER = datetime(2026, 12, 1, 0, 10, tzinfo=UTC)  # the day and the month have ended, the week and all-time are open
HOLD = {"max_score": {"value": 1000, "action": "quarantine"}}


@pytest.fixture(params=["in_memory", "ddb"])
def stores(request):
    """The in-memory stores, or moto's DynamoDB (an approval's entries and its pending removal in one
    TransactWriteItems, as on AWS)."""
    request.getfixturevalue(request.param)
    return request.param


@pytest.fixture
def day(stores, clock, settle):
    """Board `cup` (every kind of period; scores over 1000 held for review): ada 500 and bob 400 on DAY, and eve's
    5000 held; the stream delivered (the log holds both scores)."""
    assert isinstance(invocation.runtime().entries, MemoryEntries) == (stores == "in_memory")
    clock.set(DAY - timedelta(days=2))
    assert create_board("cup", periods=list(periods.KINDS), rules=HOLD).status == 201
    clock.set(DAY)
    assert submit("cup", "ada", 500).status == 200
    clock.advance(1)
    assert submit("cup", "bob", 400).status == 200
    clock.advance(1)
    held = submit("cup", "eve", 5000)
    assert held.status == 202, held.body
    settle()
    return held.body["pending_id"]


def ranked(board: str, period: str) -> list[tuple[str, int]]:
    reply = top(board, period=period)
    assert reply.status == 200, reply.body
    return [(e["player_id"], e["score"]) for e in reply.body["entries"]]


def close(board: str, period: str) -> dict:
    reply = call("POST", f"/leaderboards/{board}/periods/{period}/close")
    assert reply.status == 200, reply.body
    return reply.body


def receipt(board: str, player: str, period: str) -> tuple[int, dict]:
    reply = own_receipt(board, player, period=period)
    if reply.status != 200:
        return reply.status, reply.body
    return 200, jws.verify(reply.body["receipt"], call("GET", "/.well-known/jwks.json").body) | {
        "token": reply.body["receipt"]
    }


def log_of(board: str, period: str, **extra) -> list[dict]:
    records, cursor = [], None
    while True:
        query = {"limit": 100, **extra, **({"cursor": cursor} if cursor else {})}
        page = call("GET", f"/leaderboards/{board}/periods/{period}/log", query=query).body
        records += page["records"]
        cursor = page.get("next_cursor")
        if not cursor:
            return records


def verified(tmp_path: Path, board: str, period: str, summary: dict, tokens: list[str]) -> list[str]:
    """The verifier's lines on the period's log, its summary and these receipts (files, as a user saves them)."""
    (tmp_path / "log.json").write_text(json.dumps({"records": log_of(board, period)}))
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    (tmp_path / "jwks.json").write_text(json.dumps(call("GET", "/.well-known/jwks.json").body))
    args = ["--log", str(tmp_path / "log.json"), "--summary", str(tmp_path / "summary.json")]
    args += ["--keys", str(tmp_path / "jwks.json")]
    for token in tokens:
        args += ["--receipt", token]
    out = io.StringIO()
    status = verify(args, out)
    lines = out.getvalue().splitlines()
    assert status == 0, lines
    return lines


def test_a_score_approved_after_the_close_changes_only_the_periods_still_open(day, clock, settle, tmp_path):
    """The issue's case: eve's held 5000 approved after the day (and the month) ended. The closed day's `/top`, its
    receipts and its signed summary all name ada first, and the verifier accepts them together; the month too; the
    week and all-time, still open, take the approved score."""
    clock.set(AFTER)
    summary = close("cup", DAILY)
    month = close("cup", MONTH)
    assert [(e["player_id"], e["score"]) for e in summary["top"]] == [("ada", 500), ("bob", 400)]
    approved = call("POST", f"/leaderboards/cup/pending/{day}/approve")
    assert approved.status == 200, approved.body
    settle()
    assert ranked("cup", DAILY) == ranked("cup", MONTH) == [("ada", 500), ("bob", 400)]
    assert approved.body["closed_periods"] == [DAILY, MONTH]
    assert [row["period_id"] for row in approved.body["result"]["periods"]] == ["all-time", "weekly-2026-W49"]
    assert ranked("cup", "all-time")[0] == ranked("cup", "weekly")[0] == ("eve", 5000)
    assert call("GET", f"/leaderboards/cup/periods/{DAILY}").body == summary
    status, ada = receipt("cup", "ada", DAILY)
    assert status == 200, ada
    assert (ada["rank"], ada["score"], ada["total_players"]) == (1, 500, summary["total_players"]) == (1, 500, 2)
    assert (ada["seq"], ada["head_hash"]) == (summary["log_head"]["seq"], summary["log_head"]["hash"])
    status, eve = receipt("cup", "eve", DAILY)
    assert status == 404, eve  # not in the standings the day closed with
    _, bob = receipt("cup", "bob", DAILY)
    lines = verified(tmp_path, "cup", DAILY, summary, [ada["token"], bob["token"]])
    assert lines[-1].startswith("VERIFIED"), lines
    status, first = receipt("cup", "ada", MONTH)
    assert status == 200 and (first["rank"], first["seq"]) == (1, month["log_head"]["seq"]), first
    assert verified(tmp_path, "cup", MONTH, month, [first["token"]])[-1].startswith("VERIFIED")


def test_an_approval_is_refused_when_every_period_it_was_held_for_has_ended(in_memory, clock, settle):
    """A tournament keeps one period: after its end the approval is a 409 that names it, nothing changes and the
    submission stays pending until a reviewer rejects it. A late submission is refused as before."""
    start, end = clock.now() - timedelta(hours=1), clock.now() + timedelta(minutes=10)
    body = {"starts_at": iso(start), "ends_at": iso(end), "rules": HOLD}
    assert create_board("t", **body).status == 201
    assert submit("t", "ada", 500).status == 200
    held = submit("t", "eve", 5000)
    assert held.status == 202, held.body
    settle()
    clock.set(end + timedelta(seconds=1))
    summary = close("t", "tournament")
    refused = call("POST", f"/leaderboards/t/pending/{held.body['pending_id']}/approve")
    assert refused.status == 409 and "tournament" in refused.body["error"], refused.body
    assert "have ended" in refused.body["error"], refused.body
    assert [p["pending_id"] for p in call("GET", "/leaderboards/t/pending").body["pending"]] == [
        held.body["pending_id"]
    ]
    assert submit("t", "bob", 900).status == 409  # a late submission
    settle()
    assert ranked("t", "tournament") == [("ada", 500)]
    assert call("GET", "/leaderboards/t/periods/tournament").body == summary
    rejected = call("POST", f"/leaderboards/t/pending/{held.body['pending_id']}/reject")
    assert rejected.status == 200 and rejected.body["status"] == "rejected", rejected.body


def test_moderation_after_the_close_leaves_the_closed_period_as_it_closed(day, clock, settle):
    """Hide, show and remove after the day ended act on the open periods only: the closed day keeps its entries,
    its log gets no record, and its receipts still say what its summary says."""
    clock.set(AFTER)
    summary = close("cup", DAILY)
    logged = log_of("cup", DAILY)
    hidden = call("PUT", "/leaderboards/cup/players/ada/hidden")
    settle()
    assert ranked("cup", DAILY) == [("ada", 500), ("bob", 400)]
    assert ranked("cup", "all-time") == [("bob", 400)]
    assert hidden.status == 200 and hidden.body["moved_entries"] == 2, hidden.body  # all-time and the week
    assert call("DELETE", "/leaderboards/cup/players/ada/hidden").status == 200
    removed = call("DELETE", "/leaderboards/cup/players/ada")
    assert removed.status == 200 and removed.body["deleted_entries"] == 2, removed.body
    settle()
    assert ranked("cup", DAILY) == [("ada", 500), ("bob", 400)]
    assert ranked("cup", "all-time") == [("bob", 400)]
    assert log_of("cup", DAILY) == logged
    status, ada = receipt("cup", "ada", DAILY)
    assert status == 200 and (ada["rank"], ada["total_players"], ada["seq"]) == (1, 2, summary["log_head"]["seq"])


def test_deleting_the_board_leaves_its_closed_periods_logs_ending_where_their_summaries_do(day, clock, settle):
    """The deletion purges the periods still open (their logs take a remove per entry) and leaves the ended ones as
    they closed: the archived day's and month's logs end at their summaries' heads and replay to their tops."""
    clock.set(AFTER)
    summaries = {period: close("cup", period) for period in (DAILY, MONTH)}
    logged = {period: log_of("cup", period) for period in (DAILY, MONTH, "all-time")}
    generation = call("GET", "/leaderboards/cup").body["generation"]
    deleted = call("DELETE", "/leaderboards/cup")
    assert deleted.status == 200 and deleted.body["status"] == "deleted", deleted.body
    settle()
    for period, summary in summaries.items():
        archived = log_of("cup", period, generation=generation)
        assert archived == logged[period] and archived[-1]["seq"] == summary["log_head"]["seq"], period
        assert [(r["kind"], r["score"]) for r in archived] == [("score", 500), ("score", 400)]
        assert [(e["player_id"], e["score"]) for e in summary["top"]] == [("ada", 500), ("bob", 400)]
    all_time = log_of("cup", "all-time", generation=generation)  # open: purged, and the purge is logged
    assert all_time[: len(logged["all-time"])] == logged["all-time"]
    assert sorted(r["kind"] for r in all_time[len(logged["all-time"]) :]) == ["remove", "remove"]


def test_a_closed_period_s_receipts_stay_at_its_summary_s_head_after_an_erasure(day, clock, settle, tmp_path):
    """An erasure still works after the close (it logs `erase` in the closed day's log and rewrites the summary);
    the other players' receipts stay those of the summary's standings (bob second of two), not of the log's head."""
    clock.set(AFTER)
    close("cup", DAILY)
    erased = call("DELETE", "/players/ada")
    for _ in range(20):  # 202 while the fences stand: the clock moves instead of the test waiting
        if erased.status != 202:
            break
        clock.advance(FENCE_SECONDS + 1)
        erased = call("DELETE", "/players/ada")
    assert erased.status == 200, erased.body
    settle()
    summary = call("GET", f"/leaderboards/cup/periods/{DAILY}").body
    assert "ada" not in json.dumps(summary)
    assert len(log_of("cup", DAILY)) == summary["log_head"]["seq"] + 1  # the erase record, after the head
    status, bob = receipt("cup", "bob", DAILY)
    assert status == 200, bob
    assert (bob["rank"], bob["total_players"], bob["seq"]) == (2, 2, summary["log_head"]["seq"])
    assert receipt("cup", "ada", DAILY)[0] == 404
    lines = verified(tmp_path, "cup", DAILY, summary, [bob["token"]])
    assert lines[-1].startswith("VERIFIED"), lines


def test_an_ended_period_gives_receipts_only_once_it_is_closed(day, clock):
    """Between the end and the closing a receipt would be computed at a head the summary may not share: 409 with
    a retry time; once closed, the summary's standings."""
    clock.set(AFTER)
    status, body = receipt("cup", "ada", DAILY)
    assert status == 409 and "not closed yet" in body["error"] and body["retry_after_seconds"] > 0, body
    assert receipt("cup", "ada", "all-time")[0] == 200  # an open period: as before
    retention = invocation.settings().period_retention_days
    clock.set(AFTER + timedelta(days=retention))  # never closed, and it can no longer be (its entries expired)
    status, body = receipt("cup", "ada", DAILY)
    assert status == 404 and "never closed" in body["error"], body
    clock.set(AFTER)
    summary = close("cup", DAILY)
    status, ada = receipt("cup", "ada", DAILY)
    assert status == 200 and ada["seq"] == summary["log_head"]["seq"], ada


def test_which_periods_have_ended():
    """BoardConfig.ended, what every write above consults: all-time never ends; a day or a tournament from its
    ends_at on (the end itself is outside the period)."""
    at = datetime(2026, 12, 1, tzinfo=UTC)
    daily = boards.BoardConfig("b", "b", periods=(periods.ALL_TIME, periods.DAILY))
    assert daily.ended("daily-2026-11-30", at) and not daily.ended("daily-2026-12-01", at)
    assert not daily.ended("daily-2026-11-30", at - timedelta(milliseconds=1))
    assert not daily.ended("all-time", at)
    cup = boards.BoardConfig("c", "c", periods=(), starts_at="2026-11-01T00:00:00Z", ends_at="2026-12-01T00:00:00Z")
    assert cup.ended("tournament", at) and not cup.ended("tournament", at - timedelta(seconds=1))
