"""The proof verifier (leaderboard_verify) on spec vectors (tests/support/proof_vectors.py): a good log, summary and
receipts pass; each kind of tampering fails at the record, field or entry it touched, with a message that says so."""

from __future__ import annotations

import ast
import base64
import hashlib
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from leaderboard_verify.chain import record_hash
from leaderboard_verify.cli import run
from tests.support.fake_api import serving
from tests.support.proof_vectors import (
    RETIRED_AT,
    LogBuilder,
    SigningKey,
    T,
    b64url,
    canonical,
    closing_summary,
    jwks,
    rehash,
    relink,
    sign_summary,
    tournament,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def keys():
    return SigningKey(), SigningKey()  # current, retired


@pytest.fixture
def files(tmp_path, keys):
    """Writes the evidence to files and runs the verifier on them: returns (exit status, printed lines)."""
    current, retired = keys

    def verify(log, summary=None, receipts=(), key_set=None, extra=()):
        """`log`: a LogBuilder (its export), or the export's JSON value or text."""
        log = log.export() if isinstance(log, LogBuilder) else log
        (tmp_path / "log.json").write_text(log if isinstance(log, str) else json.dumps(log))
        argv = ["--log", str(tmp_path / "log.json")]
        (tmp_path / "jwks.json").write_text(json.dumps(key_set or jwks(current, retired)))
        argv += ["--keys", str(tmp_path / "jwks.json")]
        if summary is not None:
            (tmp_path / "summary.json").write_text(json.dumps(summary))
            argv += ["--summary", str(tmp_path / "summary.json")]
        for i, token in enumerate(receipts):
            (tmp_path / f"receipt{i}.json").write_text(json.dumps({"receipt": token}))
            argv += ["--receipt", str(tmp_path / f"receipt{i}.json")]
        out = io.StringIO()
        status = run(argv + list(extra), out)
        return status, out.getvalue().splitlines()

    return verify


def failures(lines):
    return [line for line in lines if line.startswith("FAIL")]


def test_a_whole_log_summary_and_receipts_verify(files, keys):
    log = tournament()
    current, _ = keys
    receipts = [
        current.sign(log.receipt_payload("erin", 1, 130, 4, 6)),
        current.sign(log.receipt_payload("alice", 3, 100, 4, 6)),
        current.sign(log.receipt_payload("dave", 4, 90, 4, 10)),  # after the show, with carol erased, bob removed
    ]
    status, lines = files(log.export(), closing_summary(log, current), receipts)
    assert status == 0, lines
    assert lines[-1] == "VERIFIED: 15 checks passed"
    assert any(line.startswith("ok   log: 10 records, seq 1..10 without a gap") for line in lines)
    assert (
        "ok   summary standings: total_players 4, the whole top 4 (rank and score) and every reward's players follow "
        "from records 1..6 (desc)" in lines
    )
    assert any("receipt 3 standings: dave: rank 4 of 4 with score 90" in line for line in lines)


def test_exact_ties_may_be_in_either_order_and_nothing_else_may(files, keys):
    """alice and frank are equal on score and at after seq 10: rank 2 and 3 both stand for either; 4 does not."""
    log, (current, _) = tournament(), keys
    for rank in (2, 3):
        status, lines = files(log, receipts=[current.sign(log.receipt_payload("frank", rank, 100, 4, 10))])
        assert status == 0, lines
    status, lines = files(log, receipts=[current.sign(log.receipt_payload("frank", 4, 100, 4, 10))])
    assert failures(lines) == [
        "FAIL receipt 1 standings: rank: the receipt says 4, records 1..10 give 2..3 (exact ties)"
    ]
    # carol (100 at T[3]) was behind alice (100 at T[1]) at seq 6: the tie by `at` is not either way
    carol = log.records[2]["player"]  # her commitment before the erasure deleted her key
    status, lines = files(log, receipts=[current.sign({**log.receipt_payload("carol", 3, 100, 4, 6), "player": carol})])
    assert failures(lines) == ["FAIL receipt 1 standings: rank: the receipt says 3, records 1..6 give 4"]


@pytest.mark.parametrize("field", ["at", "kind", "score", "player"])
def test_altering_a_field_of_a_record_fails_at_that_record(files, field):
    log = tournament().export()
    new = {"at": T[30], "kind": "show", "score": 95, "player": "f" * 64}[field]
    log["records"][3][field] = new
    status, lines = files(log)
    assert status == 1
    (failure,) = failures(lines)
    assert failure.startswith("FAIL log: record seq 4 (position 4): hash: is ")
    assert "the record's canonical JSON hashes to" in failure


def test_a_record_altered_and_hashed_again_breaks_the_next_link(files):
    log = tournament().export()
    log["records"][3]["score"] = 95
    rehash(log["records"][3])
    status, lines = files(log)
    (failure,) = failures(lines)
    assert failure.startswith("FAIL log: record seq 5 (position 5): prev_hash: is ")
    assert f"expected record 4's hash {log['records'][3]['hash']}" in failure


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("seq", 40, "record seq 40 (position 4): seq: expected seq 4: records 4..39 are missing"),
        ("prev_hash", "e" * 64, "record seq 4 (position 4): prev_hash: is " + "e" * 64),
        ("hash", "e" * 64, "record seq 4 (position 4): hash: is " + "e" * 64),
        ("score", "95", "record seq 4 (position 4): score: '95' is not a number or null"),
        ("at", "2026-12-01T10:04:00Z", "record seq 4 (position 4): at: '2026-12-01T10:04:00Z' is not RFC 3339"),
        ("kind", "edit", "record seq 4 (position 4): kind: 'edit' is not one of"),
        ("player", "alice", "record seq 4 (position 4): player: 'alice' is not 64 lowercase hex digits"),
    ],
)
def test_a_field_out_of_the_format_is_named(files, field, value, message):
    log = tournament().export()
    log["records"][3][field] = value
    status, lines = files(log)
    (failure,) = failures(lines)
    assert failure.startswith(f"FAIL log: {message}"), failure


