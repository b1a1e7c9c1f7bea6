"""Erasure that erases, over HTTP against DynamoDB Local: after `DELETE /players/{id}` answers "erased", a scan of
every table finds the player's id and name nowhere (not even in the fence that still refuses submissions in flight:
it is keyed by a keyed hash of the id), and no response names them: a closed tournament's summary, rank counters
cut among tied entries, and submissions racing the erasure."""

from __future__ import annotations

import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

import pytest

from cdk_leaderboard_lambda.shared.clock import iso
from tests.support import clock
from tests.support.capacities import counter_capacities
from tests.support.erasure import erase, fence_lifted
from tests.support.player_tokens import bearer, player_token
from tests.support.season import REWARDS, TIERS


@pytest.fixture
def small_counters(monkeypatch, stack):
    with counter_capacities(stack, bucket=8, band=4):
        yield


def _items_naming(stack, *texts: str) -> list[dict]:
    """Every item of every table whose JSON holds one of `texts` anywhere (a full scan)."""
    found = []
    for spec in stack.specs:
        for page in stack.ddb.get_paginator("scan").paginate(TableName=spec.local_name, ConsistentRead=True):
            found += [i for i in page["Items"] if any(t in json.dumps(i) for t in texts)]
    return found


def _erase(api, stack, player: str, *, racing: bool = False) -> dict:
    """Erase the player; the moment it answers "erased", a scan of every table finds the id nowhere (keys or
    values, as a substring): the fence that still refuses submissions is keyed by a keyed hash of it. The stack's
    clock moves past the fences' time unless submissions are `racing` the erasure (then it takes the real time)."""
    erasure = erase(api, player, None if racing else stack)
    assert _items_naming(stack, player) == []
    return erasure


def test_an_erased_player_leaves_a_closed_tournaments_summary(api, stack):
    now = stack.clock.now()
    start, end = now - timedelta(seconds=1), now + timedelta(seconds=3)
    body = {"board_id": "er-cup", "starts_at": iso(start), "ends_at": iso(end), "tiers": TIERS, "rewards": REWARDS}
    assert api.post("/leaderboards", body).status_code == 201
    players = [("victim-1", "Victim Realname", 90), ("er-cup-b", "Bea", 80), ("er-cup-c", "Cy", 70)]
    bulk = api.post(
        "/leaderboards/er-cup/scores/bulk",
        {"entries": [{"player_id": p, "player_name": n, "score": s} for p, n, s in players]},
    )
    assert bulk.status_code == 200 and bulk.json()["accepted"] == 3, bulk.text
    clock.move(stack, to=end + timedelta(milliseconds=50))  # the tournament is over
    closed = api.post("/leaderboards/er-cup/periods/tournament/close")
    assert closed.status_code == 200, closed.text
    assert closed.json()["top"][0]["player_id"] == "victim-1"  # the summary named them
    stack.settle()

    audit = _erase(api, stack, "victim-1")
    stack.settle()
    assert _items_naming(stack, "victim-1", "Victim Realname") == []
    summary = api.get("/leaderboards/er-cup/periods/tournament")
    assert summary.status_code == 200
    assert "victim-1" not in summary.text and "Victim Realname" not in summary.text, summary.text
    top = summary.json()["top"]
    # the places stay: rank and score under the placeholder, the others untouched
    assert [(e["rank"], e["player_id"], e["score"]) for e in top] == [
        (1, "erased", 90),
        (2, "er-cup-b", 80),
        (3, "er-cup-c", 70),
    ]
    assert summary.json()["rewards"][0]["players"][0]["player_id"] == "erased"
    # the audit record keeps that an erasure happened and when (not whose)
    assert audit["status"] == "erased" and audit["requested_at"] <= audit["finished_at"]
    status = fence_lifted(api, audit, stack)  # the scheduled job takes the hashed fence down: the id may be used again
    assert status["requested_at"] <= status["finished_at"] <= status["fence_lifted_at"]
    assert _items_naming(stack, "victim-1", "Victim Realname") == []
    assert api.post("/leaderboards/er-cup/scores", {"player_id": "victim-1", "score": 1}).status_code == 409  # ended
    assert api.post("/leaderboards", {"board_id": "er-after", "periods": ["all-time"]}).status_code == 201
    assert api.post("/leaderboards/er-after/scores", {"player_id": "victim-1", "score": 1}).status_code == 200  # new
    periods = api.get("/leaderboards/er-cup/periods").text
    assert "victim-1" not in periods


