"""One local stack for the integration tests: DynamoDB Local on a free port, tables from the
synthesized template, and the real handlers behind the local gateway on a thread.

Tests talk to it over HTTP with requests, exactly as a client of the deployed API would.
Package scope (this folder has an __init__.py): the stack, and the environment it sets for
the handlers, end with the last test here, before other folders' tests run.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import pytest
import requests

from cdk_leaderboard_lambda.web import routes
from local.backend import Backend
from tests.support import clock

from .stack_config import ADMIN_KEY, API_KEY, DASHBOARD_ORIGIN, OTHER_ORIGIN


@dataclass
class Api:
    url: str
    key: str  # the game key
    http: requests.Session
    admin_key: str = ADMIN_KEY

    def key_for(self, method: str, path: str) -> str:
        """The key the route needs: the admin key on admin routes, else the game key."""
        route, _, _ = routes.match_route(method, path.split("?", 1)[0])
        return self.admin_key if route is not None and route.access == routes.ADMIN else self.key

    def get(self, path: str, *, key: str | None = None, **kw) -> requests.Response:
        """Without a key, as the public reads are called; key="default" for an admin read."""
        return self.http.get(self.url + path, headers=self._headers("GET", path, key, kw), timeout=60, **kw)

    def _headers(self, method: str, path: str, key: str | None, kw: dict) -> dict:
        headers = dict(kw.pop("headers", {}))
        if key:
            headers["x-api-key"] = self.key_for(method, path) if key == "default" else key
        return headers

    def delete(self, path: str, *, key: str | None = "default", **kw) -> requests.Response:
        return self.http.delete(self.url + path, headers=self._headers("DELETE", path, key, kw), timeout=60, **kw)

    def put(self, path: str, *, key: str | None = "default", **kw) -> requests.Response:
        return self.http.put(self.url + path, headers=self._headers("PUT", path, key, kw), timeout=60, **kw)

    def post(self, path: str, body=None, *, key: str | None = "default", **kw) -> requests.Response:
        headers = self._headers("POST", path, key, kw)
        if body is not None:
            kw["json"] = body
        return self.http.post(self.url + path, headers=headers, timeout=60, **kw)


@contextmanager
def local_stack(tmp_path_factory) -> Iterator[Backend]:
    """A local stack started, served, and stopped after."""
    backend = Backend(
        api_key=API_KEY,
        admin_key=ADMIN_KEY,
        cors_origins=(DASHBOARD_ORIGIN, OTHER_ORIGIN),
        quiet=True,
        run_dir=tmp_path_factory.mktemp("local-stack"),
        # The tests move it to a period's end or a fresh minute instead of sleeping for it (stack.clock).
        clock=clock.RunningClock(),
    )
    try:
        # In-process code of a test (meters on the handlers' DynamoDB client, loads written straight into the
        # tables) sees the stack's runtime; the client stays the same when the stack renews its runtime.
        with backend.start().serving():
            yield backend
    finally:
        backend.stop()


@pytest.fixture(scope="package")
def stack(tmp_path_factory):
    with local_stack(tmp_path_factory) as backend:
        yield backend


@pytest.fixture(autouse=True)
def _clear_of_midnight(request):
    """A test on the stack starts at least MIDNIGHT_MARGIN_SECONDS before 00:00 UTC on its clock (moved past it)."""
    if "stack" in request.fixturenames:
        clock.clear_of_midnight(request.getfixturevalue("stack"))


@contextmanager
def api_of(stack: Backend) -> Iterator[Api]:
    """A client of `stack`'s API with the game key, its session closed after."""
    with requests.Session() as http:
        yield Api(stack.api_url, API_KEY, http)


@pytest.fixture(scope="package")
def api(stack) -> Api:
    with api_of(stack) as client:
        yield client


@pytest.fixture
def clean(stack):
    """Empty tables for a test that counts what is on a board."""
    stack.reset_tables()


@pytest.fixture
def table_state(stack):
    """A function returning every item of every table, to prove a request changed nothing."""

    def snapshot(settle: bool = True) -> dict[str, list[str]]:
        """settle=False for the state before a request when every write before it has been settled already (the
        settle waits out two idle polls of each stream consumer: most of the cost)."""
        if settle:
            stack.settle()  # the rank counters follow earlier writes a moment later: let them finish first
        out = {}
        for spec in stack.specs:
            items = []
            for page in stack.ddb.get_paginator("scan").paginate(TableName=spec.local_name, ConsistentRead=True):
                items += [json.dumps(i, sort_keys=True) for i in page["Items"]]
            out[spec.local_name] = sorted(items)
        return out

    return snapshot