def test_a_missing_or_extra_field_is_named(files):
    log = tournament().export()
    del log["records"][1]["at"]
    log["records"][2]["player_id"] = "carol"
    status, lines = files(log)
    assert failures(lines) == ["FAIL log: record seq 2 (position 2): at: missing"]
    log = tournament().export()
    log["records"][2]["player_id"] = "carol"
    status, lines = files(log)
    assert failures(lines) == ["FAIL log: record seq 3 (position 3): player_id: not a field of the format"]


def test_dropping_a_record_fails_where_it_was(files):
    log = tournament().export()
    del log["records"][4]
    status, lines = files(log)
    assert failures(lines) == ["FAIL log: record seq 6 (position 5): seq: expected seq 5: record 5 is missing"]


def test_dropping_the_records_after_a_signed_head_fails_the_head(files, keys):
    """A log cut short is a whole chain: the signed head past its end is what shows it."""
    log, (current, _) = tournament(), keys
    cut = log.export()
    cut["records"] = cut["records"][:5]
    status, lines = files(cut, closing_summary(log, current))
    assert failures(lines) == ["FAIL summary head: seq 6 is past the export's last record (5): export it again"]


def test_reordering_two_records_fails_at_the_first(files):
    log = tournament().export()
    log["records"][2], log["records"][3] = log["records"][3], log["records"][2]
    status, lines = files(log)
    assert failures(lines) == ["FAIL log: record seq 4 (position 3): seq: expected seq 3: records are out of order"]


def test_reordering_two_records_and_forging_the_chain_fails_the_signed_head(files, keys):
    """A forger renumbers and rehashes the whole log: it chains, but no longer ends at the signed head."""
    log, (current, _) = tournament(), keys
    forged = log.export()
    forged["records"][1], forged["records"][2] = forged["records"][2], forged["records"][1]
    for seq, r in enumerate(forged["records"], start=1):
        r["seq"] = seq
    relink(forged["records"])
    status, lines = files(forged, closing_summary(log, current))
    (failure,) = failures(lines)
    assert failure.startswith(f"FAIL summary head: head_hash is {log.head(6)['hash']}, record seq 6's hash is ")


