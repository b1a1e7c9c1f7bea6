"""Client submissions over HTTP: a player token from the game key, a run from the player token, one score
from the run token, for its own player and board only. Every bad token gets its status and writes nothing (every
table compared before and after); a replay is refused, and of concurrent uses of one run exactly one is taken."""

from __future__ import annotations

import os
import threading

import jwt
import pytest
import requests

from cdk_leaderboard_lambda.domain import tokens
from tests.support import clock
from tests.support.player_tokens import bearer, player_token

CLIENT, OTHER_CLIENT, SERVER = "cs-client", "cs-client-2", "cs-server"


@pytest.fixture(scope="module")
def boards(stack, api):
    stack.reset_tables()
    assert api.post("/leaderboards", {"board_id": CLIENT, "submissions": "client"}).status_code == 201
    assert api.post("/leaderboards", {"board_id": OTHER_CLIENT, "submissions": "client"}).status_code == 201
    assert api.post("/leaderboards", {"board_id": SERVER}).status_code == 201
    assert api.get(f"/leaderboards/{SERVER}").json()["submissions"] == "server"
    return CLIENT, SERVER


def start_run(api, board: str, token: str) -> requests.Response:
    return api.post(f"/leaderboards/{board}/runs", key=None, headers=bearer(token))


def run_token(api, player: str, board: str = CLIENT) -> str:
    reply = start_run(api, board, player_token(api, player))
    assert reply.status_code == 201, reply.text
    return reply.json()["run_token"]


def run_path(board: str, run_id: str) -> str:
    return f"/leaderboards/{board}/runs/{run_id}/score"


def submit(api, token: str, player: str, score: int, board: str = CLIENT) -> requests.Response:
    """The run token's score on its run's own route (the token names its run)."""
    run_id = jwt.decode(token, options={"verify_signature": False})["run"]
    return api.post(run_path(board, run_id), {"player_id": player, "score": score}, key=None, headers=bearer(token))


def test_a_run_takes_one_score_for_its_own_player_and_the_game_key_still_submits(api, boards, table_state):
    token = player_token(api, "ada", boards=[CLIENT], ttl_seconds=600)
    run = start_run(api, CLIENT, token)
    assert run.status_code == 201, run.text
    body = run.json()
    assert set(body) == {"run_id", "run_token", "seed", "started_at", "expires_at"}
    assert isinstance(body["seed"], int) and run.headers["Cache-Control"] == "no-store"

    before = table_state()
    other = submit(api, body["run_token"], "bob", 50)
    assert other.status_code == 403 and "another player" in other.json()["error"]
    assert table_state() == before

    accepted = submit(api, body["run_token"], "ada", 42)
    assert accepted.status_code == 200, accepted.text
    assert accepted.json()["periods"][0]["score"] == 42

    before = table_state()
    replay = submit(api, body["run_token"], "ada", 43)
    assert replay.status_code == 403 and "taken its submission already" in replay.json()["error"]
    assert table_state() == before

    by_server = api.post(f"/leaderboards/{CLIENT}/scores", {"player_id": "bob", "score": 7})  # the game key
    assert by_server.status_code == 200, by_server.text
    assert [e["player_id"] for e in api.get(f"/leaderboards/{CLIENT}/top").json()["entries"]] == ["ada", "bob"]


def _signed(claims: dict, key: str | None = None, kid: str = tokens.LOCAL_KID) -> str:
    """A token signed as the stack signs (its local key is in this process's environment), or with another key."""
    return jwt.encode(claims, key or os.environ["TOKEN_SIGNING_KEY"], algorithm="HS256", headers={"kid": kid})


