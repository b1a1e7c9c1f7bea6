"""Closed means closed over HTTP against the local stack: a score held before a period's end and
approved after its closing, then moderation of the closed period; the closed period's `/top`, its receipts and its
signed summary agree, and the verifier (`python -m leaderboard_verify`, reading the log and keys from the API)
accepts all of them together. A tournament: its one period has ended, so the approval is refused. (An approval
applied to the periods still open while a closed day is left as it closed needs a day to pass on the stack's clock,
which only moves forward and is shared by the whole package's tests: tests/unit/test_closed_periods.py plays it on
moto and on the in-memory stores.)

No sleeps for a time boundary: the stack's clock is moved past the end. The log is appended off the request path:
the test waits until it holds every change (a generous bound)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from cdk_leaderboard_lambda.shared.clock import iso
from tests.support import clock
from tests.support.player_tokens import player_token

LOG_WITHIN_S = 60  # the log's lag on a loaded 2-core machine: returns as soon as every change is in
HOLD = {"max_score": {"value": 1000, "action": "quarantine"}}


def verify(*args: str, cwd: Path) -> tuple[int, list[str]]:
    result = subprocess.run(
        [sys.executable, "-m", "leaderboard_verify", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout.splitlines()


def score(api, board: str, player: str, value: int):
    body = {"player_id": player, "player_name": player.title(), "score": value}
    return api.post(f"/leaderboards/{board}/scores", body)


def logged(api, board: str, period_id: str, count: int) -> None:
    """Wait until the period's log holds `count` records."""
    deadline = time.monotonic() + LOG_WITHIN_S
    while True:
        reply = api.get(f"/leaderboards/{board}/periods/{period_id}/log", params={"limit": 100})
        assert reply.status_code == 200, reply.text
        if len(reply.json()["records"]) >= count:
            assert len(reply.json()["records"]) == count, reply.text
            return
        assert time.monotonic() < deadline, reply.text
        time.sleep(0.2)


def ranked(api, board: str, period: str) -> list[tuple[str, int, int]]:
    reply = api.get(f"/leaderboards/{board}/top", params={"period": period})
    assert reply.status_code == 200, reply.text
    return [(e["rank"], e["player_id"], e["score"]) for e in reply.json()["entries"]]


def receipt(api, board: str, player: str, period: str):
    """The player's receipt, fetched with their own token (the game key mints it)."""
    token = player_token(api, player)
    headers = {"Authorization": f"Bearer {token}"}
    return api.get(f"/leaderboards/{board}/players/{player}/receipt", params={"period": period}, headers=headers)


def payload(token: str) -> dict:
    part = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def agree(api, stack, board: str, period: str, summary: dict, players: list[str], tmp_path: Path) -> None:
    """The closed period's /top, each player's receipt and the summary say the same standings, and the verifier
    accepts the summary and the receipts against the log and keys it reads from the API."""
    top = [(e["rank"], e["player_id"], e["score"]) for e in summary["top"]]
    assert ranked(api, board, period) == top
    tokens = []
    for rank, player, value in top:
        reply = receipt(api, board, player, period)
        assert reply.status_code == 200, reply.text
        claims = payload(reply.json()["receipt"])
        assert (claims["rank"], claims["score"], claims["total_players"]) == (rank, value, summary["total_players"])
        assert (claims["seq"], claims["head_hash"]) == (summary["log_head"]["seq"], summary["log_head"]["hash"])
        tokens.append(reply.json()["receipt"])
    for player in players:
        if player not in {p for _, p, _ in top}:
            assert receipt(api, board, player, period).status_code == 404  # not in the standings it closed with
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    receipts = [arg for token in tokens for arg in ("--receipt", token)]
    status, lines = verify("--url", stack.api_url, "--summary", "summary.json", *receipts, cwd=tmp_path)
    assert status == 0 and lines[-1].startswith("VERIFIED"), lines


def test_a_tournament_refuses_an_approval_after_its_end_and_its_evidence_agrees(api, stack, tmp_path):
    board = "cl-cup"
    now = stack.clock.now()
    end = now + timedelta(seconds=60)
    body = {"board_id": board, "starts_at": iso(now - timedelta(seconds=1)), "ends_at": iso(end), "rules": HOLD}
    assert api.post("/leaderboards", body).status_code == 201
    for player, value in (("cl-ada", 500), ("cl-bob", 400)):
        assert score(api, board, player, value).status_code == 200
    held = score(api, board, "cl-eve", 5000)
    assert held.status_code == 202, held.text
    stack.settle()
    logged(api, board, "tournament", 2)

    clock.move(stack, to=end + timedelta(milliseconds=50))
    closed = api.post(f"/leaderboards/{board}/periods/tournament/close")
    assert closed.status_code == 200, closed.text
    approved = api.post(f"/leaderboards/{board}/pending/{held.json()['pending_id']}/approve")
    assert approved.status_code == 409 and "have ended" in approved.json()["error"], approved.text
    assert score(api, board, "cl-fay", 900).status_code == 409  # a late submission
    hidden = api.put(f"/leaderboards/{board}/players/cl-ada/hidden")
    assert hidden.status_code == 200 and hidden.json()["moved_entries"] == 0, hidden.text
    removed = api.delete(f"/leaderboards/{board}/players/cl-bob")
    assert removed.status_code == 200 and removed.json()["deleted_entries"] == 0, removed.text
    stack.settle()
    summary = api.get(f"/leaderboards/{board}/periods/tournament").json()
    assert summary == closed.json()
    assert [(e["player_id"], e["score"]) for e in summary["top"]] == [("cl-ada", 500), ("cl-bob", 400)]
    agree(api, stack, board, "tournament", summary, ["cl-eve"], tmp_path)
    rejected = api.post(f"/leaderboards/{board}/pending/{held.json()['pending_id']}/reject")
    assert rejected.status_code == 200, rejected.text
