"""The proof routes over HTTP against the local stack: the JWKS, a receipt checked against it with `cryptography` and
with PyJWT, and the errors (unknown board, period or player: 404 JSON). Who may fetch a receipt: test_privacy.py."""

from __future__ import annotations

import time

import jwt

from tests.support import jws


def _receipt_when_logged(api, board: str, player: str, bound_s: float = 60.0):
    """The player's receipt, with their player token, once the log (appended from the table's stream) holds the
    player: 409 log catching up until then. Returns as soon as it is there."""
    token = api.post(f"/players/{player}/tokens", {}).json()["token"]
    deadline = time.monotonic() + bound_s
    while True:
        reply = api.get(f"/leaderboards/{board}/players/{player}/receipt", headers={"Authorization": f"Bearer {token}"})
        if reply.status_code != 409 or time.monotonic() > deadline:
            return reply
        assert reply.json()["error"].startswith("log catching up"), reply.text
        time.sleep(0.5)


def test_the_jwks_lists_one_current_ed25519_key(api):
    reply = api.get("/.well-known/jwks.json")
    assert reply.status_code == 200, reply.text
    (key,) = reply.json()["keys"]
    assert {k: key[k] for k in ("kty", "crv", "alg", "use", "status")} == {
        "kty": "OKP",
        "crv": "Ed25519",
        "alg": "EdDSA",
        "use": "sig",
        "status": "current",
    }


def test_a_receipt_verifies_against_the_jwks_and_says_the_logs_standings(api):
    board = "receipts-http"
    created = api.post("/leaderboards", {"board_id": board, "periods": ["all-time"]})
    assert created.status_code == 201, created.text
    for player, score in (("r1", 30), ("r2", 50), ("r3", 40)):
        reply = api.post(f"/leaderboards/{board}/scores", {"player_id": player, "score": score})
        assert reply.status_code == 200, reply.text
    reply = _receipt_when_logged(api, board, "r3")
    assert reply.status_code == 200, reply.text
    published = api.get("/.well-known/jwks.json").json()
    claims = jws.verify(reply.json()["receipt"], published)
    assert (claims["board_id"], claims["period_id"], claims["player_id"]) == (board, "all-time", "r3")
    # a stranger's library agrees: PyJWT with the JWKS's key, EdDSA only. Its check of `iat` against this
    # machine's clock is off: the stack's clock is the tests', which other tests on this worker's stack move ahead.
    key = jwt.PyJWKSet.from_dict(published)[jwt.get_unverified_header(reply.json()["receipt"])["kid"]]
    stranger = jwt.decode(reply.json()["receipt"], key, algorithms=["EdDSA"], options={"verify_iat": False})
    assert stranger == claims
    assert claims["seq"] >= 1 and len(claims["head_hash"]) == 64 and len(claims["player"]) == 64
    if claims["total_players"] == 3:  # the log holds every submission: r3 is second
        assert (claims["rank"], claims["score"]) == (2, 40)
    assert reply.headers["Cache-Control"] == "no-store"


def test_unknown_board_period_or_player_is_a_404_json(api):
    board = "receipts-404"
    assert api.post("/leaderboards", {"board_id": board, "periods": ["all-time"]}).status_code == 201
    for path in (
        "/leaderboards/no-such-board/players/p/receipt",
        f"/leaderboards/{board}/players/nobody/receipt",
        f"/leaderboards/{board}/players/nobody/receipt?period=weekly",
    ):
        token = api.post(f"/players/{path.split('/')[4]}/tokens", {}).json()["token"]
        reply = api.get(path, headers={"Authorization": f"Bearer {token}"})
        assert reply.status_code == 404, (path, reply.text)
        assert reply.headers["Content-Type"].startswith("application/json") and reply.json()["error"]
