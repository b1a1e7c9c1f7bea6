"""Handlers under moto: tables created from the synthesized template, settings from its Lambda environment, and a
runtime of the test's own (composition.Runtime: moto's client, a settable clock) serving the test: the handlers
tests.support.lambda_api calls and the domain functions a test calls directly both use it. Or, for a test that asks
for `in_memory` instead of `ddb`, the same with every store in memory (no engine at all)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import boto3
import pytest
from botocore.config import Config
from moto import mock_aws

from cdk_leaderboard_lambda.composition import Runtime, in_memory_stores
from cdk_leaderboard_lambda.data.memory_entries import MemoryEntries
from cdk_leaderboard_lambda.shared.clock import SettableClock
from cdk_leaderboard_lambda.shared.settings import Settings
from local import invocation, moto_fidelity
from local.streams import StreamReader, drain
from local.tables import create_tables
from local.template import function_env, stream_consumers, synthesized_template, table_specs
from tests.support import moto_speedups

# moto's per-transaction table backup without copying the stream records (tests/support/moto_speedups.py says why);
# MOTO_SPEEDUPS=0 runs moto as shipped, to measure the difference (docs/results/test-times.md)
if os.environ.get("MOTO_SPEEDUPS", "1") != "0":
    moto_speedups.install()

CURSOR_SECRET = "unit-test-cursor-secret-0123456789"
DIGEST_KEY = "unit-test-digest-key-0123456789"
TOKEN_SIGNING_KEY = "unit-test-token-signing-key-0123456789"
GAME_API_KEY = "unit-test-game-key-0123456789"
RECEIPT_SIGNING_KEY = "unit-test-receipt-signing-seed-0123456789"


@pytest.fixture(scope="session")
def stack_template() -> dict:
    return synthesized_template("dev")


def _handlers_env(stack_template: dict, env: pytest.MonkeyPatch) -> None:
    """The handlers' environment (the template's, with the secrets given locally), set through `env`."""
    for name, value in function_env(stack_template).items():
        env.setenv(name, value)
    env.setenv("RECOUNT_THREADS", "1")  # moto is not thread-safe
    env.setenv("CURSOR_SECRET", CURSOR_SECRET)  # locally given; on AWS read from Secrets Manager
    env.setenv("DIGEST_KEY", DIGEST_KEY)
    env.setenv("TOKEN_SIGNING_KEY", TOKEN_SIGNING_KEY)
    env.setenv("RECEIPT_SIGNING_KEY", RECEIPT_SIGNING_KEY)
    env.setenv("GAME_API_KEY", GAME_API_KEY)  # what tests.support.lambda_api sends as a game server's key


@contextmanager
def moto_tables(stack_template: dict, env: pytest.MonkeyPatch) -> Iterator[Any]:
    """A fresh moto DynamoDB with the stack's tables, the handlers' env (set through `env`) pointing at them, and a
    runtime on it serving until the end: the client."""
    _handlers_env(stack_template, env)
    moto_fidelity.install()  # moto answers as AWS where the code depends on it (Secrets Manager's version dates)
    # One boto3 default session for the whole worker: moto's default resets it at each start, and a new session
    # loads and parses botocore's service and endpoint files again (about half a second a test).
    with mock_aws(config={"core": {"reset_boto3_session": False}}):
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(client, table_specs(stack_template))
        with invocation.serving(Runtime.build(Settings.from_environment(), dynamodb=client)):
            yield client


@pytest.fixture
def ddb(stack_template, monkeypatch):
    """A fresh moto DynamoDB with the stack's tables; the handlers' env points at them."""
    with moto_tables(stack_template, monkeypatch) as client:
        yield client


@pytest.fixture
def in_memory(stack_template, monkeypatch) -> Iterator[Runtime]:
    """The handlers' env and a runtime with every store in memory (composition.in_memory_stores; tests/contract
    holds them to DynamoDB Local's behaviour) serving the test: domain and operation tests that need no engine, many
    times faster than on moto (test_closing's score_at_rank search: 22.9 s on moto, 0.09 s here). Its DynamoDB
    client answers nothing (a port where nothing listens, no retries): a call past the stores fails the test."""
    _handlers_env(stack_template, monkeypatch)
    unanswered = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        endpoint_url="http://127.0.0.1:9",
        config=Config(retries={"total_max_attempts": 1}, connect_timeout=1),
    )
    runtime = Runtime.build(Settings.from_environment(), dynamodb=unanswered, **in_memory_stores())
    with invocation.serving(runtime):
        yield runtime


@pytest.fixture(scope="module")
def module_ddb(stack_template):
    """The same, shared by a module's tests: for tests that each show they change nothing (their own before and
    after), so that one test's tables are as good as a fresh set and the set up is paid once."""
    with pytest.MonkeyPatch.context() as env, moto_tables(stack_template, env) as client:
        yield client


