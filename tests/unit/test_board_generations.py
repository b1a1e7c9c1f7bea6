"""Deleted boards keep their evidence, and a board created again under a deleted one's id is a new board for every
piece of it (docs/PROVING.md, "Deleted boards and generations"), with every store in memory: the log, closing
summary and receipts of a deleted tournament still served (?generation=) and verified by leaderboard_verify from
files; the board created again, with the other order, starts new logs, summaries and runs; erasure reaches the
archive; the archive ends with its retention."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from leaderboard_verify import cli
from tests.support.lambda_api import call, create_board, own_receipt, run_submit, submit
from tests.support.player_tokens import bearer

T0 = datetime(2026, 12, 2, 3, 0, 0, tzinfo=UTC)
STARTS, ENDS = "2026-12-02T02:00:00.000Z", "2026-12-02T05:00:00.000Z"
AFTER_END = datetime(2026, 12, 2, 5, 30, 0, tzinfo=UTC)  # past the log's settling too: nothing is held back


def log(board: str, generation: str | None = None) -> list[dict]:
    query = {"limit": "100", **({"generation": generation} if generation else {})}
    reply = call("GET", f"/leaderboards/{board}/periods/tournament/log", query=query)
    assert reply.status == 200, reply.body
    assert "next_cursor" not in reply.body
    return reply.body["records"]


def receipt(board: str, player: str) -> str:
    reply = own_receipt(board, player)
    assert reply.status == 200, reply.body
    return reply.body["receipt"]


def close(board: str) -> dict:
    reply = call("POST", f"/leaderboards/{board}/periods/tournament/close")
    assert reply.status == 200, reply.body
    assert "signature" in reply.body, reply.body
    return reply.body


def verified(tmp: Path, records: list[dict], summary: dict | None, receipts: list[str], order: str) -> str:
    """leaderboard_verify's verdict over files; asserts it passed."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "log.json").write_text(json.dumps({"records": records}))
    (tmp / "jwks.json").write_text(json.dumps(call("GET", "/.well-known/jwks.json").body))
    argv = ["--log", str(tmp / "log.json"), "--keys", str(tmp / "jwks.json"), "--order", order]
    if summary is not None:
        (tmp / "summary.json").write_text(json.dumps(summary))
        argv += ["--summary", str(tmp / "summary.json")]
    for token in receipts:
        argv += ["--receipt", token]
    out = io.StringIO()
    assert cli.run(argv, out) == 0, out.getvalue()
    return out.getvalue()


def tournament(order: str) -> dict:
    reply = create_board("cup", order=order, starts_at=STARTS, ends_at=ENDS, submissions="client")
    assert reply.status == 201, reply.body
    return reply.body


@pytest.fixture
def deleted_cup(in_memory, clock, settle):
    """A closed tournament (desc) with a hidden player, a receipt, then deleted: (generation, log, summary,
    receipt)."""
    clock.set(T0)
    first = tournament("desc")
    for player, score in (("ada", 10), ("bob", 20), ("cy", 30)):
        assert submit("cup", player, score).status == 200
    assert call("PUT", "/leaderboards/cup/players/cy/hidden").status == 200
    settle()
    kept = receipt("cup", "ada")
    clock.set(AFTER_END)
    summary = close("cup")
    records = log("cup")
    deletion = call("DELETE", "/leaderboards/cup")
    assert deletion.status == 200 and deletion.body["status"] == "deleted", deletion.body
    assert deletion.body["archived"]["generation"] == first["generation"]
    settle()  # anything the purge changed reaches the stream after the deletion
    return first["generation"], records, summary, kept


def test_a_deleted_boards_log_summary_and_receipts_stay_served_and_verify(deleted_cup, tmp_path):
    generation, records, summary, kept = deleted_cup
    missing = call("GET", "/leaderboards/cup")
    assert missing.status == 404
    assert [a["generation"] for a in missing.body["archived"]] == [generation]
    assert missing.body["archived"][0]["periods_url"] == f"/leaderboards/cup/periods?generation={generation}"
    listed = call("GET", "/leaderboards/cup/periods", query={"generation": generation})
    assert listed.status == 200, listed.body
    assert [(p["period_id"], p["status"]) for p in listed.body["periods"]] == [("tournament", "closed")]
    served = call("GET", "/leaderboards/cup/periods/tournament", query={"generation": generation})
    assert served.status == 200 and served.body == summary
    archived_log = log("cup", generation)
    # Sealed: the deletion appended nothing to the closed tournament's log, whose replay ends where the summary does.
    assert archived_log == records
    assert [r["kind"] for r in records] == ["score", "score", "score", "hide"]
    assert archived_log[-1]["seq"] == summary["log_head"]["seq"]
    report = verified(tmp_path, archived_log, served.body, [kept], "desc")
    assert "NOT VERIFIED" not in report
    assert call("GET", "/leaderboards/cup/periods/tournament/log").status == 404  # no current board


