"""The verifier refuses what a summary or receipt leaves out or bends, each time naming the field: a
`top` cut short or empty, a reward missing a winner, a field outside the signature or outside the format, a number
of another JSON type than the log's (200.0 for 200, rank 1.0), a signed order the log contradicts. Summaries are
signed with a test key listed in the keys file, as an operator's own key would be: the signature holds, the
completeness check must not. Spec vectors: tests/support/proof_vectors.py."""

from __future__ import annotations

import io
import json

import pytest

from leaderboard_verify.cli import run
from tests.support.fake_api import serving
from tests.support.proof_vectors import SigningKey, closing_summary, jwks, sign_summary, tournament, verify_files

LOG = tournament()  # after seq 6: erin 130, bob 120, alice 100, carol 100 (dave hidden)
KEY = SigningKey()


@pytest.fixture
def verify(tmp_path):
    def verify(summary=None, receipts=(), extra=()):
        return verify_files(tmp_path, LOG.export(), jwks(KEY), summary, receipts, extra)

    return verify


def failures(lines):
    return [line for line in lines if line.startswith("FAIL")]


def honest():
    return closing_summary(LOG, KEY)


def resigned(summary):
    return sign_summary({k: v for k, v in summary.items() if k != "signature"}, KEY)


def test_the_honest_summary_verifies(verify):
    status, lines = verify(honest())
    assert status == 0, lines


@pytest.mark.parametrize("kept", [2, 0])
def test_a_top_cut_short_or_empty_is_refused(verify, kept):
    """Before: every listed entry matched the replay, and nothing asked whether the list was whole."""
    summary = honest()
    summary["top"] = summary["top"][:kept]
    summary["rewards"] = [{**r, "players": summary["top"][:1]} for r in summary["rewards"]]
    status, lines = verify(resigned(summary))
    assert status == 1, lines
    assert failures(lines)[0] == (
        f"FAIL summary top: lists {kept} entries, records 1..6 give 4 players: its top 100 is 4"
    ), lines


def test_a_top_cut_to_a_signed_top_size_verifies_and_a_reward_past_it_is_refused(verify):
    summary = {**honest(), "top_size": 2}
    summary["top"] = summary["top"][:2]
    status, lines = verify(resigned(summary))
    assert status == 0, lines
    summary["rewards"] = [{"reward": "podium", "ranks": [1, 3], "players": summary["top"]}]
    status, lines = verify(resigned(summary))
    assert failures(lines) == [
        "FAIL summary rewards[0].ranks: reach rank 3, past the summary's top_size 2: its winners are unknown"
    ]


def test_a_reward_missing_a_winner_is_refused(verify):
    """A reward for ranks 1-2 naming only rank 1 (the top cut to match: before, the reward was compared with the
    cut top only, and verified)."""
    summary = {**honest(), "top_size": 1}
    summary["top"] = summary["top"][:1]
    summary["rewards"] = [{"reward": "gold", "ranks": [1, 2], "players": summary["top"][:1]}]
    status, lines = verify(resigned(summary))
    assert status == 1, lines
    assert "FAIL summary rewards[0].ranks: reach rank 2, past the summary's top_size 1: its winners are unknown" in (
        failures(lines)
    )
    summary = honest()  # the whole top, and a reward naming one of its two winners
    summary["rewards"] = [{"reward": "gold", "ranks": [1, 2], "players": summary["top"][:1]}]
    status, lines = verify(resigned(summary))
    assert failures(lines) == [
        "FAIL summary rewards[0].players: names ranks [1], the top's ranks 1..2 are 2: missing rank 2"
    ]


def test_an_unsigned_extra_field_is_refused(verify):
    """Before: reported as `ok ... (unsigned: ['winner'])` and VERIFIED."""
    status, lines = verify({**honest(), "winner": "mallory"})
    assert status == 1, lines
    assert failures(lines) == [
        "FAIL summary signed fields: winner is in the summary but not signed: an unsigned field cannot verify"
    ]


def test_a_signed_field_outside_the_format_is_refused(verify):
    status, lines = verify(resigned({**honest(), "disqualified": ["erin"]}))
    assert failures(lines) == [
        "FAIL summary signed fields: disqualified: is not a field of a summary: its meaning is unknown, so it cannot "
        "verify"
    ]


