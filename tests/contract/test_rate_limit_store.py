"""ONE contract for every implementation of a store: the DynamoDB one on DynamoDB Local (the engine the local stack
runs) and the in-memory one in process. A behaviour the functions rely on that the fake lacks fails here, so domain
tests on the fake prove what they say. Stores covered so far: the rate limits (rate_limits.RateLimitStore)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from leaderboard import invocation
from leaderboard.composition import Runtime
from leaderboard.data import dynamo
from leaderboard.data.rate_limits import DynamoRateLimits, MemoryRateLimits
from leaderboard.settings import Settings
from local import dynamodb_local
from local.processes import ProcessGroup
from local.tables import create_tables, reset_tables
from local.template import synthesized_template, table_specs

MINUTE, EXPIRES = 29_000_000, 1_900_000_000


@pytest.fixture(scope="module")
def engine(tmp_path_factory) -> Iterator[tuple[object, list]]:
    """DynamoDB Local with the stack's tables, for this module's DynamoDB cases."""
    procs = ProcessGroup()
    endpoint = dynamodb_local.start(procs, tmp_path_factory.mktemp("contract") / "dynamodb-local.log")
    try:
        client = dynamo.new_client(
            endpoint_url=endpoint,
            region_name=dynamodb_local.FAKE_CREDENTIALS["AWS_DEFAULT_REGION"],
            aws_access_key_id=dynamodb_local.FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=dynamodb_local.FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )
        specs = table_specs(synthesized_template("dev"))
        create_tables(client, specs)
        yield client, specs
    finally:
        procs.stop_all()


@pytest.fixture(params=["dynamodb", "memory"])
def store(request):
    """Each implementation, with a runtime serving (the DynamoDB items' keys hash the player id with the
    deployment's secret: keys.rate_partition)."""
    env = {"SCORES_TABLE": "scores", "SNAPSHOTS_TABLE": "unused", "CURSOR_SECRET": "contract-secret-0123456789"}
    if request.param == "memory":
        client = dynamo.new_client(region_name="us-east-1")  # never called
        implementation = MemoryRateLimits()
    else:
        client, specs = request.getfixturevalue("engine")
        reset_tables(client, specs)
        env["SCORES_TABLE"] = next(s.local_name for s in specs if "Scores" in s.logical_id)
        implementation = DynamoRateLimits(client, env["SCORES_TABLE"])
    runtime = Runtime.build(Settings.from_environment(env), dynamodb=client, rate_limits=implementation)
    with invocation.serving(runtime):
        yield runtime.rate_limits


def test_takes_count_up_to_the_limit_and_a_refused_take_changes_nothing(store):
    assert [store.take("ada", "race", MINUTE, 1, 3, EXPIRES) for _ in range(4)] == [True, True, True, False]
    store.give_back("ada", "race", MINUTE, 1)
    assert store.take("ada", "race", MINUTE, 2, 3, EXPIRES) is False  # 2 + 2 > 3: refused whole, not in part
    assert store.take("ada", "race", MINUTE, 1, 3, EXPIRES) is True  # so exactly one place was left
    assert store.take("ada", "race", MINUTE, 1, 3, EXPIRES) is False


def test_a_take_of_several_fits_only_whole(store):
    """(A take of more than `most` at once is the caller's to refuse: rate_limits.take does, before the store.)"""
    assert store.take("bo", "race", MINUTE, 3, 3, EXPIRES) is True
    assert store.take("bo", "race", MINUTE, 1, 3, EXPIRES) is False
    assert store.take("cy", "race", MINUTE, 2, 3, EXPIRES) is True
    assert store.take("cy", "race", MINUTE, 2, 3, EXPIRES) is False  # 2 + 2 > 3, and that refusal counted nothing
    assert store.take("cy", "race", MINUTE, 1, 3, EXPIRES) is True


def test_players_boards_and_minutes_are_counted_apart(store):
    assert store.take("ada", "race", MINUTE, 1, 1, EXPIRES)
    assert store.take("bo", "race", MINUTE, 1, 1, EXPIRES)
    assert store.take("ada", "lap", MINUTE, 1, 1, EXPIRES)
    assert store.take("ada", "race", MINUTE + 1, 1, 1, EXPIRES)
    assert not store.take("ada", "race", MINUTE, 1, 1, EXPIRES)


def test_giving_back_more_than_was_counted_or_to_a_minute_never_counted_changes_nothing(store):
    store.give_back("ada", "race", MINUTE, 1)  # no item: nothing to give back, and no negative count
    assert [store.take("ada", "race", MINUTE, 1, 2, EXPIRES) for _ in range(3)] == [True, True, False]
    store.give_back("ada", "race", MINUTE, 5)  # more than counted: refused, the count stays at 2
    assert store.take("ada", "race", MINUTE, 1, 2, EXPIRES) is False


def test_concurrent_takes_never_pass_the_limit_together(store):
    """What makes the limit a limit: 12 takes at once, a limit of 5, exactly 5 pass (one conditional write each)."""
    barrier, results = threading.Barrier(12), []

    def take() -> None:
        barrier.wait()
        results.append(store.take("rush", "race", MINUTE, 1, 5, EXPIRES))

    threads = [threading.Thread(target=invocation.carried(take)) for _ in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True] * 5
