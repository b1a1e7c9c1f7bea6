"""Concurrent submissions never lower a stored best: one conditional write per board."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import requests

SUBMISSIONS = 50


def test_50_concurrent_submissions_store_the_maximum_on_every_board(api, stack, clean):
    """50 parallel POST /scores for one player end with the max on all three boards."""
    scores = random.sample(range(1, 10**9), SUBMISSIONS)

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
        responses = list(pool.map(submit, scores))

    assert [r.status_code for r in responses] == [200] * SUBMISSIONS, [
        r.text for r in responses if r.status_code != 200
    ]
    for score, resp in zip(scores, responses, strict=True):
        for board in resp.json()["boards"]:
            assert score <= board["best_score"] <= max(scores)  # never reports a best below its own score

    player = api.get("/player", params={"player_id": "racer"}).json()
    assert len(player["boards"]) == 3
    assert all(b["score"] == max(scores) and b["rank"] == 1 for b in player["boards"])

    # And in the table itself, not only through the API.
    items = stack.ddb.query(
        TableName=stack.table_name("player_id"),
        KeyConditionExpression="player_id = :p",
        ExpressionAttributeValues={":p": {"S": "racer"}},
        ConsistentRead=True,
    )["Items"]
    assert sorted(int(i["score"]["N"]) for i in items) == [max(scores)] * 3
