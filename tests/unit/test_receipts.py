"""Receipts (GET .../players/{player_id}/receipt, with the player's token; who may fetch them: test_privacy.py) and
the JWKS, under moto with the log in memory: the standings replayed from the log, the signature checked with
`cryptography` against GET /.well-known/jwks.json, the errors, and the replay's bound per request. The log's records
are appended here as the log's appender would (hashchain.chain with each player's commitment), so each test says
exactly what the log holds."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.data.chain import MemoryChain
from cdk_leaderboard_lambda.domain import hashchain
from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog, receipts
from cdk_leaderboard_lambda.operations import submissions as scores_in
from cdk_leaderboard_lambda.operations.receipts import Standings
from local import invocation
from tests.support import jws
from tests.support.lambda_api import call

NOW = datetime.now(UTC)
BOARD = "cup"


@pytest.fixture
def chain(ddb, clock) -> MemoryChain:
    """The runtime serving the test, with its log in memory."""
    store = MemoryChain()
    current = invocation.runtime()
    with invocation.serving(Runtime.build(current.settings, current.clock, current.dynamodb, chain=store)):
        board_catalog.create_board(
            invocation.runtime(), {"board_id": BOARD, "periods": ["all-time"]}, NOW - timedelta(days=1)
        )
        yield store


def _commit(store: MemoryChain, player: str, period: str = "all-time") -> str:
    return hashchain.commitment(
        store.player_keys([player], int(invocation.seconds()))[player], _evidence(), period, player
    )


def _evidence() -> str:
    """The board's id as its generation's log and commitments name it (item_keys.py)."""
    return board_catalog.get_board(invocation.runtime(), BOARD).evidence_id


def _log(store: MemoryChain, *changes: tuple[str, str, int | None, int]) -> None:
    """Append (player, kind, score, at ms) records to the board's all-time log."""
    head = store.log_head(_evidence(), "all-time")
    records = hashchain.chain(head, [(at, kind, score, _commit(store, p)) for p, kind, score, at in changes])
    assert store.append(_evidence(), "all-time", head, records, [f"src-{r['seq']}" for r in records], 0)


def _submit(player: str, score: int) -> None:
    scores_in.submit(
        invocation.runtime(),
        board_catalog.get_board(invocation.runtime(), BOARD),
        Submission(player, player, score),
        invocation.now(),
    )


def _receipt(player: str, **query) -> tuple[int, dict]:
    token = call("POST", f"/players/{player}/tokens", body={}).body["token"]
    headers = {"Authorization": f"Bearer {token}"}
    reply = call("GET", f"/leaderboards/{BOARD}/players/{player}/receipt", query=query or None, headers=headers)
    return reply.status, reply.body


def test_a_receipt_is_the_logs_standings_signed(chain):
    """Three players, one improving: rank, score and total are the log's at its head, and the JWS verifies with
    the published keys (cryptography)."""
    for player, score in (("ada", 50), ("bob", 70), ("cy", 60)):
        _submit(player, score)
    _log(chain, ("ada", "score", 50, 1000), ("bob", "score", 70, 2000), ("cy", "score", 60, 3000))
    _log(chain, ("ada", "score", 80, 4000))
    status, body = _receipt("cy")
    assert status == 200, body
    keys = call("GET", "/.well-known/jwks.json").body
    claims = jws.verify(body["receipt"], keys)
    head = chain.log_head(_evidence(), "all-time")
    assert head is not None
    assert claims == {
        "board_id": BOARD,
        "generation": board_catalog.get_board(invocation.runtime(), BOARD).generation,
        "period_id": "all-time",
        "player_id": "cy",
        "player": _commit(chain, "cy"),
        "order": "desc",
        "rank": 3,
        "score": 60,
        "total_players": 3,
        "at": claims["at"],
        "iat": claims["iat"],
        "seq": 4,
        "head_hash": head[1],
    }
    assert claims["at"].endswith("Z") and isinstance(claims["iat"], int)


def test_the_receipt_follows_the_log_not_the_entries(chain):
    """A newer score in the entries than in the log: the receipt says what the log holds (seq 1)."""
    _submit("ada", 10)
    _log(chain, ("ada", "score", 5, 1000))
    _submit("ada", 20)
    claims = jws.header_and_payload(_receipt("ada")[1]["receipt"])[1]
    assert (claims["score"], claims["seq"]) == (5, 1)


def test_no_receipt_for_a_player_not_on_the_board(chain):
    status, body = _receipt("nobody")
    assert status == 404 and "no player nobody" in body["error"]
    assert chain.player_keys(["nobody"], 0, create=False) == {}  # and no key was made for them


