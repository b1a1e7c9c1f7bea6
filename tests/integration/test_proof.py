"""Proving the standings end to end, over HTTP against the local stack: a tournament with submissions, a
quarantined score approved, a hidden and shown player, a removal and erasures; then the verifier, run as a user
runs it (`python -m leaderboard_verify` in a subprocess), accepts the exported log, the signed closing summary and
the receipts, from files and from the API itself; a tampered export, a summary edited after signing and a receipt
checked against a log cut short fail, at the record or field that was touched.

No sleeps for a time boundary: the stack's clock is moved to the tournament's end. The log may be appended off the
request path (docs/PROVING.md): the export is read again until it holds every change (a generous bound)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest

from cdk_leaderboard_lambda.shared.clock import iso
from tests.support import clock
from tests.support.erasure import erase

BOARD = "pf-cup"
LOG_WITHIN_S = 60  # the log's lag on a loaded 2-core machine: returns as soon as every change is in
RULES = {"max_score": {"value": 1000, "action": "quarantine"}}


def verify(*args: str, cwd: Path) -> tuple[int, list[str]]:
    result = subprocess.run(
        [sys.executable, "-m", "leaderboard_verify", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout.splitlines()


def failures(lines: list[str]) -> list[str]:
    return [line for line in lines if line.startswith("FAIL")]


def export_pages(api, period_id: str, limit: int = 3) -> list[dict]:
    """The log route's pages, as a user would save them (a small limit, so that paging is exercised)."""
    pages, cursor = [], None
    while True:
        params = {"limit": limit, **({"cursor": cursor} if cursor else {})}
        reply = api.get(f"/leaderboards/{BOARD}/periods/{period_id}/log", params=params)
        assert reply.status_code == 200, reply.text
        pages.append(reply.json())
        cursor = reply.json().get("next_cursor")
        if not cursor:
            return pages


def log_of(api, period_id: str, count: int) -> list[dict]:
    """The log's pages once it holds `count` records."""
    deadline = time.monotonic() + LOG_WITHIN_S
    while True:
        pages = export_pages(api, period_id)
        records = [r for p in pages for r in p["records"]]
        if len(records) >= count:
            assert len(records) == count, [r["kind"] for r in records]
            return pages
        assert time.monotonic() < deadline, f"{len(records)} of {count} records after {LOG_WITHIN_S} s"
        time.sleep(0.2)


def receipt_of(api, player: str) -> str:
    """The player's receipt, asked again while the issuer says the log is catching up (409)."""
    deadline = time.monotonic() + LOG_WITHIN_S
    while True:
        token = api.post(f"/players/{player}/tokens", {}).json()["token"]  # the game server acts for the player
        reply = api.get(
            f"/leaderboards/{BOARD}/players/{player}/receipt",
            params={"period": "tournament"},
            headers={"Authorization": f"Bearer {token}"},
        )
        if reply.status_code == 200:
            return reply.json()["receipt"]
        assert reply.status_code == 409, reply.text
        assert time.monotonic() < deadline, reply.text
        time.sleep(0.2)


def score(api, player: str, value: int):
    return api.post(
        f"/leaderboards/{BOARD}/scores", {"player_id": player, "player_name": player.title(), "score": value}
    )


@pytest.fixture(scope="module")
def tournament(stack, api):
    """The tournament played and closed; what the test needs to check it."""
    stack.reset_tables()
    now = stack.clock.now()
    start, end = now - timedelta(seconds=1), now + timedelta(minutes=10)
    body = {"board_id": BOARD, "starts_at": iso(start), "ends_at": iso(end), "rules": RULES}
    assert api.post("/leaderboards", body).status_code == 201
    changes = 0
    for player, value in (("pf-ada", 300), ("pf-bob", 500), ("pf-cy", 200), ("pf-dee", 400), ("pf-eve", 250)):
        assert score(api, player, value).status_code == 200
        changes += 1
    assert score(api, "pf-ada", 350).status_code == 200  # a better score: a record
    changes += 1
    assert score(api, "pf-ada", 100).status_code == 200  # a worse one changes nothing: no record
    held = score(api, "pf-fay", 1100)
    assert held.status_code == 202, held.text  # quarantined: no record until approved
    approved = api.post(f"/leaderboards/{BOARD}/pending/{held.json()['pending_id']}/approve")
    assert approved.status_code == 200, approved.text
    changes += 1
    assert api.put(f"/leaderboards/{BOARD}/players/pf-dee/hidden").status_code == 200
    assert api.delete(f"/leaderboards/{BOARD}/players/pf-dee/hidden").status_code == 200
    changes += 2
    removed = api.delete(f"/leaderboards/{BOARD}/players/pf-cy")
    assert removed.status_code == 200 and removed.json()["deleted_entries"] >= 1, removed.text
    changes += 1
    erase(api, "pf-eve", stack)  # before the close
    changes += 1
    stack.settle()
    period_id = api.get(f"/leaderboards/{BOARD}/players/pf-ada", params={"period": "tournament"}).json()["period_id"]
    log_of(api, period_id, changes)
    receipts = {p: receipt_of(api, p) for p in ("pf-fay", "pf-bob", "pf-ada")}

    clock.move(stack, to=end + timedelta(milliseconds=50))
    closed = api.post(f"/leaderboards/{BOARD}/periods/tournament/close")
    assert closed.status_code == 200, closed.text
    erase(api, "pf-bob", stack)  # after the close: its summary is rewritten and signed again
    changes += 1
    stack.settle()
    pages = log_of(api, period_id, changes)
    summary = api.get(f"/leaderboards/{BOARD}/periods/{period_id}")
    assert summary.status_code == 200 and "pf-bob" not in summary.text, summary.text
    keys = api.get("/.well-known/jwks.json")
    assert keys.status_code == 200, keys.text
    return {"period_id": period_id, "pages": pages, "summary": summary.json(), "receipts": receipts,
            "keys": keys.json(), "changes": changes}  # fmt: skip