def test_a_summary_whose_standings_were_edited_fails_at_the_entry(files, keys):
    log, (current, _) = tournament(), keys
    summary = closing_summary(log, current)
    summary["top"][1]["score"] = 125  # edited after signing
    status, lines = files(log, summary=summary)
    assert failures(lines) == ["FAIL summary signed fields: top[1].score is 125 here, 120 in the signed payload"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda s: s["top"][1].update(score=125),
            "FAIL summary top[1].score: the summary says 125, rank 2 of records 1..6 has 120",
        ),
        (lambda s: s.update(total_players=5), "FAIL summary total_players: the summary says 5, records 1..6 give 4"),
        (
            lambda s: s["top"].__setitem__(slice(0, 2), [{**s["top"][1], "rank": 1}, {**s["top"][0], "rank": 2}]),
            "FAIL summary top[0].score: the summary says 120, rank 1 of records 1..6 has 130",
        ),
        (lambda s: s["top"].pop(0), "FAIL summary top: lists 3 entries, records 1..6 give 4 players: its top 100 is 4"),
        (
            lambda s: s["rewards"][0].update(players=[s["top"][1]]),
            "FAIL summary rewards[0].players: names ranks [2], the top's ranks 1..1 are 1: missing rank 1",
        ),
    ],
)  # fmt: skip
def test_a_summary_signed_with_standings_the_log_does_not_give_fails_at_the_entry(files, keys, change, message):
    """The operator's own key over a false summary: the signature holds, the replay does not."""
    log, (current, _) = tournament(), keys
    summary = closing_summary(log, current)
    change(summary)
    status, lines = files(log, summary=sign_summary(summary, current))
    assert status == 1
    assert failures(lines)[0] == message, lines


def test_a_receipt_whose_rank_was_changed_fails(files, keys):
    log, (current, _) = tournament(), keys
    lied = current.sign(log.receipt_payload("alice", 2, 100, 4, 6))  # bob (120) is ahead of alice at seq 6
    edited = current.sign(log.receipt_payload("alice", 3, 100, 4, 6)).split(".")
    payload = json.loads(base64.urlsafe_b64decode(edited[1] + "=="))
    edited[1] = b64url(canonical({**payload, "rank": 1}))  # edited without the key
    status, lines = files(log, receipts=[lied, ".".join(edited)])
    assert failures(lines) == [
        "FAIL receipt 1 standings: rank: the receipt says 2, records 1..6 give 3",
        f"FAIL receipt 2 signature: the signature does not verify with key {current.kid}",
    ]


def test_a_receipts_score_total_and_head_are_checked(files, keys):
    log, (current, _) = tournament(), keys
    carol = log.records[2]["player"]
    status, lines = files(log, receipts=[
        current.sign(log.receipt_payload("alice", 3, 110, 5, 6)),
        current.sign({**log.receipt_payload("alice", 3, 100, 4, 6), "head_hash": "a" * 64}),
        current.sign({**log.receipt_payload("carol", 4, 100, 4, 10), "player": carol}),  # erased at seq 8
    ])  # fmt: skip
    assert failures(lines) == [
        "FAIL receipt 1 standings: score: the receipt says 110, records 1..6 give 100",
        "FAIL receipt 1 standings: total_players: the receipt says 5, records 1..6 give 4",
        f"FAIL receipt 2 head: head_hash is {'a' * 64}, record seq 6's hash is {log.head(6)['hash']}",
        f"FAIL receipt 3 standings: player commitment {carol} has no entry in the standings of records 1..10",
    ]


def test_a_receipt_signed_with_a_retired_key_verifies_and_one_with_an_unknown_kid_does_not(files, keys):
    log, (current, retired) = tournament(), keys
    stranger = SigningKey()
    status, lines = files(log, receipts=[retired.sign(log.receipt_payload("erin", 1, 130, 4, 6))])
    assert status == 0, lines
    retired_line = f"ok   receipt 1 signature: EdDSA by key {retired.kid}, listed as retired at {RETIRED_AT}"
    assert (
        f"{retired_line}; signed at 2026-12-02T04:00:00.000Z, iat 1796184000 (2026-12-02T04:00:00+00:00), before it"
        in lines
    )
    status, lines = files(log, receipts=[stranger.sign(log.receipt_payload("erin", 1, 130, 4, 6))])
    assert failures(lines) == [
        f"FAIL receipt 1 signature: kid {stranger.kid} is not in the published keys "
        f"(listed: {', '.join(sorted([current.kid, retired.kid]))})"
    ]
    # a known kid on a signature made with another key
    status, lines = files(log, receipts=[stranger.sign(log.receipt_payload("erin", 1, 130, 4, 6), kid=current.kid)])
    assert failures(lines) == [f"FAIL receipt 1 signature: the signature does not verify with key {current.kid}"]