def test_rank_counters_cut_among_tied_entries_name_no_player(api, stack, small_counters):
    """Two bulks of entries with one score each: each bulk's keys tie on score and millisecond, so the only cuts
    between them are inside the player ids unless the counters cut only in the score and time."""
    assert api.post("/leaderboards", {"board_id": "er-tie", "periods": ["all-time"]}).status_code == 201
    victim = "tie-victim-zq"
    batches = [
        [f"tie-a{i:03d}" for i in range(60)] + [victim],
        [f"tie-b{i:03d}" for i in range(60)],
    ]
    for score, batch in zip((500, 400), batches, strict=True):
        reply = api.post(
            "/leaderboards/er-tie/scores/bulk", {"entries": [{"player_id": p, "score": score} for p in batch]}
        )
        assert reply.status_code == 200 and reply.json()["accepted"] == len(batch), reply.text
    stack.settle()
    counters = f"#buckets#er-tie.{api.get('/leaderboards/er-tie').json()['generation']}#all-time"  # its generation's
    buckets = [i for i in _items_naming(stack, counters) if i["player_id"]["S"].startswith("#b")]
    assert len(buckets) >= 2  # the counters split (between the two scores: each tied run stays whole)
    # no cut names a player, whole or in part: every bound ends in the score and time
    for item in buckets:
        for bound in (item["leaderboard_id"]["S"], item["hi"]["S"]):
            assert "tie-" not in bound and len(bound) <= 31, bound

    _erase(api, stack, victim)
    stack.settle()
    assert _items_naming(stack, victim) == []
    # counters stay exact: every rank and the total agree with a brute force (ties: by player id)
    kept = sorted(p for p in batches[0] if p != victim) + sorted(batches[1])
    top = api.get("/leaderboards/er-tie/top?limit=100").json()["entries"]
    assert [e["player_id"] for e in top] == kept[:100]
    for player in (kept[0], kept[7], kept[59], kept[60], kept[93], kept[-1]):
        me = api.get(f"/leaderboards/er-tie/players/{player}").json()
        assert (me["rank"], me["total_players"]) == (kept.index(player) + 1, len(kept)), (player, me)


def test_a_submission_racing_the_erasure_leaves_no_entry(api, stack):
    """10 writers submit for the player while the erasure runs; the moment it has answered "erased", and again once
    the writers that were in flight have finished, no item names the player. Run once, not three times: a run waits
    out the fences' real FENCE_SECONDS under 10 writers (17 s to 21 s); the overlap three runs once found (a call
    that read the erasure before another finished it) is replayed deterministically in tests/unit/test_players.py."""
    board, victim = "er-race", "racer-0"
    assert (
        api.post("/leaderboards", {"board_id": board, "operator": "latest", "periods": ["all-time"]}).status_code == 201
    )
    assert api.post(f"/leaderboards/{board}/scores", {"player_id": victim, "score": 1}).status_code == 200
    erased = threading.Event()
    answers: list[int] = []

    def writer(n: int) -> None:
        i = 0
        while not erased.is_set():
            i += 1
            r = api.post(
                f"/leaderboards/{board}/scores",
                {"player_id": victim, "score": n * 1000 + i, "player_name": "Racer Realname"},
                key=api.key,
            )
            answers.append(r.status_code)
            assert r.status_code in (200, 409, 503), r.text  # refused while the erasure runs: never a 500
            if r.status_code != 200:
                # refused: the erasure takes FENCE_SECONDS (15 s); 0.05 s between tries made hundreds of refused
                # calls a race, the CPU of its two cores, where a few a second still race the answer
                time.sleep(0.25)

    with ThreadPoolExecutor(10) as pool:
        running = [pool.submit(writer, n) for n in range(10)]
        deadline = time.monotonic() + 60  # generous: the writers are under way before the erasure starts
        while answers.count(200) < 10 and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            _erase(api, stack, victim, racing=True)  # scanned the moment it answers, writers still in flight
        finally:
            erased.set()
        for f in running:
            f.result()
    assert answers.count(200) >= 10  # the writers were writing when the erasure started
    assert answers.count(409) >= 10  # and were refused while it ran
    stack.settle()
    assert _items_naming(stack, victim, "Racer Realname") == []
    assert api.get(f"/leaderboards/{board}/players/{victim}").status_code == 404
    assert api.get(f"/leaderboards/{board}/top").json()["entries"] == []