def test_every_bad_token_gets_its_status_and_writes_nothing(api, stack, boards, table_state):
    now = int(stack.clock.now().timestamp())
    run = start_run(api, CLIENT, player_token(api, "cy")).json()
    claims = jwt.decode(run["run_token"], options={"verify_signature": False})
    header, payload, signature = run["run_token"].split(".")
    player = player_token(api, "cy")
    for_server_board = start_run(api, SERVER, player)
    assert for_server_board.status_code == 403 and "submissions: server" in for_server_board.json()["error"]
    limited = player_token(api, "cy", boards=[OTHER_CLIENT])
    assert start_run(api, CLIENT, limited).status_code == 403

    cases = {
        "no credentials": (None, "cy", CLIENT, 401),  # API Gateway's: the function is not invoked
        "not a token": ("not-a-token", "cy", CLIENT, 401),
        "altered": (f"{header}.{payload}.{signature[:-4]}AAAA", "cy", CLIENT, 401),
        "player token as run token": (player, "cy", CLIENT, 401),
        "expired": (_signed({**claims, "iat": now - 7200, "exp": now - 3600}), "cy", CLIENT, 401),
        "unknown kid": (_signed(claims, key="k" * 40, kid="elsewhere"), "cy", CLIENT, 401),
        "another issuer": (_signed({**claims, "iss": "another-deployment"}), "cy", CLIENT, 401),
        "wrong player": (run["run_token"], "dee", CLIENT, 403),
        "wrong board": (run["run_token"], "cy", OTHER_CLIENT, 403),
        "server board": (run["run_token"], "cy", SERVER, 403),
        "forged run id": (_signed({**claims, "run": "no-such-run"}), "cy", CLIENT, 403),
        # (another player's: a second run of cy's would end the first, max_open_runs being 1)
        "another run's token": (
            start_run(api, CLIENT, player_token(api, "dee")).json()["run_token"],
            "dee",
            CLIENT,
            403,
        ),
    }
    before = table_state()
    for name, (token, player_id, board, status) in cases.items():
        headers = bearer(token) if token else {}
        body = {"player_id": player_id, "score": 9}
        reply = api.post(run_path(board, run["run_id"]), body, key=None, headers=headers)
        assert reply.status_code == status, (name, reply.text)
        assert reply.json()["error"], name
        if status == 401:
            assert reply.headers["WWW-Authenticate"].startswith("Bearer"), name
    run_as_player = api.post(f"/leaderboards/{CLIENT}/runs", key=None, headers=bearer(run["run_token"]))
    assert run_as_player.status_code == 401 and "not a player token" in run_as_player.json()["error"]
    assert api.post(f"/leaderboards/{CLIENT}/runs", key=None).status_code == 401  # API Gateway's, as above
    assert table_state() == before
    assert submit(api, run["run_token"], "cy", 9).status_code == 200  # the run, refused all along, is still unused


def test_two_concurrent_uses_of_one_run_exactly_one_is_accepted(api, boards):
    token = run_token(api, "eve")
    barrier, statuses = threading.Barrier(6), []

    def use(score: int) -> None:
        barrier.wait()
        statuses.append(submit(api, token, "eve", score).status_code)

    threads = [threading.Thread(target=use, args=(score,)) for score in range(1, 7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200, 403, 403, 403, 403, 403]
    assert api.get(f"/leaderboards/{CLIENT}/players/eve").status_code == 200


def test_a_run_start_counts_against_the_players_limit(api, stack, boards):
    api.post("/leaderboards", {"board_id": "cs-limited", "submissions": "client", "max_submissions_per_minute": 2})
    token = player_token(api, "fay")
    clock.next_minute(stack)  # the three requests fall in one minute (the limit's window): a fresh one
    statuses = [start_run(api, "cs-limited", token).status_code for _ in range(3)]
    assert statuses == [201, 201, 429]


def test_player_token_requests_are_checked(api, boards):
    assert api.post("/players/ada/tokens", {"ttl_seconds": 86401}).status_code == 400
    assert api.post("/players/ada/tokens", {"boards": []}).status_code == 400
    assert api.post("/players/ada/tokens", {"surprise": 1}).status_code == 400
    assert api.post("/players/ada/tokens", {}, key=None).status_code == 403
    reply = api.post("/players/ada/tokens", {"ttl_seconds": 60})
    assert reply.status_code == 201 and set(reply.json()) == {"token", "expires_at"}
    # A token limited to boards names boards that exist: one that does not is a 404 naming it, no token minted
    unknown = api.post("/players/ada/tokens", {"boards": [CLIENT, "cs-no-such-board"]})
    assert (unknown.status_code, unknown.json()) == (404, {"error": "no leaderboard cs-no-such-board"})
    assert api.post("/players/ada/tokens", {"boards": [CLIENT, SERVER]}).status_code == 201