def test_the_hash_is_over_rfc8785_canonical_json():
    """A known answer: RFC 8785 writes 2.0 as 2 and sorts keys by UTF-16 code units, where json.dumps does not."""
    record = {"seq": 1, "at": T[0], "kind": "score", "score": 2.0, "player": "a" * 64, "prev_hash": "0" * 64}
    expected = (
        '{"at":"2026-12-01T10:00:00.000Z","kind":"score","player":"' + "a" * 64 + '","prev_hash":"' + "0" * 64
        + '","score":2,"seq":1}'
    )  # fmt: skip
    assert record_hash(record) == hashlib.sha256(expected.encode()).hexdigest()


def test_pages_concatenated_or_as_a_list_read_as_one_log(files):
    log = tournament()
    status, lines = files("\n".join(json.dumps(p) for p in log.pages(3)))
    assert status == 0 and "10 records" in lines[0], lines
    status, lines = files(log.pages(4))
    assert status == 0 and "10 records" in lines[0], lines


def test_an_input_that_cannot_be_read_exits_2(tmp_path):
    out = io.StringIO()
    assert run(["--log", str(tmp_path / "none.json")], out) == 2
    assert out.getvalue().startswith(f"FAIL input: {tmp_path / 'none.json'}: No such file")
    (tmp_path / "bad.json").write_text('{"records": [')
    out = io.StringIO()
    assert run(["--log", str(tmp_path / "bad.json")], out) == 2
    assert "not JSON at character 0" in out.getvalue()


def test_the_log_and_keys_are_read_from_the_api_page_by_page(keys, tmp_path):
    """--url: the log route followed by next_cursor (limit 100), and the JWKS at /.well-known/jwks.json."""
    log, (current, retired) = tournament(), keys
    pages = log.pages(4)

    def answer(path, query):
        if path == "/.well-known/jwks.json":
            return jwks(current, retired)
        if path == f"/leaderboards/{log.board_id}/periods/{log.period_id}/log":
            return pages[int(query.get("cursor", ["c0"])[0][1:])]
        return None

    with serving(answer) as (url, asked):
        receipt = current.sign(log.receipt_payload("erin", 1, 130, 4, 6))
        out = io.StringIO()
        status = run(["--url", url, "--receipt", receipt], out)
    assert status == 0, out.getvalue()
    assert [p for p in asked if "/log" in p] == [
        f"/leaderboards/cup/periods/t-2026-cup/log?limit=100{c}" for c in ("", "&cursor=c1", "&cursor=c2")
    ]


def test_python_m_leaderboard_verify_runs_and_exits_non_zero_on_a_failure(tmp_path):
    log = tournament().export()
    log["records"][0]["score"] = 101
    (tmp_path / "log.json").write_text(json.dumps(log))
    result = subprocess.run(
        [sys.executable, "-m", "leaderboard_verify", "--log", str(tmp_path / "log.json")],
        cwd=tmp_path, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1, result
    assert result.stdout.splitlines()[0].startswith("FAIL log: record seq 1 (position 1): hash: is ")
    assert result.stdout.splitlines()[-1] == "NOT VERIFIED: 1 of 1 checks failed"


def test_the_verifier_imports_nothing_of_the_server():
    """It is the independent check: the standard library, rfc8785, cryptography and itself only."""
    allowed = {"rfc8785", "cryptography", "leaderboard_verify"} | set(sys.stdlib_module_names)
    for path in (ROOT / "leaderboard_verify").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            for name in names:
                assert name.split(".")[0] in allowed, f"{path.name} imports {name}"


def test_the_order_comes_from_the_signed_payload_or_order_and_a_contradiction_fails(files, keys):
    log, (current, _) = tournament(), keys
    summary = {k: v for k, v in closing_summary(log, current).items() if k not in ("order", "signature")}
    status, lines = files(log, summary=sign_summary(summary, current))
    assert failures(lines) == ["FAIL summary order: the board's order is unknown or not desc/asc (None): pass --order"]
    status, lines = files(log, summary=sign_summary(summary, current), extra=["--order", "desc"])
    assert status == 0, lines
    status, lines = files(log, summary=closing_summary(log, current), extra=["--order", "asc"])
    assert failures(lines) == ["FAIL summary order: the signed order is desc, the board's is asc"]
