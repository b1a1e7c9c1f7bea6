"""What hiding a player removes and what it cannot (docs/API.md "Hiding a player"): every list, rank,
total, snapshot and closing made from then on leaves them out; a snapshot taken and a period closed before the
hide keep them as they were, signed summary and all (they record what was shown then; only erasure rewrites
them). The log records the hide as its own record, so receipts and replays after it leave the player out."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog
from cdk_leaderboard_lambda.operations import submissions as scores_in
from local import invocation
from tests.support.lambda_api import call

NOW = datetime.now(UTC)
YESTERDAY = NOW - timedelta(days=1)


def test_a_snapshot_taken_before_a_hide_keeps_the_player_and_one_taken_after_does_not(in_memory, settle):
    for player, score in (("ada", 10), ("bob", 20)):
        assert call("POST", "/scores", body={"player_id": player, "score": score}).status == 200
    settle()
    before = call("POST", "/snapshot", body={})
    assert before.status == 201 and [e["player_id"] for e in before.body["entries"]] == ["bob", "ada"]
    assert call("PUT", "/leaderboards/global/players/bob/hidden").status == 200
    settle()
    after = call("POST", "/snapshot", body={})
    assert [e["player_id"] for e in after.body["entries"]] == ["ada"]
    listed = call("GET", "/snapshots", query={"period": "all-time"}).body["snapshots"]
    assert {s["snapshot_id"]: [e["player_id"] for e in s["entries"]] for s in listed} == {
        after.body["snapshot_id"]: ["ada"],
        before.body["snapshot_id"]: ["bob", "ada"],  # frozen: a record of what was shown then
    }


def test_a_period_closed_before_a_hide_keeps_its_signed_summary(in_memory, settle):
    assert call("POST", "/leaderboards", body={"board_id": "hd", "periods": ["daily"]}).status == 201
    config = board_catalog.get_board(invocation.runtime(), "hd")
    scores_in.submit(invocation.runtime(), config, Submission("ada", "Ada", 10), YESTERDAY)
    scores_in.submit(invocation.runtime(), config, Submission("bob", "Bob", 20), YESTERDAY)
    settle()
    period = f"daily-{YESTERDAY.date().isoformat()}"
    closed = call("POST", f"/leaderboards/hd/periods/{period}/close")
    assert closed.status == 200 and [e["player_id"] for e in closed.body["top"]] == ["bob", "ada"]
    assert call("PUT", "/leaderboards/hd/players/bob/hidden").status == 200
    settle()
    assert call("GET", f"/leaderboards/hd/periods/{period}").body == closed.body  # signature included
