"""Rules a cheater cannot ratchet, over HTTP on the local stack: one player token opens 30 runs at once
(concurrently) and submits on each twice the best so far. With the defaults (a client board with relative rules:
one open run, 6 a minute) and with a board that raises both as far as they go (only the standing stored at each
run's start then stops it), nothing past one step is taken; run after run, the climb is the one
docs/FAKE_SCORES.md states, and an honest player is never refused."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.support import clock
from tests.support.player_tokens import bearer, player_token

RELATIVE = {"max_improvement": {"value": 2, "action": "reject"}, "max_over_leader": {"value": 100, "action": "reject"}}
DEFAULTS, LOOSE = "rt-defaults", "rt-loose"
HONEST_START = 10
RUNS_A_MINUTE = 3  # the default limit of 6 a minute (docs/FAKE_SCORES.md), a start and a submission per run


@pytest.fixture(scope="module")
def boards(stack, api):
    stack.reset_tables()
    made = api.post("/leaderboards", {"board_id": DEFAULTS, "submissions": "client", "rules": RELATIVE})
    assert made.status_code == 201, made.text


def test_a_client_board_with_relative_rules_shows_its_defaults(api, boards):
    shown = api.get(f"/leaderboards/{DEFAULTS}").json()
    assert (shown.get("max_open_runs"), shown.get("max_submissions_per_minute")) == (1, 6), shown


def start(api, board: str, token: str) -> requests.Response:
    return api.post(f"/leaderboards/{board}/runs", key=None, headers=bearer(token))


def send(api, board: str, player: str, score: int, run: dict) -> requests.Response:
    body = {"player_id": player, "score": score}
    path = f"/leaderboards/{board}/runs/{run['run_id']}/score"
    return api.post(path, body, key=None, headers=bearer(run["run_token"]))


def honest_start(api, stack, board: str, player: str) -> str:
    clock.next_minute(stack)
    token = player_token(api, player, ttl_seconds=3600)
    run = start(api, board, token)
    assert run.status_code == 201, run.text
    assert send(api, board, player, HONEST_START, run.json()).status_code == 200
    return token


def ratchet(api, board: str, player: str, token: str) -> tuple[int, list[int], list[int]]:
    """30 runs started at once, then on each started run twice the best taken so far: (best, starts, submissions)."""
    with ThreadPoolExecutor(max_workers=30) as pool:
        opened = list(pool.map(lambda _: start(api, board, token), range(30)))
    best, sent = HONEST_START, []
    for reply in opened:
        if reply.status_code == 201:
            answer = send(api, board, player, 2 * best, reply.json())
            sent.append(answer.status_code)
            best = 2 * best if answer.status_code == 200 else best
    return best, [r.status_code for r in opened], sent


def test_thirty_runs_at_once_climb_one_step_at_most_with_the_defaults(api, stack, boards):
    token = honest_start(api, stack, DEFAULTS, "mallory")
    best, starts, sent = ratchet(api, DEFAULTS, "mallory", token)
    assert best <= 2 * HONEST_START, (starts, sent)  # before these rules: 10 x 2^30
    assert set(starts) <= {201, 429, 503} and starts.count(201) <= 4, starts  # 6 a minute, 2 were the honest run
    assert sent.count(200) <= 1 and set(sent) <= {200, 403, 422, 429}, sent
    on_board = {e["player_id"]: e["score"] for e in api.get(f"/leaderboards/{DEFAULTS}/top").json()["entries"]}
    assert on_board["mallory"] <= 2 * HONEST_START


def test_the_standing_at_a_runs_start_stops_it_with_ten_open_runs_and_no_limit(api, stack, boards):
    loose = {"board_id": LOOSE, "submissions": "client", "rules": RELATIVE, "max_open_runs": 10}
    made = api.post("/leaderboards", {**loose, "max_submissions_per_minute": 10_000})
    assert made.status_code == 201, made.text
    token = honest_start(api, stack, LOOSE, "mallory")
    best, starts, sent = ratchet(api, LOOSE, "mallory", token)
    assert best == 2 * HONEST_START, (starts, sent)
    assert set(starts) <= {201, 503} and set(sent) <= {200, 403, 422}, (starts, sent)
    assert len(sent) - sent.count(403) <= 10  # at most max_open_runs of them still open: the rest were ended


def test_run_after_run_the_climb_is_the_documented_one_and_no_more(api, stack, boards):
    token = honest_start(api, stack, DEFAULTS, "trudy")
    best, minutes = HONEST_START, 2
    for _ in range(minutes):
        clock.next_minute(stack)
        while (run := start(api, DEFAULTS, token)).status_code == 201:
            reply = send(api, DEFAULTS, "trudy", 2 * best, run.json())
            assert reply.status_code == 200, reply.text
            best *= 2
        assert run.status_code == 429, run.text
    assert best == HONEST_START * 2 ** (RUNS_A_MINUTE * minutes)  # 640


def test_an_honest_player_is_never_refused(api, stack, boards):
    """Three runs a minute, each half again the last, and a run abandoned for a new one."""
    token = honest_start(api, stack, DEFAULTS, "ada")
    clock.next_minute(stack)
    score = HONEST_START
    for _ in range(RUNS_A_MINUTE):
        run = start(api, DEFAULTS, token)
        assert run.status_code == 201, run.text
        score = score * 3 // 2
        assert send(api, DEFAULTS, "ada", score, run.json()).status_code == 200
    clock.next_minute(stack)
    abandoned, again = start(api, DEFAULTS, token), start(api, DEFAULTS, token)
    assert abandoned.status_code == 201 and again.status_code == 201
    assert send(api, DEFAULTS, "ada", score + 1, again.json()).status_code == 200
    ended = send(api, DEFAULTS, "ada", score + 2, abandoned.json())
    assert ended.status_code == 403 and "ended" in ended.json()["error"], ended.text
