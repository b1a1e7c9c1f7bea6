"""The composition root (composition.Runtime): what a function depends on is one object per cold start, the time
comes from its clock, and two runtimes in one process share nothing (the local stack and the tests rely on it)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import botocore.exceptions
import pytest

from cdk_leaderboard_lambda.composition import STORES, Runtime
from cdk_leaderboard_lambda.operations import board_catalog
from local import invocation
from tests.support.lambda_api import create_board, submit, top


def test_a_day_ends_when_the_runtime_s_clock_says_so_not_the_machine_s(ddb, clock):
    """No sleep until midnight: the clock is set a second before it, then moved past it."""
    today = datetime.now(UTC).replace(hour=23, minute=59, second=59, microsecond=0)
    clock.set(today)
    assert create_board("day", periods=["daily"]).status == 201
    assert submit("day", "ann", 5).status == 200
    before = top("day", period="daily").body
    assert before["period_id"] == f"daily-{today:%Y-%m-%d}" and [e["player_id"] for e in before["entries"]] == ["ann"]

    clock.advance(2)
    after = top("day", period="daily").body
    assert after["period_id"] == f"daily-{today + timedelta(days=1):%Y-%m-%d}" and after["entries"] == []
    kept = top("day", period=f"daily-{today:%Y-%m-%d}").body  # yesterday's period keeps its entry
    assert [e["player_id"] for e in kept["entries"]] == ["ann"]


def test_outside_an_invocation_no_runtime_is_served():
    """Nothing falls back to a process-wide default: code run outside a handler (or a test's runtime) says so."""
    with pytest.raises(RuntimeError, match="no runtime is serving"):
        invocation.runtime()


def test_two_runtimes_in_one_process_keep_their_own_settings_and_caches(ddb):
    """Two stacks in one process (two threads, each serving its own runtime) see their own settings and board
    caches: before, settings, clients and the board cache were process-wide."""
    mine = invocation.runtime()
    other = mine.with_settings(max_boards=7, cursor_ttl_seconds=5)
    assert create_board("seen").status == 201
    board_catalog.get_board(invocation.runtime(), "seen")  # cached by this runtime only
    seen: dict[str, tuple[int, bool]] = {}

    def look(name: str, runtime: Runtime) -> None:
        with invocation.serving(runtime):
            seen[name] = (invocation.settings().max_boards, runtime.board_cache.get("seen") is not None)

    threads = [threading.Thread(target=look, args=a) for a in (("mine", mine), ("other", other))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == {"mine": (mine.settings.max_boards, True), "other": (7, False)}
    assert invocation.runtime() is mine  # the other thread's binding did not leak into this one


def test_the_in_memory_fixture_holds_every_store_in_memory_and_its_client_answers_nothing(in_memory):
    """What tests on `in_memory` rely on: no store of theirs is on DynamoDB, and a call past the stores fails at
    once instead of reaching an engine."""
    assert all(isinstance(getattr(in_memory, name), on_memory) for name, _, on_memory in STORES)
    with pytest.raises(botocore.exceptions.EndpointConnectionError):
        in_memory.dynamodb.list_tables()
