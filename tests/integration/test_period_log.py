"""A period's hash-chained log over HTTP on the local stack (DynamoDB Local, the stream poller, the rank-counter
function): concurrent submissions give a gap-free chain with one record per accepted change, every kind of change
is one record, and GET .../periods/{period_id}/log pages in seq order. Records are checked by hand (hashlib, json).

The log is appended from the stream a moment after each change: each wait returns as soon as the log holds what
it must, within a generous bound (the stack runs on a loaded machine)."""

from __future__ import annotations

import hashlib
import json
import time
from concurrent.futures import ThreadPoolExecutor

WAIT_SECONDS = 60


def records_of(api, board: str, period: str = "all-time", limit: int = 100) -> list[dict]:
    found, cursor = [], None
    while True:
        params = {"limit": limit, **({"cursor": cursor} if cursor else {})}
        resp = api.get(f"/leaderboards/{board}/periods/{period}/log", params=params)
        assert resp.status_code == 200, resp.text
        assert resp.headers["Cache-Control"] == "no-store"
        found += resp.json()["records"]
        cursor = resp.json().get("next_cursor")
        if cursor is None:
            return found


def log_reaching(api, board: str, count: int) -> list[dict]:
    """The log once it holds `count` records (or what it holds after WAIT_SECONDS)."""
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        found = records_of(api, board)
        if len(found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def assert_chained(records: list[dict]) -> None:
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    previous = "0" * 64
    for r in records:
        rest = {k: v for k, v in r.items() if k != "hash"}
        text = json.dumps(rest, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
        assert r["prev_hash"] == previous and r["hash"] == hashlib.sha256(text).hexdigest(), r
        previous = r["hash"]


def test_concurrent_submissions_give_a_gap_free_chain_with_one_record_per_accepted_change(api):
    assert api.post("/leaderboards", {"board_id": "log-rush", "periods": ["all-time"]}).status_code == 201
    players = [f"r{n:02d}" for n in range(24)]
    # each player twice (the second better): 48 accepted changes; then each once more, worse: none
    scores = [(p, 10 + n) for n, p in enumerate(players)] + [(p, 100 + n) for n, p in enumerate(players)]

    def post(item):
        player, score = item
        return api.post("/leaderboards/log-rush/scores", {"player_id": player, "score": score}).status_code

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(post, scores)) == {200}
        assert set(pool.map(post, [(p, 1) for p in players])) == {200}
    records = log_reaching(api, "log-rush", len(scores))
    assert_chained(records)
    assert len(records) == len(scores) and {r["kind"] for r in records} == {"score"}
    by_player: dict[str, list[int]] = {}
    for r in records:
        by_player.setdefault(r["player"], []).append(r["score"])
    assert sorted(by_player.values()) == sorted([[10 + n, 100 + n] for n in range(24)])  # in order per player
    assert records_of(api, "log-rush", limit=7) == records  # the same in pages of 7


def test_every_kind_of_change_is_one_record_and_the_route_pages(api):
    assert api.post("/leaderboards", {"board_id": "log-kinds", "periods": ["all-time"]}).status_code == 201
    assert api.post("/leaderboards/log-kinds/scores", {"player_id": "ada", "score": 5}).status_code == 200
    assert api.post("/leaderboards/log-kinds/scores", {"player_id": "bo", "score": 7}).status_code == 200
    assert len(log_reaching(api, "log-kinds", 2)) == 2
    assert api.put("/leaderboards/log-kinds/players/ada/hidden").status_code == 200
    assert len(log_reaching(api, "log-kinds", 3)) == 3
    assert api.delete("/leaderboards/log-kinds/players/ada/hidden").status_code == 200
    assert len(log_reaching(api, "log-kinds", 4)) == 4
    assert api.delete("/leaderboards/log-kinds/players/bo").status_code == 200
    records = log_reaching(api, "log-kinds", 5)
    assert_chained(records)
    assert [(r["kind"], r["score"]) for r in records] == [
        ("score", 5),
        ("score", 7),
        ("hide", 5),
        ("show", 5),
        ("remove", 7),
    ]
    ada, bo = records[0]["player"], records[1]["player"]
    assert [r["player"] for r in records] == [ada, bo, ada, ada, bo] and ada != bo
    page = api.get("/leaderboards/log-kinds/periods/all-time/log", params={"limit": 2}).json()
    assert [r["seq"] for r in page["records"]] == [1, 2] and page["next_cursor"]
    bad = api.get("/leaderboards/log-kinds/periods/all-time/log", params={"cursor": "x" * 30})
    assert bad.status_code == 400 and "error" in bad.json()
    assert api.get("/leaderboards/nowhere/periods/all-time/log").status_code == 404


def test_a_stream_batch_retried_after_its_append_appends_nothing_twice(api, monkeypatch):
    """The rank-counter function fails after the batch's records were appended (its recount raises, as on an
    index lag): the stream poller retries the whole batch, as Lambda does, and the log holds each change once."""
    from cdk_leaderboard_lambda.operations import counter_upkeep

    real, failed, retried = counter_upkeep.apply, [], []

    def fail_once(counters, entries, clock, settings, changes, stats=None):
        if any(change.board_id == "log-retry" for change in changes):
            if not failed:
                failed.append(len(changes))
                raise counter_upkeep.IndexLag("injected: the batch is retried")
            retried.append(len(changes))
        return real(counters, entries, clock, settings, changes, stats)

    monkeypatch.setattr(counter_upkeep, "apply", fail_once)
    assert api.post("/leaderboards", {"board_id": "log-retry", "periods": ["all-time"]}).status_code == 201
    for n in range(5):
        assert api.post("/leaderboards/log-retry/scores", {"player_id": f"t{n}", "score": n}).status_code == 200
    log_reaching(api, "log-retry", 5)
    deadline = time.monotonic() + WAIT_SECONDS
    while not (failed and sum(retried) >= failed[0]) and time.monotonic() < deadline:
        time.sleep(0.2)  # until the failed batch's records have gone through again
    assert failed and sum(retried) >= failed[0], (failed, retried)
    records = records_of(api, "log-retry")
    assert_chained(records)
    assert sorted(r["score"] for r in records) == [0, 1, 2, 3, 4]
