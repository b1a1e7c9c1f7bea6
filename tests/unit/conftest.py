"""Handlers under moto: tables created from the synthesized template, settings from its Lambda environment."""

from __future__ import annotations

import boto3
import pytest
from moto import mock_aws

from leaderboard import board_registry, cursors, game_key, tokens
from leaderboard.data import dynamo
from leaderboard.settings import get_settings
from local.streams import StreamReader, drain
from local.tables import create_tables
from local.template import function_env, stream_consumers, synthesized_template, table_specs

CURSOR_SECRET = "unit-test-cursor-secret-0123456789"
TOKEN_SIGNING_KEY = "unit-test-token-signing-key-0123456789"
GAME_API_KEY = "unit-test-game-key-0123456789"


@pytest.fixture(scope="session")
def stack_template() -> dict:
    return synthesized_template("dev")


@pytest.fixture
def ddb(stack_template, monkeypatch):
    """A fresh moto DynamoDB with the stack's tables; the handlers' env points at them."""
    for name, value in function_env(stack_template).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("RECOUNT_THREADS", "1")  # moto is not thread-safe
    monkeypatch.setenv("CURSOR_SECRET", CURSOR_SECRET)  # locally given; on AWS read from Secrets Manager
    monkeypatch.setenv("TOKEN_SIGNING_KEY", TOKEN_SIGNING_KEY)
    monkeypatch.setenv("GAME_API_KEY", GAME_API_KEY)  # what tests.support.lambda_api sends as a game server's key
    get_settings.cache_clear()
    tokens.signing_keys.cache_clear()
    game_key.ring.cache_clear()
    dynamo.client.cache_clear()
    board_registry.board_cache.cache_clear()
    cursors._secret.cache_clear()
    # One boto3 default session for the whole worker: moto's default resets it at each start, and a new session
    # loads and parses botocore's service and endpoint files again (about half a second a test).
    with mock_aws(config={"core": {"reset_boto3_session": False}}):
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(client, table_specs(stack_template))
        yield client
    get_settings.cache_clear()
    dynamo.client.cache_clear()
    cursors._secret.cache_clear()
    tokens.signing_keys.cache_clear()
    game_key.ring.cache_clear()


@pytest.fixture
def settle(ddb, stack_template):
    """A function that delivers every stream record written so far to its consumer (the rank counters), as
    Lambda's event source mapping does a moment after each write on AWS."""
    from leaderboard.routes import FUNCTIONS

    handlers = {f.handler: f for f in FUNCTIONS}
    # moto serves the streams API only at its classic endpoint, not botocore's account-based one.
    streams = boto3.client(
        "dynamodbstreams", region_name="us-east-1", endpoint_url="https://streams.dynamodb.us-east-1.amazonaws.com"
    )
    names = {spec.logical_id: spec.local_name for spec in table_specs(stack_template)}
    consumers = []
    for consumer in stream_consumers(stack_template):
        arn = ddb.describe_table(TableName=names[consumer.table_logical_id])["Table"]["LatestStreamArn"]
        module, _, attr = handlers[consumer.handler].handler.rpartition(".")
        handler = getattr(__import__(module, fromlist=[attr]), attr)
        consumers.append((StreamReader(streams, arn), handler, consumer))

    def run() -> int:
        return sum(drain(reader, handler, c.batch_size, c.filter_patterns) for reader, handler, c in consumers)

    return run