@pytest.fixture
def served(request) -> Runtime:
    """The runtime serving the test: the in-memory one if the test asked for `in_memory`, else moto's (`ddb`). For
    fixtures that change it, whichever it is."""
    request.getfixturevalue("in_memory" if "in_memory" in request.fixturenames else "ddb")
    return invocation.runtime()


@pytest.fixture
def clock(served) -> Iterator[SettableClock]:
    """A clock the test sets or advances instead of sleeping (from now), serving the rest of the test."""
    settable = SettableClock()
    with invocation.serving(served.rebuilt(clock=settable)):
        yield settable


@pytest.fixture
def reconfigure() -> Iterator[Callable[[], Runtime]]:
    """A function that rebuilds the test's runtime from the environment as the test changed it (monkeypatch.setenv),
    keeping its DynamoDB client, clock and in-memory stores, and serves the rest of the test with it (what a new
    cold start with that environment would be: fresh caches and key rings)."""
    with ExitStack() as rebound:

        def rebuild() -> Runtime:
            try:
                runtime = invocation.runtime().rebuilt(Settings.from_environment())
            except RuntimeError:  # no runtime yet (a test without moto): the environment's own
                runtime = Runtime.from_environment(clock=SettableClock())
            return rebound.enter_context(invocation.serving(runtime))

        yield rebuild


@pytest.fixture
def settle(served, stack_template):
    """A function that delivers every stream record written so far to its consumer (the rank counters, the live
    broadcaster), as Lambda's event source mapping does a moment after each write on AWS: from moto's table
    streams, or from the in-memory entries' stream for a test that asked for `in_memory`."""
    from cdk_leaderboard_lambda.web.routes import FUNCTIONS

    handlers = {f.handler: f for f in FUNCTIONS}
    names = {spec.logical_id: spec.local_name for spec in table_specs(stack_template)}
    if isinstance(served.entries, MemoryEntries):

        def reader_of(table: str) -> Any:
            assert table == served.settings.scores_table, f"no in-memory stream of {table}"
            return served.entries.stream.reader()
    else:
        ddb = served.dynamodb
        # moto serves the streams API only at its classic endpoint, not botocore's account-based one.
        streams = boto3.client(
            "dynamodbstreams", region_name="us-east-1", endpoint_url="https://streams.dynamodb.us-east-1.amazonaws.com"
        )

        def reader_of(table: str) -> Any:
            return StreamReader(streams, ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"])

    consumers = []
    for consumer in stream_consumers(stack_template):
        module, _, _ = handlers[consumer.handler].handler.rpartition(".")
        reader = reader_of(names[consumer.table_logical_id])
        consumers.append((reader, __import__(module, fromlist=["handler_for"]), consumer))

    def run() -> int:
        # The handler for the runtime serving now (a test may have rebuilt it since)
        return sum(
            drain(reader, module.handler_for(invocation.runtime()), c.batch_size, c.filter_patterns)
            for reader, module, c in consumers
        )

    return run