@pytest.fixture
def evidence(tournament, tmp_path):
    """The evidence saved to files: the log's pages concatenated, the summary, the receipts and the keys."""
    (tmp_path / "log.json").write_text("\n".join(json.dumps(p) for p in tournament["pages"]))
    (tmp_path / "summary.json").write_text(json.dumps(tournament["summary"]))
    (tmp_path / "jwks.json").write_text(json.dumps(tournament["keys"]))
    args = ["--log", "log.json", "--summary", "summary.json", "--keys", "jwks.json"]
    for player, token in tournament["receipts"].items():
        (tmp_path / f"{player}.json").write_text(json.dumps({"receipt": token}))
        args += ["--receipt", f"{player}.json"]
    return args


def test_the_verifier_accepts_the_exported_log_the_closing_summary_and_the_receipts(tournament, evidence, tmp_path):
    status, lines = verify(*evidence, cwd=tmp_path)
    assert status == 0, lines
    assert lines[-1].startswith("VERIFIED: ")
    n = tournament["changes"]
    assert any(line.startswith(f"ok   log: {n} records, seq 1..{n} without a gap") for line in lines), lines
    assert any(line.startswith("ok   summary standings: total_players ") for line in lines), lines
    assert sum(1 for line in lines if line.startswith("ok   receipt ") and " standings: " in line) == 3, lines
    records = [r for p in tournament["pages"] for r in p["records"]]
    kinds = [r["kind"] for r in records]
    assert kinds.count("approve") == 1 and kinds.count("remove") == 1 and kinds.count("erase") == 2, kinds
    assert {"hide", "show"} <= set(kinds)
    text = json.dumps(tournament["pages"])
    assert not any(p in text for p in ("pf-ada", "pf-bob", "pf-eve", "Bob", "Eve")), "the log names no player"


def test_the_verifier_reads_the_log_and_keys_from_the_api(stack, tournament, evidence, tmp_path):
    receipts = [a for a in evidence[evidence.index("--receipt") :]]
    status, lines = verify("--url", stack.api_url, "--summary", "summary.json", *receipts, cwd=tmp_path)
    assert status == 0, lines


def test_a_tampered_export_fails_at_the_record(tournament, evidence, tmp_path):
    records = [r for p in tournament["pages"] for r in p["records"]]
    altered = json.loads(json.dumps(records))
    altered[2]["score"] = altered[2]["score"] + 1 if altered[2]["score"] is not None else 1
    (tmp_path / "log.json").write_text(json.dumps({"records": altered}))
    status, lines = verify(*evidence, cwd=tmp_path)
    assert status == 1
    assert failures(lines)[0].startswith("FAIL log: record seq 3 (position 3): hash: is "), lines

    dropped = records[:3] + records[4:]
    (tmp_path / "log.json").write_text(json.dumps({"records": dropped}))
    status, lines = verify(*evidence, cwd=tmp_path)
    assert failures(lines)[0] == "FAIL log: record seq 5 (position 4): seq: expected seq 4: record 4 is missing"

    swapped = records[:1] + [records[2], records[1]] + records[3:]
    (tmp_path / "log.json").write_text(json.dumps({"records": swapped}))
    status, lines = verify(*evidence, cwd=tmp_path)
    assert failures(lines)[0] == "FAIL log: record seq 3 (position 2): seq: expected seq 2: records are out of order"


def test_a_summary_edited_after_signing_fails_at_the_field(tournament, evidence, tmp_path):
    summary = json.loads(json.dumps(tournament["summary"]))
    summary["top"][0]["score"] += 1
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    status, lines = verify(*evidence, cwd=tmp_path)
    assert status == 1
    assert failures(lines) == [
        f"FAIL summary signed fields: top[0].score is {summary['top'][0]['score']} here, "
        f"{summary['top'][0]['score'] - 1} in the signed payload"
    ]
