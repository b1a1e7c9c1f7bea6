"""The log's cost, counted (not timed) under moto: what the rank-counter function's append makes per stream batch.
The request path makes no extra request for the log (tests/integration/test_write_budgets.py counts it, unchanged:
BatchGetItem 1 + UpdateItem 3 for an improving POST /scores on the default board).

Per batch of n logged changes of p players on b board periods: BatchGetItem of the marks and of the keys (one per
100 each), a PutItem per player with no key yet, and per board period a GetItem of the head and a TransactWriteItems
of the head, the records and their marks (one per 49 changes). docs/PROVING.md states the same figures."""

from __future__ import annotations

from bench.metering import Meter, attach, detach
from cdk_leaderboard_lambda.operations import chain_appending
from local import invocation
from tests.support.lambda_api import create_board, submit


def metering_appends(monkeypatch) -> list:
    """Each append's usage (and stats) from now on, while the consumer runs in the test's thread."""
    taken: list = []
    real = chain_appending.append

    def metered(runtime, records, stats=None):
        meter = Meter()
        attach(invocation.runtime().dynamodb, meter)
        try:
            result = real(runtime, records, stats)
        finally:
            detach(invocation.runtime().dynamodb, meter)
        if result.changes:
            taken.append((meter.take(), result))
        return result

    monkeypatch.setattr(chain_appending, "append", metered)
    return taken


def test_a_submission_on_the_default_board_costs_the_log_8_requests_off_the_request_path(ddb, settle, monkeypatch):
    """Three periods, three records: marks and keys read in one request each, a head read and a transaction per
    period (head, record, mark: 3 items), and the first time one PutItem of the player's key."""
    taken = metering_appends(monkeypatch)
    assert submit(None, "budget", 100).status == 200
    settle()
    assert submit(None, "budget", 200).status == 200
    settle()
    (first, first_stats), (second, second_stats) = taken
    assert first.by_operation == {"BatchGetItem": 2, "PutItem": 1, "GetItem": 3, "TransactWriteItems": 3}
    assert first.transaction_items == 9 and first_stats.appended == 3
    assert second.by_operation == {"BatchGetItem": 2, "GetItem": 3, "TransactWriteItems": 3}
    assert second.requests == 8 and second.transaction_items == 9 and second_stats.appended == 3


def test_a_batch_shares_its_requests_among_its_changes(ddb, settle, monkeypatch):
    """30 players on a one-period board in one batch: still one head read and one transaction per 49 changes."""
    assert create_board("busy", periods=["all-time"]).status == 201
    for n in range(30):
        assert submit("busy", f"p{n:02d}", n).status == 200
    settle()
    taken = metering_appends(monkeypatch)
    for n in range(30):
        assert submit("busy", f"p{n:02d}", 100 + n).status == 200
    settle()
    ((usage, stats),) = taken
    assert stats.appended == 30 and stats.conflicts == 0
    assert usage.by_operation == {"BatchGetItem": 2, "GetItem": 1, "TransactWriteItems": 1}
    assert usage.transaction_items == 1 + 2 * 30  # the head, and per change its record and its mark


def test_a_retried_batch_reads_the_marks_and_writes_nothing(served, settle, monkeypatch):
    assert create_board("again", periods=["all-time"]).status == 201
    assert submit("again", "ada", 5).status == 200
    seen: list = []
    real = chain_appending.append

    def keep(runtime, records, stats=None):
        seen.append(records)
        return real(runtime, records, stats)

    monkeypatch.setattr(chain_appending, "append", keep)
    settle()
    monkeypatch.setattr(chain_appending, "append", real)
    taken = metering_appends(monkeypatch)
    stats = chain_appending.append(served, seen[0])  # Lambda delivers the same batch again
    ((usage, _),) = taken
    assert (stats.appended, stats.skipped) == (0, 1)
    assert usage.by_operation == {"BatchGetItem": 1}  # the marks: every change is appended already
