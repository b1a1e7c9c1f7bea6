"""ONE contract for every implementation of a store: the DynamoDB one on DynamoDB Local (the engine the local stack
runs) and the in-memory one in process. A behaviour the functions rely on that the fake lacks fails here, so domain
tests on the fake prove what they say.

Each test module asks for `runtime` (or a fixture of its own on it, `store`) and runs once per implementation:
every store on DynamoDB Local's tables, emptied before each test, or every store in memory (composition.STORES)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from cdk_leaderboard_lambda.composition import Runtime, in_memory_stores
from cdk_leaderboard_lambda.data import dynamo
from cdk_leaderboard_lambda.shared.settings import Settings
from local import dynamodb_local, invocation
from local.processes import ProcessGroup
from local.tables import create_tables
from local.template import synthesized_template, table_specs

# The DynamoDB items' keys hash player ids with the digest key (keys.rate_partition, keys.erasing_key).
ENV = {
    "SCORES_TABLE": "scores",
    "SNAPSHOTS_TABLE": "snapshots",
    "CURSOR_SECRET": "contract-secret-0123456789",
    "DIGEST_KEY": "contract-digest-key-0123456789",
}


@pytest.fixture(scope="session")
def engine(tmp_path_factory) -> Iterator[tuple[object, dict[str, str]]]:
    """DynamoDB Local with the stack's tables (one engine for the session), and the settings naming them."""
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
        env = {
            **ENV,
            "SCORES_TABLE": next(s.local_name for s in specs if "Scores" in s.logical_id),
            "SNAPSHOTS_TABLE": next(s.local_name for s in specs if "Snapshots" in s.logical_id),
        }
        yield client, env
    finally:
        procs.stop_all()


def _empty(client, tables: list[str]) -> None:
    """Delete every item (not the tables: DynamoDB Local keeps a dropped table's stream records and slows down)."""
    for table in tables:
        keys = [a["AttributeName"] for a in client.describe_table(TableName=table)["Table"]["KeySchema"]]
        for page in client.get_paginator("scan").paginate(TableName=table, ProjectionExpression=", ".join(keys)):
            for item in page["Items"]:
                client.delete_item(TableName=table, Key=item)


@pytest.fixture(params=["dynamodb", "memory"])
def runtime(request) -> Iterator[Runtime]:
    """A runtime serving the test, its stores on DynamoDB Local (empty tables) or in memory (its DynamoDB client is
    then one that is never called)."""
    if request.param == "memory":
        built = Runtime.build(
            Settings.from_environment(ENV), dynamodb=dynamo.new_client(region_name="us-east-1"), **in_memory_stores()
        )
    else:
        client, env = request.getfixturevalue("engine")
        _empty(client, [env["SCORES_TABLE"], env["SNAPSHOTS_TABLE"]])
        built = Runtime.build(Settings.from_environment(env), dynamodb=client)
    with invocation.serving(built):
        yield built
