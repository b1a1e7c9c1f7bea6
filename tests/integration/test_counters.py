"""Rank counters against the real engine: tiny capacities force bucket and band splits, and every
rank read (including a bucket's first key, which moto lets through but DynamoDB refuses to COUNT
as an empty BETWEEN) must equal the brute force."""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from tests.support.capacities import counter_capacities


@pytest.fixture
def tiny_counters(monkeypatch, stack):
    with counter_capacities(stack, bucket=4, band=3):
        yield


def test_ranks_equal_brute_force_through_many_splits(api, stack, tiny_counters):
    assert api.post("/leaderboards", {"board_id": "splits", "periods": ["all-time"]}).status_code == 201
    rng = random.Random(11)
    best: dict[str, int] = {}
    for _ in range(60):
        player, score = f"p{rng.randrange(40):02d}", rng.randrange(0, 50)
        assert api.post("/leaderboards/splits/scores", {"player_id": player, "score": score}).status_code == 200
        best[player] = max(best.get(player, -1), score)
    stack.settle()  # the rank-counter function has recounted (and split) every bucket the writes touched
    listing = api.get("/leaderboards/splits/top?limit=100").json()["entries"]
    assert sorted(best.values(), reverse=True) == [e["score"] for e in listing]
    total = len(best)
    for entry in listing:
        me = api.get(f"/leaderboards/splits/players/{entry['player_id']}?window=1")
        assert me.status_code == 200, me.text
        body = me.json()
        assert (body["rank"], body["total_players"]) == (entry["rank"], total)
        assert body["percentile"] == round((total - entry["rank"]) / total * 100, 1)


def _index_keys(stack, partition: str) -> list[str]:
    from cdk_leaderboard_lambda.shared import schema

    keys_ = []
    for page in stack.ddb.get_paginator("query").paginate(
        TableName=stack.table_name(schema.SCORES_PARTITION_KEY),
        IndexName=schema.RANK_INDEX,
        KeyConditionExpression="#b = :b",
        ExpressionAttributeNames={"#b": schema.RANK_INDEX_PARTITION_KEY},
        ExpressionAttributeValues={":b": {"S": partition}},
    ):
        keys_ += [i[schema.RANK_INDEX_SORT_KEY]["S"] for i in page["Items"]]
    return keys_


def _buckets(stack, partition: str) -> list[tuple[str, str, int]]:
    from cdk_leaderboard_lambda.shared import item_keys

    items = stack.ddb.query(
        TableName=stack.table_name("player_id"),
        KeyConditionExpression="player_id = :p",
        ExpressionAttributeValues={":p": {"S": item_keys.counter_partition(partition, item_keys.BUCKETS)}},
        ConsistentRead=True,
    )["Items"]
    return [(i["leaderboard_id"]["S"], i["hi"]["S"], int(i["entries"]["N"])) for i in items]


@pytest.fixture
def capacity_64(monkeypatch, stack):
    with counter_capacities(stack, bucket=64, band=8) as capacity:
        yield capacity


@pytest.mark.slow
def test_splits_keep_up_with_continuous_concurrent_writers_on_a_fresh_period(api, stack, capacity_64):
    """Eight writers submit to a fresh board while the stream consumer counts and splits, batch after batch as
    Lambda polls: after each batch, no bucket's key range holds more than twice the capacity of the entries
    written before the batch (concurrent writes never starve a split), and once the writes settle every rank and
    total equals the brute force from the index. The test delivers the batches itself and lets the writers send a
    bounded number of writes per batch (they write while the batch runs), so how fast this machine runs the
    consumer beside the writers does not matter; on AWS the consumer's lag is watched by an alarm."""
    created = api.post("/leaderboards", {"board_id": "launch", "periods": ["all-time"]})
    assert created.status_code == 201, created.text
    partition = f"launch.{created.json()['generation']}#all-time"  # the board's index partition (item_keys.py)
    stop = threading.Event()
    best: dict[str, int] = {}
    lock = threading.Lock()
    wanted = 400  # enough writes to need several rounds of splits
    per_batch = 60  # writes allowed per batch: a backlog the consumer clears in one call however slow this machine is
    allowed = threading.Semaphore(0)

    def writer(seed: int) -> int:
        rng, sent = random.Random(seed), 0
        with requests.Session() as http:
            while not stop.is_set():
                if not allowed.acquire(timeout=0.2):
                    continue
                player, score = f"w{rng.randrange(1500):04d}", rng.randrange(1_000_000)
                r = http.post(
                    f"{api.url}/leaderboards/launch/scores",
                    json={"player_id": player, "score": score},
                    headers={"x-api-key": api.key},
                    timeout=60,
                )
                assert r.status_code == 200, r.text
                with lock:
                    best[player] = max(best.get(player, -1), score)
                    written.append(player)
                sent += 1
        return sent

    fullest, written, batches = 0, [], 0
    with stack.consumers_by_hand() as consume, ThreadPoolExecutor(max_workers=8) as pool:
        futures = [pool.submit(writer, seed) for seed in range(8)]
        deadline = time.monotonic() + 180
        try:
            while (
                (len(written) < wanted or batches <= 5)
                and time.monotonic() < deadline
                and not any(f.done() for f in futures)
            ):
                allowed.release(per_batch)
                time.sleep(0.2)
                written_before = _index_keys(stack, partition)
                consume()
                batches += 1
                for lo, hi, _ in _buckets(stack, partition):
                    fullest = max(fullest, sum(lo <= k < hi for k in written_before))
        finally:
            stop.set()
        sent = sum(f.result() for f in futures)
    assert sent >= wanted, sent
    assert batches > 5  # the consumer ran many times while the writers went on (not cut short by the deadline)
    assert fullest <= 2 * capacity_64, fullest

    stack.settle()
    assert len(_buckets(stack, partition)) > 3  # the writes needed several splits
    listing, cursor = [], None
    while True:
        page = api.get("/leaderboards/launch/top", params={"limit": 100, **({"cursor": cursor} if cursor else {})})
        listing += page.json()["entries"]
        cursor = page.json().get("next_cursor")
        if not cursor:
            break
    assert [e["score"] for e in listing] == sorted(best.values(), reverse=True)
    total = len(best)
    for entry in listing[:: max(1, total // 40)]:  # a sample across the whole board
        body = api.get(f"/leaderboards/launch/players/{entry['player_id']}?window=0").json()
        assert (body["rank"], body["total_players"]) == (entry["rank"], total)
