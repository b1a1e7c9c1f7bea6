"""Handlers under moto: tables created from the synthesized template, settings from its Lambda environment."""

from __future__ import annotations

import json
from typing import Any, Callable

import boto3
import pytest
from moto import mock_aws

from leaderboard import cursors, store
from leaderboard.settings import get_settings
from local.events import LambdaContext, Request, build_event
from leaderboard.routes import match_route
from local.tables import create_tables
from local.template import function_env, synthesized_template, table_specs


CURSOR_SECRET = "unit-test-cursor-secret-0123456789"


@pytest.fixture(scope="session")
def stack_template() -> dict:
    return synthesized_template("dev")


@pytest.fixture
def ddb(stack_template, monkeypatch):
    """A fresh moto DynamoDB with the stack's tables; the handlers' env points at them."""
    for name, value in function_env(stack_template).items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CURSOR_SECRET", CURSOR_SECRET)  # locally given; on AWS read from Secrets Manager
    get_settings.cache_clear()
    store.client.cache_clear()
    cursors._secret.cache_clear()
    with mock_aws():
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_tables(client, table_specs(stack_template))
        yield client
    get_settings.cache_clear()
    store.client.cache_clear()
    cursors._secret.cache_clear()


def event(
    method: str,
    path: str,
    body: Any = None,
    query: dict | None = None,
    headers: dict | None = None,
    key_id: str | None = None,
) -> dict:
    raw = (
        body
        if isinstance(body, (bytes, type(None)))
        else (body if isinstance(body, str) else json.dumps(body)).encode()
    )
    req = Request(method, path, list((query or {}).items()), list((headers or {}).items()), raw)
    route, _, params = match_route(method, path)
    return build_event(req, route.path if route else path, params, "test", None, key_id)


def call(handler: Callable, method: str, path: str, **kwargs) -> tuple[int, dict, dict]:
    """Invoke a handler like API Gateway would; returns (status, json body, headers)."""
    result = handler(event(method, path, **kwargs), LambdaContext("unit", "req-1", 10))
    return result["statusCode"], json.loads(result["body"]), result["headers"]


def scan(client, table: str) -> list[dict]:
    return client.scan(TableName=table)["Items"]
