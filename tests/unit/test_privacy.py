"""Privacy as promised, through the handlers (moto): a receipt goes to its player's token (which a game
server mints with the game key), never to anyone; a player's held (pending) scores are in no public read, only in
their own token's route (GET /players/{player_id}) and the admin's queue; a board's rule thresholds only with the
admin key. Who may call
which route on the gateway itself (no key, no header): tests/integration/test_privacy.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.data.chain import MemoryChain
from cdk_leaderboard_lambda.domain import hashchain
from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog
from cdk_leaderboard_lambda.operations import submissions as scores_in
from local import invocation
from tests.support import jws
from tests.support.lambda_api import call, create_board, player_token, submit
from tests.support.player_tokens import bearer

BOARD = "vault"
RULES = {"max_score": {"value": 1000, "action": "quarantine"}}


@pytest.fixture
def logged(ddb, clock) -> MemoryChain:
    """ada and bob on the board, their scores in its all-time log (appended as the log's appender would)."""
    store = MemoryChain()
    current = invocation.runtime()
    with invocation.serving(Runtime.build(current.settings, current.clock, current.dynamodb, chain=store)):
        board_catalog.create_board(
            invocation.runtime(), {"board_id": BOARD, "periods": ["all-time"]}, datetime.now(UTC) - timedelta(1)
        )
        config = board_catalog.get_board(invocation.runtime(), BOARD)
        changes = []
        for at, (player, score) in enumerate((("ada", 50), ("bob", 70)), start=1):
            scores_in.submit(invocation.runtime(), config, Submission(player, player, score), invocation.now())
            key = store.player_keys([player], int(invocation.seconds()))[player]
            changes.append(
                (at * 1000, "score", score, hashchain.commitment(key, config.evidence_id, "all-time", player))
            )
        head = store.log_head(config.evidence_id, "all-time")  # this generation's log (item_keys.py)
        records = hashchain.chain(head, changes)
        assert store.append(config.evidence_id, "all-time", head, records, [f"src-{r['seq']}" for r in records], 0)
        yield store


def test_a_player_gets_their_own_receipt_with_their_player_token(logged):
    reply = call("GET", f"/leaderboards/{BOARD}/players/ada/receipt", headers=bearer(player_token("ada")))
    assert reply.status == 200, reply.body
    assert "no-store" in reply.headers["Cache-Control"]
    claims = jws.verify(reply.body["receipt"], call("GET", "/.well-known/jwks.json").body)
    assert (claims["player_id"], claims["rank"], claims["score"]) == ("ada", 2, 50)
    limited = player_token("ada", boards=[BOARD])  # a token limited to boards that list this one
    assert call("GET", f"/leaderboards/{BOARD}/players/ada/receipt", headers=bearer(limited)).status == 200


@pytest.mark.parametrize(
    ("credential", "status"),
    [
        ({}, 401),  # nobody's: before this change, any caller got the receipt
        ({"Authorization": "Basic YWRhOmFkYQ=="}, 401),
        ({"x-api-key": "unit-test-game-key-0123456789"}, 401),  # the game key is the server route's
        ("bob", 403),  # another player's token
        ("limited", 403),  # ada's, limited to another board
        ("run", 401),  # a run token is not a player token
    ],
)
def test_no_one_else_gets_a_players_receipt(logged, credential, status):
    if credential == "bob":
        credential = bearer(player_token("bob"))
    elif credential == "limited":
        assert create_board("elsewhere").status == 201
        credential = bearer(player_token("ada", boards=["elsewhere"]))
    elif credential == "run":
        assert create_board("client-board", submissions="client").status == 201
        run = call("POST", "/leaderboards/client-board/runs", headers=bearer(player_token("ada"))).body
        credential = bearer(run["run_token"])
    reply = call("GET", f"/leaderboards/{BOARD}/players/ada/receipt", headers=credential)
    assert reply.status == status, reply.body
    assert "receipt" not in reply.body


def test_a_game_server_gets_any_players_receipt_by_minting_that_players_token(logged):
    """The game key mints player tokens (POST /players/{player_id}/tokens): a game server can always act for a
    player, so it needs no receipt route of its own."""
    token = player_token("bob")  # lambda_api sends the game key, as API Gateway vouched it
    reply = call("GET", f"/leaderboards/{BOARD}/players/bob/receipt", headers=bearer(token))
    assert reply.status == 200, reply.body
    assert jws.verify(reply.body["receipt"], call("GET", "/.well-known/jwks.json").body)["rank"] == 1


def test_a_player_token_limited_to_a_board_that_does_not_exist_is_refused(ddb, clock):
    """A token names the boards it may start runs on: an unknown one is a 404 naming it, and no token is minted
    (it used to be minted, and fail only at the run's start). A token naming no board is for every client board."""
    assert create_board("real").status == 201
    refused = call("POST", "/players/ada/tokens", body={"boards": ["real", "no-such-board"]})
    assert (refused.status, refused.body) == (404, {"error": "no leaderboard no-such-board"})
    assert call("POST", "/players/ada/tokens", body={"boards": ["real", "global"]}).status == 201
    assert call("POST", "/players/ada/tokens", body={}).status == 201


def test_the_public_lookup_shows_no_pending_score_only_the_players_token_and_the_admin_do(ddb, clock, settle):
    """A held score used to be in the public, edge-cached lookup of any player (its 200 and its 404)."""
    assert create_board("q", rules=RULES).status == 201
    assert submit("q", "ada", 500).status == 200
    assert submit("q", "ada", 5000).status == 202  # held: ada is on the board with 500 and waits with 5000
    held = submit("q", "cy", 7777)  # held: cy is on no list at all
    assert held.status == 202
    settle()
    for player, status in (("ada", 200), ("cy", 404)):
        public = call("GET", f"/leaderboards/q/players/{player}")
        assert public.status == status and "pending" not in public.body, public.body
        assert "5000" not in str(public.body) and "7777" not in str(public.body)

    own = call("GET", "/players/cy", headers=bearer(player_token("cy")))
    assert own.status == 200, own.body
    assert [(p["board_id"], p["pending_id"], p["score"], p["rule"]) for p in own.body["pending"]] == [
        ("q", held.body["pending_id"], 7777, "max_score")
    ]
    assert "no-store" in own.headers["Cache-Control"]
    assert create_board("other").status == 201
    limited = call("GET", "/players/cy", headers=bearer(player_token("cy", boards=["other"])))
    assert limited.status == 200 and limited.body["pending"] == []  # a token limited to boards sees theirs only
    for credential, status in (({}, 401), (bearer(player_token("ada")), 403)):
        refused = call("GET", "/players/cy", headers=credential)
        assert refused.status == status and "pending" not in refused.body, refused.body

    # the admin: the queue, whole or one player's (a page at a time, the cursor bound to that player)
    mine = call("GET", "/leaderboards/q/pending", query={"player_id": "ada", "limit": 1})
    assert [(p["player_id"], p["score"]) for p in mine.body["pending"]] == [("ada", 5000)]
    assert "next_cursor" not in mine.body and mine.body["rules"] == RULES
    everyone = call("GET", "/leaderboards/q/pending", query={"limit": 1})
    assert len(everyone.body["pending"]) == 1 and everyone.body["next_cursor"]
    crossed = call("GET", "/leaderboards/q/pending", query={"player_id": "ada", "cursor": everyone.body["next_cursor"]})
    assert crossed.status == 422, crossed.body


def test_rule_thresholds_are_the_admin_keys_only(ddb):
    """GET /leaderboards/{board} and the board list answer anyone (edge-cached): no rules; the admin's review queue,
    and the admin's create and change answers, show them."""
    created = create_board("q", rules=RULES)
    assert created.status == 201 and created.body["rules"] == RULES
    shown = call("GET", "/leaderboards/q")
    assert shown.status == 200 and "rules" not in shown.body and "1000" not in str(shown.body)
    listed = call("GET", "/leaderboards", query={"limit": 100})
    assert [b for b in listed.body["leaderboards"] if "rules" in b] == []
    queue = call("GET", "/leaderboards/q/pending")
    assert queue.status == 200 and queue.body == {"pending": [], "rules": RULES}
    assert "no-store" in queue.headers["Cache-Control"]  # the game key or none: tests/integration/test_privacy.py
    changed = call("PATCH", "/leaderboards/q", body={"rules": {}})
    assert changed.status == 200 and changed.body["rules"] == {}
