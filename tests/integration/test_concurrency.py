"""Concurrent submissions never lower a stored best: one conditional write per board."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

SUBMISSIONS = 50


@pytest.mark.parametrize("hidden", [False, True])
def test_50_concurrent_submissions_store_the_maximum_on_every_board(api, stack, clean, hidden):
    """50 parallel POST /scores for one player end with the max on all three boards; for a player hidden on the
    board too (their writes follow the hidden entries, and a hide in the middle of the burst loses nothing)."""
    scores = random.sample(range(1, 10**9), SUBMISSIONS)
    if hidden:
        assert api.post("/scores", {"player_id": "racer", "score": 0}).status_code == 200

    def submit(score: int) -> requests.Response:
        # A session per thread: requests.Session is not thread-safe.
        with requests.Session() as http:
            return http.post(
                f"{api.url}/scores",
                json={"player_id": "racer", "score": score},
                headers={"x-api-key": api.key},
                timeout=60,
            )

    with ThreadPoolExecutor(max_workers=SUBMISSIONS) as pool:
        sent = [pool.submit(submit, score) for score in scores]
        if hidden:
            assert api.put("/leaderboards/global/players/racer/hidden").status_code == 200
        responses = [f.result() for f in sent]

    assert [r.status_code for r in responses] == [200] * SUBMISSIONS, [
        r.text for r in responses if r.status_code != 200
    ]
    for score, resp in zip(scores, responses, strict=True):
        for board in resp.json()["boards"]:
            assert score <= board["best_score"] <= max(scores)  # never reports a best below its own score

    stack.settle()  # the consumer reconciles an entry a hide raced
    player = api.get("/player", params={"player_id": "racer"}).json()
    assert len(player["boards"]) == 3
    assert all(b["score"] == max(scores) and b["rank"] == 1 for b in player["boards"])
    assert all(b.get("hidden", False) is hidden for b in player["boards"])
    listed = [e["player_id"] for e in api.get("/leaderboard").json()["entries"]]
    assert ("racer" in listed) is not hidden

    # And in the table itself, not only through the API.
    items = stack.ddb.query(
        TableName=stack.table_name("player_id"),
        KeyConditionExpression="player_id = :p",
        ExpressionAttributeValues={":p": {"S": "racer"}},
        ConsistentRead=True,
    )["Items"]
    assert sorted(int(i["score"]["N"]) for i in items) == [max(scores)] * 3


@pytest.mark.parametrize("board", ["global", "stale-stored"])
def test_a_stale_read_never_lowers_a_better_score(api, clean, monkeypatch, board):
    """Keep-best reads eventually consistently. DynamoDB Local's reads are always fresh, so the read is made stale
    here: it still shows 100 while 300 is stored. The conditional write refuses 200 (default board), or the
    exact-state write is refused and the retry reads strongly (a board stored in the table): 300 stays."""
    from cdk_leaderboard_lambda.data.entries import (
        DynamoEntries,  # the class: the stack's handlers hold their own runtime
    )
    from local import invocation

    path = "/scores" if board == "global" else f"/leaderboards/{board}/scores"
    if board != "global":
        assert api.post("/leaderboards", {"board_id": board, "periods": ["all-time", "daily"]}).status_code == 201
    assert api.post(path, {"player_id": "lagged", "score": 100}).status_code == 200
    real = DynamoEntries.get_for_submission
    snapshot = {}

    def remember(store, pairs, board_id, *, stored_board, consistent=True):
        snapshot["items"] = real(store, list(pairs), board_id, stored_board=stored_board, consistent=consistent)
        return snapshot["items"]

    monkeypatch.setattr(DynamoEntries, "get_for_submission", remember)
    assert api.post(path, {"player_id": "lagged", "score": 100}).status_code == 200  # snapshot: 100 everywhere
    monkeypatch.setattr(DynamoEntries, "get_for_submission", real)
    assert api.post(path, {"player_id": "lagged", "score": 300}).status_code == 200
    reads = []

    def stale(store, pairs, board_id, *, stored_board, consistent=True):
        reads.append(consistent)
        if not consistent:
            return snapshot["items"]
        return real(store, list(pairs), board_id, stored_board=stored_board, consistent=consistent)

    monkeypatch.setattr(DynamoEntries, "get_for_submission", stale)
    resp = api.post(path, {"player_id": "lagged", "score": 200})
    monkeypatch.setattr(DynamoEntries, "get_for_submission", real)
    assert resp.status_code == 200, resp.text
    if board == "global":
        assert reads == [False] and [b["best_score"] for b in resp.json()["boards"]] == [300] * 3
    else:
        assert reads == [False, True] and [p["score"] for p in resp.json()["periods"]] == [300] * 2
    stored = [e["score"] for e in invocation.runtime().entries.of_player("lagged")]
    assert stored and set(stored) == {300}, stored
