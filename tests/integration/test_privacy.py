"""Privacy as promised, over HTTP against the local stack (the local gateway answers keyed routes as API
Gateway does; the functions compare key values with the key classes' secrets): receipts and pending scores need
the right credential, and a board's rule thresholds the admin key. Each of these was public before."""

from __future__ import annotations

import time
import uuid

import pytest

from tests.support import jws
from tests.support.player_tokens import bearer, player_token

from .stack_config import ADMIN_KEY, API_KEY

RULES = {"max_score": {"value": 1000, "action": "quarantine"}}


@pytest.fixture(scope="module")
def board(api) -> str:
    """A board with a quarantine rule: ada and bob ranked, ada and cy with a score held back."""
    board_id = f"privacy-{uuid.uuid4().hex[:8]}"
    created = api.post("/leaderboards", {"board_id": board_id, "periods": ["all-time"], "rules": RULES})
    assert created.status_code == 201, created.text
    for player, score, status in (("ada", 500, 200), ("bob", 700, 200), ("ada", 5000, 202), ("cy", 7777, 202)):
        reply = api.post(f"/leaderboards/{board_id}/scores", {"player_id": player, "score": score})
        assert reply.status_code == status, reply.text
    return board_id


def _when_logged(get, bound_s: float = 60.0):
    """The answer once the log (appended from the table's stream) holds the player: 409 until then."""
    deadline = time.monotonic() + bound_s
    while (reply := get()).status_code == 409 and time.monotonic() < deadline:
        time.sleep(0.5)
    return reply


def _run_token(api, player: str) -> str:
    board_id = "privacy-client"
    api.post("/leaderboards", {"board_id": board_id, "submissions": "client"})  # 201, or 409 once it exists
    run = api.post(f"/leaderboards/{board_id}/runs", key=None, headers=bearer(player_token(api, player)))
    assert run.status_code == 201, run.text
    return run.json()["run_token"]


def test_a_receipt_goes_to_its_players_token_and_to_no_one_else(api, board):
    """The player's token: the player's, or a game server's that minted it with the game key."""
    path = f"/leaderboards/{board}/players/ada/receipt"
    own = _when_logged(lambda: api.get(path, headers=bearer(player_token(api, "ada"))))
    assert own.status_code == 200, own.text
    assert own.headers["Cache-Control"] == "no-store"
    keys = api.get("/.well-known/jwks.json").json()
    assert jws.verify(own.json()["receipt"], keys)["player_id"] == "ada"

    refused = {
        "nothing": api.get(path),  # before: 200, to anyone
        "bob's token": api.get(path, headers=bearer(player_token(api, "bob"))),
        "the game key": api.get(path, key=API_KEY),
        "the admin key": api.get(path, key=ADMIN_KEY),
        "a run token": api.get(path, headers=bearer(_run_token(api, "ada"))),
    }
    for what, reply in refused.items():
        assert reply.status_code in (400, 401, 403), (what, reply.status_code, reply.text)
        assert "receipt" not in reply.json(), what
    assert refused["bob's token"].status_code == 403


def test_pending_scores_are_in_no_public_read_only_the_players_token_and_the_admins(api, board):
    for player, status in (("ada", 200), ("cy", 404)):  # before: both carried the held score, edge-cached
        public = api.get(f"/leaderboards/{board}/players/{player}")
        assert public.status_code == status, public.text
        assert "pending" not in public.json() and "5000" not in public.text and "7777" not in public.text

    path = "/players/cy"
    own = api.get(path, headers=bearer(player_token(api, "cy")))
    assert own.status_code == 200, own.text
    assert [(p["board_id"], p["score"], p["rule"]) for p in own.json()["pending"]] == [(board, 7777, "max_score")]
    assert own.headers["Cache-Control"] == "no-store"
    for what, reply in {
        "nothing": api.get(path),
        "ada's token": api.get(path, headers=bearer(player_token(api, "ada"))),
        "the game key": api.get(path, key=API_KEY),
    }.items():
        assert reply.status_code in (400, 401, 403), (what, reply.status_code, reply.text)
        assert "pending" not in reply.json(), what

    queue = api.get(f"/leaderboards/{board}/pending?player_id=ada", key=ADMIN_KEY)
    assert queue.status_code == 200, queue.text
    assert [(p["player_id"], p["score"]) for p in queue.json()["pending"]] == [("ada", 5000)]
    assert queue.json()["rules"] == RULES
    for key in (None, API_KEY):
        assert api.get(f"/leaderboards/{board}/pending?player_id=ada", key=key).status_code == 403


def test_rule_thresholds_need_the_admin_key(api, board):
    shown = api.get(f"/leaderboards/{board}")
    assert shown.status_code == 200 and "rules" not in shown.json(), shown.text  # before: the thresholds, cached
    listed = api.get("/leaderboards?limit=100").json()["leaderboards"]
    assert [b["board_id"] for b in listed if "rules" in b] == []
    queue = api.get(f"/leaderboards/{board}/pending", key=ADMIN_KEY)  # the review queue: the rules at work
    assert queue.status_code == 200 and queue.json()["rules"] == RULES, queue.text
    assert queue.headers["Cache-Control"] == "no-store"
    for key in (None, API_KEY):  # no key: the gateway's 403; the game key: the function's, by value
        refused = api.get(f"/leaderboards/{board}/pending", key=key)
        assert refused.status_code == 403 and "rules" not in refused.json(), refused.text