def test_a_score_given_as_a_float_is_refused_though_signed_as_an_integer(verify):
    """The signed payload says 130; the summary as served says 130.0. Before: compared as numbers, VERIFIED."""
    summary = honest()
    summary["top"][0]["score"] = 130.0
    summary["rewards"][0]["players"][0]["score"] = 130.0
    status, lines = verify(summary)
    assert status == 1, lines
    assert (
        failures(lines)[0]
        == "FAIL summary signed fields: rewards[0].players[0].score is 130.0 here, 130 in the signed payload"
    )


@pytest.mark.parametrize(("field", "value"), [("rank", 1.0), ("score", 130.0)])
def test_a_float_rank_or_score_signed_as_such_is_refused(verify, field, value):
    summary = honest()
    summary["top"][0][field] = value
    summary["rewards"][0]["players"] = [summary["top"][0]]
    status, lines = verify(resigned(summary))
    assert status == 1, lines
    expected = {
        "rank": "FAIL summary top[0].rank: is 1.0 (float), not integer",
        "score": "FAIL summary top[0].score: the summary says 130.0, rank 1 of records 1..6 has 130",
    }[field]
    assert failures(lines)[0] == expected, lines


@pytest.mark.parametrize(("field", "value"), [("rank", 1.0), ("score", 130.0)])
def test_a_receipt_with_a_float_rank_or_score_is_refused(verify, field, value):
    token = KEY.sign({**LOG.receipt_payload("erin", 1, 130, 4, 6), field: value})
    status, lines = verify(receipts=[token])
    assert status == 1, lines
    expected = {
        "rank": "FAIL receipt 1 payload: field rank: 1.0",
        "score": "FAIL receipt 1 standings: score: the receipt says 130.0, records 1..6 give 130",
    }[field]
    assert failures(lines) == [expected]


def test_a_wrong_signed_order_is_refused_naming_the_order(verify):
    """Signed `asc` over a desc board's standings: the replay in asc gives another top; desc would give this one."""
    status, lines = verify(resigned({**honest(), "order": "asc"}))
    assert status == 1, lines
    assert failures(lines) == ["FAIL summary order: is asc, but records 1..6 give this top in desc order"]
    status, lines = verify(honest(), extra=["--order", "asc"])
    assert failures(lines) == ["FAIL summary order: the signed order is desc, the board's is asc"]


def test_with_url_the_signed_order_counts_not_the_boards_today(tmp_path):
    """The board was recreated with the other order: the honest summary still verifies from its own signed order,
    and the board's order is not even read."""
    answers = {
        "/.well-known/jwks.json": jwks(KEY),
        f"/leaderboards/{LOG.board_id}/periods/{LOG.period_id}/log": LOG.export(),
        f"/leaderboards/{LOG.board_id}": {"board_id": LOG.board_id, "order": "asc"},
    }
    (tmp_path / "summary.json").write_text(json.dumps(honest()))
    with serving(lambda path, _query: answers.get(path)) as (url, asked):
        out = io.StringIO()
        status = run(["--url", url, "--summary", str(tmp_path / "summary.json")], out)
    assert status == 0, out.getvalue()
    assert f"/leaderboards/{LOG.board_id}" not in [p.split("?")[0] for p in asked]


def test_a_receipt_after_its_keys_retired_at_is_refused_naming_the_field(tmp_path):
    old, current = SigningKey(), SigningKey()
    token = old.sign({**LOG.receipt_payload("erin", 1, 130, 4, 6), "at": "2026-12-09T12:00:00.000Z"})
    (tmp_path / "log.json").write_text(json.dumps(LOG.export()))
    (tmp_path / "jwks.json").write_text(json.dumps(jwks(current, old)))
    out = io.StringIO()
    status = run(["--log", str(tmp_path / "log.json"), "--keys", str(tmp_path / "jwks.json"), "--receipt", token], out)
    assert status == 1
    assert f"FAIL receipt 1 signature: at 2026-12-09T12:00:00.000Z is at or after key {old.kid}'s retired_at" in (
        out.getvalue()
    )