def test_a_board_created_again_is_a_new_board_for_every_piece_of_evidence(deleted_cup, clock, settle, tmp_path):
    generation, records, summary, kept = deleted_cup
    clock.set(AFTER_END + timedelta(days=1))
    again = call(
        "POST",
        "/leaderboards",
        body={
            "board_id": "cup",
            "order": "asc",
            "starts_at": "2026-12-03T05:00:00Z",
            "ends_at": ENDS.replace("02T", "04T"),
        },
    )
    assert again.status == 201, again.body
    assert again.body["generation"] != generation
    assert log("cup") == []  # a new log: not the deleted board's, which held a hide and three scores
    clock.set(datetime(2026, 12, 3, 6, 0, tzinfo=UTC))
    for player, score in (("cy", 40), ("dan", 25)):
        assert submit("cup", player, score).status == 200
    settle()
    fresh = log("cup")
    assert [(r["seq"], r["kind"]) for r in fresh] == [(1, "score"), (2, "score")]
    assert fresh[0]["prev_hash"] == "0" * 64
    assert {r["player"] for r in fresh}.isdisjoint({r["player"] for r in records})  # cy's commitment is new
    # cy, hidden on the deleted board, is not hidden here: the log and the server agree.
    cy = receipt("cup", "cy")
    assert own_receipt("cup", "bob").status == 404  # bob never played this board
    clock.set(datetime(2026, 12, 4, 5, 30, tzinfo=UTC))
    second = close("cup")
    assert second["generation"] == again.body["generation"] and second["log_head"]["seq"] == 2
    assert [(e["player_id"], e["rank"]) for e in second["top"]] == [("dan", 1), ("cy", 2)]
    verified(tmp_path / "new", fresh, second, [cy], "asc")
    # The deleted generation's evidence is unchanged, and still verifies on its own.
    records = log("cup", generation)
    assert [r["kind"] for r in records] == ["score", "score", "score", "hide"]
    old = call("GET", "/leaderboards/cup/periods/tournament", query={"generation": generation}).body
    assert old == summary
    verified(tmp_path / "old", records, old, [kept], "desc")
    mixed = io.StringIO()  # and the two do not mix: the old summary against the new log fails
    (tmp_path / "mixed.json").write_text(json.dumps(old))
    (tmp_path / "newlog.json").write_text(json.dumps({"records": fresh}))
    argv = ["--log", str(tmp_path / "newlog.json"), "--summary", str(tmp_path / "mixed.json")]
    assert cli.run([*argv, "--keys", str(tmp_path / "old" / "jwks.json"), "--order", "desc"], mixed) == 1


def test_a_run_of_the_deleted_board_is_refused_on_the_board_created_again(in_memory, clock, settle):
    clock.set(T0)
    tournament("desc")
    token = call("POST", "/players/ada/tokens", body={}).body["token"]
    run = call("POST", "/leaderboards/cup/runs", headers=bearer(token))
    assert run.status == 201, run.body
    assert call("DELETE", "/leaderboards/cup").status == 200
    tournament("asc")
    refused = run_submit("cup", "ada", 5, run.body)
    assert refused.status == 403, refused.body
    settle()
    assert log("cup") == []


def test_erasure_reaches_a_deleted_boards_summary_and_it_still_verifies(deleted_cup, clock, settle, tmp_path):
    from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS

    generation, records, summary, _ = deleted_cup
    assert any(e["player_id"] == "bob" for e in summary["top"])
    assert call("DELETE", "/players/bob").status == 202
    clock.advance(FENCE_SECONDS)
    assert call("DELETE", "/players/bob").status == 200
    settle()
    after = call("GET", "/leaderboards/cup/periods/tournament", query={"generation": generation}).body
    assert "bob" not in json.dumps(after)
    assert [e["player_id"] for e in after["top"]] == ["erased", "ada"]
    verified(tmp_path, log("cup", generation), after, [], "desc")


def test_the_archive_ends_with_its_retention(deleted_cup, clock):
    from local import invocation

    generation, *_ = deleted_cup
    clock.advance(invocation.settings().archive_retention_days * 86400 + 60)
    gone = call("GET", "/leaderboards/cup/periods/tournament/log", query={"generation": generation})
    assert gone.status == 404 and "retention" in gone.body["error"]
    assert "archived" not in call("GET", "/leaderboards/cup").body


def test_an_instance_holding_the_deleted_boards_config_writes_nothing_on_the_new_one(in_memory, clock, settle):
    """Another function instance may cache a board's config for BOARD_CACHE_SECONDS: a submission through the
    deleted generation's config is refused (409) rather than written into the deleted board's evidence."""
    from cdk_leaderboard_lambda.domain import score_writes
    from cdk_leaderboard_lambda.operations import board_catalog, score_submission
    from cdk_leaderboard_lambda.shared.errors import Conflict
    from local import invocation

    clock.set(T0)
    tournament("desc")
    stale = board_catalog.get_board(invocation.runtime(), "cup")
    assert call("DELETE", "/leaderboards/cup").status == 200
    tournament("asc")
    with pytest.raises(Conflict, match="deleted and created again"):
        writer = score_submission.Writer.of(invocation.runtime())
        score_submission.submit(writer, stale, score_writes.Submission("ada", "ada", 5), invocation.now())
    settle()
    assert log("cup", stale.generation) == []  # the deleted board's log holds nothing of it
    assert submit("cup", "ada", 5).status == 200  # the new generation's config, read again


def test_a_generation_that_is_malformed_or_not_the_boards_is_refused(in_memory, clock):
    clock.set(T0)
    current = tournament("desc")["generation"]
    for bad in ("", "ABCDEFGH", "abc", "../x", "0" * 9):
        reply = call("GET", "/leaderboards/cup/periods/tournament/log", query={"generation": bad})
        assert reply.status == 400 and "generation" in reply.body["error"], (bad, reply.body)
    other = "aaaaaaaa" if current != "aaaaaaaa" else "bbbbbbbb"
    for path in ("/leaderboards/cup/periods", "/leaderboards/cup/periods/tournament/log"):
        assert call("GET", path, query={"generation": other}).status == 404
    assert call("GET", "/leaderboards/cup/periods", query={"generation": current}).status == 200
    assert call("GET", "/leaderboards/global/periods/all-time/log", query={"generation": "0"}).status == 200
