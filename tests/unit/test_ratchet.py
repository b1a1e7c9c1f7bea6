"""Rules a cheater cannot ratchet: one player token opens many runs at once and doubles the score on each.
The relative rules judge a run against the standing at its start, a player holds max_open_runs open runs (default
1, one more ends the oldest), and a client board with relative rules has a default per-player limit: the climb is
the one docs/FAKE_SCORES.md states, and an honest player is never refused."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.support.lambda_api import call, create_board, player_token, run_submit
from tests.support.player_tokens import bearer

RELATIVE = {"max_improvement": {"value": 2, "action": "reject"}, "max_over_leader": {"value": 100, "action": "reject"}}
HONEST_START = 10
RELATIVE_RULES_PER_MINUTE = 6  # the default limit docs/FAKE_SCORES.md states (limits.RELATIVE_RULES_PER_MINUTE)
RUNS_A_MINUTE = RELATIVE_RULES_PER_MINUTE // 2  # a run costs its start and its submission


def start(board: str, token: str):
    return call("POST", f"/leaderboards/{board}/runs", headers=bearer(token))


def send(board: str, player: str, score: int, run: dict):
    return run_submit(board, player, score, run)


@pytest.fixture
def minute(clock):
    """The clock at the start of a calendar minute (the per-player limit's window)."""
    now = clock.now()
    clock.set(now.replace(second=0, microsecond=0) + timedelta(minutes=1))
    return clock


def honest_start(board: str, player: str, clock) -> str:
    token = player_token(player)
    run = start(board, token).body
    clock.advance(5)
    assert send(board, player, HONEST_START, run).status == 200
    return token


def ratchet(board: str, player: str, token: str, best: int) -> tuple[int, list[int]]:
    """30 runs opened at once, then on each run a score twice the best accepted so far: (the best, the statuses)."""
    opened = [start(board, token) for _ in range(30)]
    statuses = [r.status for r in opened]
    for reply in opened:
        if reply.status == 201:
            sent = send(board, player, 2 * best, reply.body)
            statuses.append(sent.status)
            if sent.status == 200:
                best = 2 * best
    return best, statuses


def test_thirty_runs_opened_at_once_climb_one_step_at_most_with_the_defaults(in_memory, minute):
    assert create_board("ratchet", submissions="client", rules=RELATIVE).status == 201
    token = honest_start("ratchet", "mallory", minute)
    best, statuses = ratchet("ratchet", "mallory", token, HONEST_START)
    assert best <= 2 * HONEST_START, statuses  # today: 10 x 2^30
    assert 429 in statuses and set(statuses) <= {201, 403, 422, 429}


def test_the_standing_at_a_runs_start_judges_it_even_with_many_open_runs_and_no_limit(in_memory, minute):
    """Open runs and the limit raised as far as they go: only the run's baseline stops the ratchet."""
    body = {"submissions": "client", "rules": RELATIVE, "max_open_runs": 10, "max_submissions_per_minute": 10_000}
    assert create_board("loose", **body).status == 201
    token = honest_start("loose", "mallory", minute)
    best, statuses = ratchet("loose", "mallory", token, HONEST_START)
    assert best == 2 * HONEST_START, statuses  # one run's step over the standing all 30 started from
    assert statuses.count(403) == 20 and statuses.count(422) == 9  # 20 runs ended by later ones


def test_the_fastest_climb_is_the_documented_one(in_memory, minute):
    """Run after run, each doubling the best, as fast as the defaults let: HONEST_START x 2^(3 N) after N minutes
    (docs/FAKE_SCORES.md), and not one step more."""
    assert create_board("fast", submissions="client", rules=RELATIVE).status == 201
    token = honest_start("fast", "mallory", minute)
    minute.advance(60)  # a fresh window: the climb's N minutes start here
    best, minutes = HONEST_START, 4
    for _ in range(minutes):
        while (run := start("fast", token)).status == 201:
            reply = send("fast", "mallory", 2 * best, run.body)
            assert reply.status == 200, reply.body
            best *= 2
        assert run.status == 429  # past the minute's steps: the next start waits for the next minute
        minute.advance(60)
    assert best == HONEST_START * 2 ** (RUNS_A_MINUTE * minutes)  # 10 x 2^12 = 40,960


def test_an_honest_player_is_never_refused(in_memory, minute):
    """A run every 20 s, each beating the last by half, another player leading; one run abandoned for a new one."""
    assert create_board("honest", submissions="client", rules=RELATIVE).status == 201
    lea_run = start("honest", player_token("lea")).body
    assert send("honest", "lea", 1000, lea_run).status == 200  # a first score on an empty board: no standing
    token = honest_start("honest", "ada", minute)
    minute.advance(60)
    score = HONEST_START
    for _ in range(3 * RUNS_A_MINUTE):
        run = start("honest", token)
        assert run.status == 201, run.body
        minute.advance(20)
        score = score * 3 // 2
        reply = send("honest", "ada", score, run.body)
        assert reply.status == 200, reply.body
    abandoned = start("honest", token)
    again = start("honest", token)  # the device restarted the game: the new run ends the abandoned one
    assert abandoned.status == 201 and again.status == 201
    assert send("honest", "ada", score + 1, again.body).status == 200
    ended = send("honest", "ada", score + 2, abandoned.body)
    assert ended.status == 403 and "ended" in ended.body["error"]


@pytest.mark.parametrize("value", [0, 11, "1", True, 1.5, None])
def test_max_open_runs_must_be_an_integer_from_1_to_10(in_memory, value):
    reply = create_board("bad", submissions="client", max_open_runs=value)
    assert reply.status == 400 and "max_open_runs" in reply.body["error"], reply.body
    assert call("GET", "/leaderboards/bad").status == 404


def test_a_board_shows_its_open_runs_and_the_limit_in_force(in_memory):
    assert create_board("c3", submissions="client", max_open_runs=3).status == 201
    assert call("GET", "/leaderboards/c3").body["max_open_runs"] == 3
    assert create_board("rel", submissions="client", rules=RELATIVE).status == 201
    shown = call("GET", "/leaderboards/rel").body
    assert shown["max_open_runs"] == 1 and shown["max_submissions_per_minute"] == RELATIVE_RULES_PER_MINUTE
    assert create_board("srv", rules=RELATIVE).status == 201  # a server board: no runs, no default limit
    shown = call("GET", "/leaderboards/srv").body
    assert "max_open_runs" not in shown and "max_submissions_per_minute" not in shown


def test_a_start_that_racing_starts_kept_out_answers_503_and_counts_nothing(in_memory, minute, monkeypatch):
    from cdk_leaderboard_lambda.data.runs import MemoryRuns
    from cdk_leaderboard_lambda.shared.errors import TransactionBusy

    assert create_board("busy", submissions="client", max_submissions_per_minute=1).status == 201
    real, calls = MemoryRuns.start, []

    def busy_once(self, *args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise TransactionBusy("other runs of this player are starting at the same time")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(MemoryRuns, "start", busy_once)
    token = player_token("ada")
    refused = start("busy", token)
    assert refused.status == 503 and refused.headers["Retry-After"] == "1", refused.body
    assert start("busy", token).status == 201  # the limit of 1 was not used up by the 503


def test_max_open_runs_changes_with_patch_for_the_next_starts(in_memory):
    assert create_board("grow", submissions="client").status == 201
    token = player_token("ada")
    first = start("grow", token).body
    for bad in (0, 11, "3", True):  # refused, nothing changed
        reply = call("PATCH", "/leaderboards/grow", body={"max_open_runs": bad})
        assert reply.status == 400 and "max_open_runs" in reply.body["error"], reply.body
    assert call("GET", "/leaderboards/grow").body["max_open_runs"] == 1
    changed = call("PATCH", "/leaderboards/grow", body={"max_open_runs": 2})
    assert changed.status == 200 and changed.body["max_open_runs"] == 2, changed.body
    second = start("grow", token).body  # a second place now: the first run stays open
    assert send("grow", "ada", 5, first).status == 200 and send("grow", "ada", 6, second).status == 200
