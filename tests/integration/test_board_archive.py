"""Deleted boards keep their evidence, and a board created again under the same id is a new board
(docs/PROVING.md, "Deleted boards and generations"), over HTTP against the local stack: a tournament played (a
hidden player included), receipts taken, closed, then the board deleted; its log, closing summary and receipts still
verify with `python -m leaderboard_verify --url` from the URLs the deleted board's 404 points to. The board is
created again with the same id and the other order: a new log from seq 1, its own summary and receipts, and old and
new evidence both verify, each on its own.

No sleeps for a time boundary: the stack's clock is moved to each tournament's end."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from cdk_leaderboard_lambda.shared.clock import iso
from tests.support import clock
from tests.support.player_tokens import player_token

BOARD = "ar-cup"
LOG_WITHIN_S = 60  # the log's lag on a loaded 2-core machine: returns as soon as every change is in


def verify(*args: str, cwd: Path) -> tuple[int, list[str]]:
    result = subprocess.run(
        [sys.executable, "-m", "leaderboard_verify", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout.splitlines()


def records(api, query: dict | None = None, count: int | None = None) -> list[dict]:
    """The tournament's log (of the current generation, or the one `query` names), once it holds `count` records."""
    deadline = time.monotonic() + LOG_WITHIN_S
    while True:
        reply = api.get(f"/leaderboards/{BOARD}/periods/tournament/log", params={"limit": 100, **(query or {})})
        assert reply.status_code == 200, reply.text
        found = reply.json()["records"]
        if count is None or len(found) >= count:
            assert count is None or len(found) == count, [r["kind"] for r in found]
            return found
        assert time.monotonic() < deadline, f"{len(found)} of {count} records after {LOG_WITHIN_S} s"
        time.sleep(0.2)


def receipt_of(api, player: str) -> str:
    """The player's receipt, fetched with their own token (the game key mints it), once the log has their entry."""
    headers = {"Authorization": f"Bearer {player_token(api, player)}"}
    deadline = time.monotonic() + LOG_WITHIN_S
    while True:
        reply = api.get(
            f"/leaderboards/{BOARD}/players/{player}/receipt", params={"period": "tournament"}, headers=headers
        )
        if reply.status_code == 200:
            return reply.json()["receipt"]
        assert reply.status_code == 409, reply.text
        assert time.monotonic() < deadline, reply.text
        time.sleep(0.2)


def play(stack, api, order: str, scores: dict[str, int], hidden: str | None = None) -> dict:
    """A tournament of BOARD played, its receipts taken and closed: its generation, receipts and summary."""
    now = stack.clock.now()
    body = {"board_id": BOARD, "order": order, "starts_at": iso(now - timedelta(seconds=1))}
    end = now + timedelta(minutes=10)
    created = api.post("/leaderboards", {**body, "ends_at": iso(end)})
    assert created.status_code == 201, created.text
    for player, value in scores.items():
        assert api.post(f"/leaderboards/{BOARD}/scores", {"player_id": player, "score": value}).status_code == 200
    if hidden:
        assert api.put(f"/leaderboards/{BOARD}/players/{hidden}/hidden").status_code == 200
    stack.settle()
    records(api, count=len(scores) + (1 if hidden else 0))
    receipts = {p: receipt_of(api, p) for p in scores if p != hidden}
    clock.move(stack, to=end + timedelta(milliseconds=50))
    closed = api.post(f"/leaderboards/{BOARD}/periods/tournament/close")
    assert closed.status_code == 200 and "signature" in closed.json(), closed.text
    return {"generation": created.json()["generation"], "receipts": receipts, "summary": closed.json()}


def check(stack, played: dict, tmp: Path) -> list[str]:
    """The verifier over the API, as a player or sponsor would run it: the summary from its documented URL (with
    its generation), the receipts kept; the log and keys read by --url. Asserts it passed."""
    tmp.mkdir(exist_ok=True)
    url = f"{stack.api_url}/leaderboards/{BOARD}/periods/tournament?generation={played['generation']}"
    args = ["--url", stack.api_url, "--summary", url]
    for player, token in played["receipts"].items():
        (tmp / f"{player}.json").write_text(json.dumps({"receipt": token}))
        args += ["--receipt", f"{player}.json"]
    status, lines = verify(*args, cwd=tmp)
    assert status == 0, lines
    return lines


def test_a_deleted_boards_evidence_verifies_and_a_board_made_again_is_a_new_one(stack, api, tmp_path):
    stack.reset_tables()
    old = play(stack, api, "desc", {"ar-ada": 300, "ar-bob": 500, "ar-cy": 200}, hidden="ar-cy")
    old_log = records(api)
    assert [r["kind"] for r in old_log] == ["score", "score", "score", "hide"]
    check(stack, old, tmp_path / "before")

    deleted = api.delete(f"/leaderboards/{BOARD}")
    assert deleted.status_code == 200 and deleted.json()["status"] == "deleted", deleted.text
    stack.settle()
    gone = api.get(f"/leaderboards/{BOARD}")
    assert gone.status_code == 404, gone.text
    [archived] = gone.json()["archived"]
    assert archived["generation"] == old["generation"]
    listed = api.get(archived["periods_url"])
    assert listed.status_code == 200, listed.text
    assert [(p["period_id"], p["status"]) for p in listed.json()["periods"]] == [("tournament", "closed")]
    generation = {"generation": old["generation"]}
    # the log stays, sealed: the deletion left the closed tournament's entries to their TTL and appended nothing,
    # so the archive's replay ends where the summary does
    kept = records(api, generation)
    assert kept == old_log
    summary = api.get(f"/leaderboards/{BOARD}/periods/tournament", params=generation)
    assert summary.status_code == 200 and summary.json() == old["summary"], summary.text
    assert kept[-1]["seq"] == summary.json()["log_head"]["seq"]
    check(stack, old, tmp_path / "deleted")

    new = play(stack, api, "asc", {"ar-cy": 50, "ar-dan": 70})
    assert new["generation"] != old["generation"]
    fresh = records(api)
    assert [(r["seq"], r["kind"]) for r in fresh] == [(1, "score"), (2, "score")]
    assert fresh[0]["prev_hash"] == "0" * 64
    assert {r["player"] for r in fresh}.isdisjoint(r["player"] for r in kept)  # new commitments
    top = [(e["player_id"], e["rank"]) for e in new["summary"]["top"]]
    assert top == [("ar-cy", 1), ("ar-dan", 2)]  # ar-cy, hidden on the deleted board, is not hidden here
    assert new["summary"]["log_head"]["seq"] == 2
    lines = check(stack, new, tmp_path / "new")
    assert any("follows from records 1..2 (asc)" in line for line in lines), lines
    check(stack, old, tmp_path / "old-again")  # the deleted generation's evidence, unchanged, still verifies
    assert records(api, generation) == kept