def test_a_submission_after_the_answer_leaves_no_counter_naming_the_player(api, stack):
    """On a board with a per-player limit, a submission counts in a per-minute counter before its read finds the
    erasure item (then 409): that counter is keyed by a keyed hash of the id, so it names nobody either."""
    body = {"board_id": "er-rated", "max_submissions_per_minute": 5}
    assert api.post("/leaderboards", body).status_code == 201
    assert api.post("/leaderboards/er-rated/scores", {"player_id": "rated-victim", "score": 3}).status_code == 200
    _erase(api, stack, "rated-victim")
    late = api.post("/leaderboards/er-rated/scores", {"player_id": "rated-victim", "score": 4})
    assert late.status_code == 409, late.text  # the hashed fence still stands
    assert _items_naming(stack, "rated-victim") == []


def test_a_token_minted_before_the_erasure_is_refused_after_it_and_nothing_reappears(api, stack):
    """A player token minted before the erasure, and a run it started: once the erasure has answered and its
    hashed fence is lifted, each is refused (401 with WWW-Authenticate: Bearer), nothing is stored under the id and
    `/top` does not show it again; a token minted after the answer is a new player of that id."""
    body = {"board_id": "er-runs", "submissions": "client", "max_open_runs": 2}
    assert api.post("/leaderboards", body).status_code == 201
    old = player_token(api, "tok-victim", ttl_seconds=86400)
    first = api.post("/leaderboards/er-runs/runs", key=None, headers=bearer(old)).json()
    scored = api.post(
        f"/leaderboards/er-runs/runs/{first['run_id']}/score",
        {"player_id": "tok-victim", "score": 5},
        key=None,
        headers=bearer(first["run_token"]),
    )
    assert scored.status_code == 200, scored.text
    opened = api.post("/leaderboards/er-runs/runs", key=None, headers=bearer(old)).json()  # not used yet
    stack.settle()
    fence_lifted(api, _erase(api, stack, "tok-victim"), stack)  # only the tokens' floor refuses from here
    replies = [
        api.post("/leaderboards/er-runs/runs", key=None, headers=bearer(old)),
        api.post(
            f"/leaderboards/er-runs/runs/{opened['run_id']}/score",
            {"player_id": "tok-victim", "score": 900},
            key=None,
            headers=bearer(opened["run_token"]),
        ),
        api.get("/leaderboards/er-runs/players/tok-victim/receipt", headers=bearer(old)),
    ]
    for reply in replies:
        assert reply.status_code == 401 and "erased" in reply.json()["error"], reply.text
        assert reply.headers["WWW-Authenticate"].startswith("Bearer"), reply.headers
    stack.settle()
    assert _items_naming(stack, "tok-victim") == []
    assert api.get("/leaderboards/er-runs/top").json()["entries"] == []
    fresh = player_token(api, "tok-victim")  # after the answer: accepted at once
    assert api.post("/leaderboards/er-runs/runs", key=None, headers=bearer(fresh)).status_code == 201