def test_unknown_board_and_period_are_404(chain):
    token = call("POST", "/players/ada/tokens", body={}).body["token"]
    headers = {"Authorization": f"Bearer {token}"}
    assert call("GET", "/leaderboards/none/players/ada/receipt", headers=headers).status == 404
    status, body = _receipt("ada", period="weekly")  # a kind the board does not keep
    assert status == 404, body


def test_an_entry_not_yet_in_the_log_is_409_log_catching_up(chain):
    _submit("ada", 10)
    status, body = _receipt("ada")
    assert status == 409 and body["error"].startswith("log catching up")
    assert body["log_seq"] == 0


def test_a_hidden_player_gets_no_receipt(chain):
    _submit("ada", 10)
    _log(chain, ("ada", "score", 10, 1000), ("ada", "hide", 10, 2000))
    status, body = _receipt("ada")
    assert status == 404 and "hidden" in body["error"]


def test_the_jwks_route_lists_the_current_key(chain):
    reply = call("GET", "/.well-known/jwks.json")
    assert reply.status == 200
    (key,) = reply.body["keys"]
    assert key["status"] == "current" and key["crv"] == "Ed25519"
    assert "max-age=60" in reply.headers["Cache-Control"]


def _record(seq: int, prev: str, kind: str, player: str, score: int | None, at: str) -> dict:
    return {"seq": seq, "at": at, "kind": kind, "score": score, "player": player, "prev_hash": prev, "hash": f"h{seq}"}


def _replay(*changes: tuple[str, str, int | None, str]) -> Standings:
    standings = Standings()
    for kind, player, score, at in changes:
        standings.apply(_record(standings.seq + 1, standings.head_hash, kind, player, score, at))
    return standings


def test_replay_rules():
    """score/approve set, remove/erase delete, hide/show move out of and back into the standings; ties by time."""
    s = _replay(
        ("score", "a", 10, "t1"),
        ("score", "b", 10, "t0"),
        ("approve", "c", 30, "t2"),
        ("score", "d", 5, "t3"),
        ("hide", "c", 30, "t4"),
    )
    assert (s.rank_of("b", "desc"), s.rank_of("a", "desc"), s.rank_of("d", "desc")) == (1, 2, 3)
    assert s.rank_of("c", "desc") is None and s.total() == 3
    s.apply(_record(6, s.head_hash, "show", "c", 30, "t5"))
    assert s.rank_of("c", "desc") == 1 and s.rank_of("d", "asc") == 1 and s.total() == 4
    s.apply(_record(7, s.head_hash, "remove", "b", 10, "t6"))
    s.apply(_record(8, s.head_hash, "erase", "c", 30, "t7"))
    assert s.total() == 2 and s.rank_of("a", "desc") == 1


def test_replay_refuses_a_broken_chain():
    s = _replay(("score", "a", 1, "t1"))
    with pytest.raises(receipts.LogBroken):
        s.apply(_record(3, s.head_hash, "score", "a", 2, "t2"))  # seq 2 missing
    with pytest.raises(receipts.LogBroken):
        s.apply(_record(2, "not-the-head", "score", "a", 2, "t2"))


def test_a_long_replay_goes_on_across_requests(chain, monkeypatch):
    """Past its budget a request answers 409 (log catching up) with where the replay stands; the next one goes on
    from there and reads only the records it has not read (counted pages)."""
    monkeypatch.setattr(receipts, "REPLAY_BUDGET_RECORDS", 100)
    players = [f"p{i:03d}" for i in range(250)]
    for player in ("p000", "p249"):  # the two asked for (the others are only in the log)
        _submit(player, int(player[1:]))
    for start in range(0, 250, 49):
        _log(chain, *((p, "score", int(p[1:]), 1000 + int(p[1:])) for p in players[start : start + 49]))
    pages: list[int] = []
    real_page = chain.page

    def counted(board_id, period_id, after_seq, limit):
        pages.append(after_seq)
        return real_page(board_id, period_id, after_seq, limit)

    monkeypatch.setattr(chain, "page", counted)
    status, body = _receipt("p000")
    assert status == 409 and (body["replayed_seq"], body["head_seq"]) == (100, 250)
    assert _receipt("p000")[0] == 409
    status, body = _receipt("p000")
    assert status == 200
    assert jws.header_and_payload(body["receipt"])[1]["rank"] == 250
    assert pages == [0, 100, 200]
    assert _receipt("p249")[0] == 200 and pages == [0, 100, 200]  # warm: no record read again
