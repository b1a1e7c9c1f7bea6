"""Closing summaries anchored to the log and signed, under moto with the log in memory: log_head and a signature
over the summary as the route answers it (checked with `cryptography` against the JWKS), 409 while the log lags,
and erasure signing the rewritten summary again."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.data.chain import MemoryChain
from cdk_leaderboard_lambda.domain import hashchain, receipt_keys
from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog
from cdk_leaderboard_lambda.operations import submissions as scores_in
from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS
from cdk_leaderboard_lambda.operations.signed_summaries import LOG_DISAGREES, LOG_SETTLE_SECONDS
from leaderboard_verify.summary import SUMMARY_FIELDS
from local import invocation
from tests.support import jws
from tests.support.lambda_api import call

NOW = datetime.now(UTC)
YESTERDAY = NOW - timedelta(days=1)
BOARD = "season"
PERIOD = f"daily-{YESTERDAY.date().isoformat()}"
DAY = datetime.combine(YESTERDAY.date(), datetime.min.time(), tzinfo=UTC) + timedelta(hours=1)
ENDS = datetime.combine(NOW.date(), datetime.min.time(), tzinfo=UTC)  # the daily period's end


@pytest.fixture
def chain(ddb, clock, settle) -> MemoryChain:
    """Three scores, the rank counters settled (under the test's runtime, whose appender logs them in its own
    store), then a runtime whose log is a new in-memory one that each test fills as it says."""
    board_catalog.create_board(
        invocation.runtime(), {"board_id": BOARD, "periods": ["daily"]}, YESTERDAY - timedelta(days=1)
    )
    config = board_catalog.get_board(invocation.runtime(), BOARD)
    for i, (player, score) in enumerate((("ada", 10), ("bob", 30), ("cy", 20))):
        scores_in.submit(
            invocation.runtime(), config, Submission(player, player.title(), score), DAY + timedelta(seconds=i)
        )
    settle()
    store = MemoryChain()
    current = invocation.runtime()
    with invocation.serving(Runtime.build(current.settings, current.clock, current.dynamodb, chain=store)):
        yield store


def _evidence() -> str:
    """The board's id as its generation's log and commitments name it (item_keys.py)."""
    return board_catalog.get_board(invocation.runtime(), BOARD).evidence_id


def _log(store: MemoryChain, players: list[tuple[str, int, int]]) -> None:
    head = store.log_head(_evidence(), PERIOD)
    keys = store.player_keys([p for p, _, _ in players], int(invocation.seconds()))
    changes = [(at, "score", score, hashchain.commitment(keys[p], _evidence(), PERIOD, p)) for p, score, at in players]
    records = hashchain.chain(head, changes)
    assert store.append(_evidence(), PERIOD, head, records, [f"s{r['seq']}" for r in records], 0)


def _close():
    return call("POST", f"/leaderboards/{BOARD}/periods/{PERIOD}/close")


def _ms(seconds: int) -> int:
    return int((DAY + timedelta(seconds=seconds)).timestamp() * 1000)


def test_a_summary_carries_the_log_head_and_a_signature_over_itself(chain):
    _log(chain, [("ada", 10, _ms(0)), ("bob", 30, _ms(1)), ("cy", 20, _ms(2))])
    reply = _close()
    assert reply.status == 200, reply.body
    summary = reply.body
    head = chain.log_head(_evidence(), PERIOD)
    assert head is not None
    assert summary["log_head"] == {"seq": head[0], "hash": head[1]} == {"seq": 3, "hash": head[1]}
    claims = jws.verify(summary["signature"], call("GET", "/.well-known/jwks.json").body)
    assert claims == {k: v for k, v in summary.items() if k != "signature"}
    # the order the log is replayed in and the top's length are signed: a verifier needs both
    assert (claims["order"], claims["top_size"], len(claims["top"])) == ("desc", 100, 3)
    # the verifier's one statement of the summary's format holds every field the server signs: a field added here
    # must be added there (leaderboard_verify/summary.py), or every summary fails verification
    assert set(claims) <= set(SUMMARY_FIELDS) and {k for k, (_, needed) in SUMMARY_FIELDS.items() if needed} <= set(
        claims
    )
    assert call("GET", f"/leaderboards/{BOARD}/periods/{PERIOD}").body == summary  # as stored


def test_a_lagging_log_makes_the_closing_wait(chain, clock):
    """The log holds two of the three players: 409 log catching up, nothing stored; once it holds the third the
    closing goes through."""
    clock.set(ENDS + timedelta(minutes=1))
    _log(chain, [("ada", 10, _ms(0)), ("bob", 30, _ms(1))])
    reply = _close()
    assert reply.status == 409 and reply.body["error"].startswith("log catching up"), reply.body
    assert "log_head" not in call("GET", f"/leaderboards/{BOARD}/periods/{PERIOD}").body
    _log(chain, [("cy", 20, _ms(2))])
    assert _close().status == 200


def test_a_log_that_never_gives_the_standings_holds_the_closing_back_only_until_it_has_settled(chain, clock):
    """A change the log never got (a stream batch given up on) must not keep a period from closing for ever: from
    LOG_SETTLE_SECONDS after its end the summary is stored unsigned, saying why (a verifier refuses it)."""
    _log(chain, [("ada", 10, _ms(0)), ("bob", 30, _ms(1))])
    clock.set(ENDS + timedelta(seconds=LOG_SETTLE_SECONDS - 1))
    assert _close().status == 409
    clock.set(ENDS + timedelta(seconds=LOG_SETTLE_SECONDS))
    reply = _close()
    assert reply.status == 200, reply.body
    assert "signature" not in reply.body and reply.body["unsigned"] == LOG_DISAGREES
    assert reply.body["total_players"] == 3 and reply.body["log_head"]["seq"] == 2
    assert call("GET", f"/leaderboards/{BOARD}/periods/{PERIOD}").body == reply.body


def test_erasure_signs_the_rewritten_summary_again(chain, clock):
    _log(chain, [("ada", 10, _ms(0)), ("bob", 30, _ms(1)), ("cy", 20, _ms(2))])
    before = _close().body
    erased = call("DELETE", "/players/bob")
    for _ in range(20):  # 202 while the fences stand (FENCE_SECONDS): the clock moves instead of the test waiting
        if erased.status != 202:
            break
        clock.advance(FENCE_SECONDS + 1)
        erased = call("DELETE", "/players/bob")
    assert erased.status == 200, erased.body
    after = call("GET", f"/leaderboards/{BOARD}/periods/{PERIOD}").body
    assert after["signature"] != before["signature"]
    claims = jws.verify(after["signature"], call("GET", "/.well-known/jwks.json").body)
    assert claims == {k: v for k, v in after.items() if k != "signature"}
    assert "bob" not in json.dumps(claims).lower()  # neither the id nor the name "Bob"


def test_a_summary_whose_key_is_revoked_is_served_signed_by_the_current_key(chain):
    """After its key is rotated out the summary keeps its signature (the retired key verifies it); once
    that key is revoked, a read answers it signed by the current key, which verifies, with the same content."""
    _log(chain, [("ada", 10, _ms(0)), ("bob", 30, _ms(1)), ("cy", 20, _ms(2))])
    before = _close().body
    first = invocation.runtime().settings.receipt_signing_key  # the tests' bare seed
    assert first is not None
    old = receipt_keys.KeySet.parse(first).current.kid
    rotated = receipt_keys.rotated(first, "the-next-receipt-seed-0123456789abcdefghij", iso_z(NOW))
    with invocation.serving(invocation.runtime().with_settings(receipt_signing_key=rotated)):
        assert call("GET", f"/leaderboards/{BOARD}/periods/{PERIOD}").body == before  # retired: kept as stored
    revoked = receipt_keys.revoked(rotated, old, iso_z(NOW))
    with invocation.serving(invocation.runtime().with_settings(receipt_signing_key=revoked)):
        after = call("GET", f"/leaderboards/{BOARD}/periods/{PERIOD}").body
        jwks = call("GET", "/.well-known/jwks.json").body
        assert _close().body == after  # the close route answers a closed period the same way
    with pytest.raises(jws.Refused, match="revoked kid"):
        jws.verify(before["signature"], jwks)
    assert jws.header_and_payload(after["signature"])[0]["kid"] == jwks["keys"][0]["kid"] != old
    assert jws.verify(after["signature"], jwks) == {k: v for k, v in after.items() if k != "signature"}
    assert {k: v for k, v in after.items() if k != "signature"} == {k: v for k, v in before.items() if k != "signature"}


def iso_z(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")
