"""An approval is atomic: the held submission's entries are written and the submission leaves the queue
in ONE unit of work (PendingStore.approval_ops with EntryStore.write_ops), on DynamoDB (one TransactWriteItems) and in
memory (under the lock the stores share) alike, so no reader ever meets a score both ranked and still pending, and a
removal that cannot happen applies nothing. The same cases on DynamoDB Local and in memory (conftest.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from cdk_leaderboard_lambda.composition import STORES, Runtime
from cdk_leaderboard_lambda.data.pending import MemoryPending
from cdk_leaderboard_lambda.data.unit_of_work import DynamoUnitOfWork, MemoryUnitOfWork, MemoryWrites
from cdk_leaderboard_lambda.domain.ports import Approval
from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog, quarantine, score_submission
from cdk_leaderboard_lambda.shared import item_keys, schema
from cdk_leaderboard_lambda.shared.clock import iso, ms
from cdk_leaderboard_lambda.shared.errors import Conflict, TransactionBusy
from cdk_leaderboard_lambda.shared.model import Entry, EntryWrite
from local import invocation

PART = "race#all-time"


def hold(runtime: Runtime, pending_id: str = "0001-a", player: str = "cy", score: int = 5000) -> None:
    """A submission held back as quarantine.hold stores one, submitted now."""
    now = runtime.clock.now()
    values = {"board_id": "q", "score": score, "rule": "max_score", "submitted_at": iso(now), "submitted_ms": ms(now)}
    runtime.pending.put("q", pending_id, player, values)


def board(runtime: Runtime):
    board_catalog.create_board(runtime, {"board_id": "q"}, runtime.clock.now())
    return board_catalog.get_board(runtime, "q")


def test_an_approval_ranks_the_score_and_empties_the_queue_together(runtime):
    config = board(runtime)
    hold(runtime)
    answer = quarantine.approve(runtime, config, "0001-a")
    assert answer["status"] == "approved"
    assert [e["score"] for e in runtime.entries.of_player("cy")] == [5000]
    assert runtime.pending.get("q", "0001-a") is None and runtime.pending.of_player("cy") == []
    with pytest.raises(Exception, match="no pending submission"):  # decided: 404
        quarantine.approve(runtime, config, "0001-a")


class BusyMemoryPending(MemoryPending):
    """The in-memory queue while another write holds its items: every removal is refused, as DynamoDB cancels a
    transaction on them (TransactionConflict)."""

    def approval_ops(self, approval: Approval) -> MemoryWrites:
        return MemoryWrites(self._lock, (lambda: TransactionBusy("this pending submission"),), lambda: None, 2)

    def drop(self, board_id: str, pending_id: str, player_id: str) -> None:
        raise TransactionBusy("this pending submission")


class BusyClient:
    """A DynamoDB client on which a transaction that touches a pending submission is cancelled because another one
    is in progress on it (TransactionConflict, which DynamoDB Local never shows); everything else passes."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def transact_write_items(self, TransactItems: list[dict[str, Any]], **kwargs: Any) -> Any:  # noqa: N803
        pending = item_keys.pending_key("q", "")[0]
        keys = [next(iter(a.values()))["Key"][schema.SCORES_PARTITION_KEY]["S"] for a in TransactItems]
        if pending in keys:
            reasons = [{"Code": "TransactionConflict" if k == pending else "None"} for k in keys]
            raise self._client.exceptions.TransactionCanceledException(
                {"Error": {"Code": "TransactionCanceledException", "Message": "busy"}, "CancellationReasons": reasons},
                "TransactWriteItems",
            )
        return self._client.transact_write_items(TransactItems=TransactItems, **kwargs)


def busy(runtime: Runtime) -> Runtime:
    """The same runtime, with the pending submission's items held by another write in progress."""
    stores: dict[str, Any] = {name: getattr(runtime, name) for name, _, _ in STORES}
    if isinstance(runtime.unit_of_work, MemoryUnitOfWork):
        stores["pending"] = BusyMemoryPending(runtime.unit_of_work.lock)
        stores["unit_of_work"] = runtime.unit_of_work
    else:
        stores["unit_of_work"] = DynamoUnitOfWork(BusyClient(runtime.dynamodb))
    return Runtime.build(runtime.settings, runtime.clock, runtime.dynamodb, **stores)


def test_an_approval_whose_submission_cannot_leave_the_queue_applies_nothing(runtime):
    """The old in-memory approval wrote the entries, then dropped the submission in a second step: a drop refused
    there left the score ranked AND pending (approvable again). Now nothing is written, and it waits, unclaimed."""
    config = board(runtime)
    held = busy(runtime)
    hold(held)
    with pytest.raises(TransactionBusy):
        quarantine.approve(held, config, "0001-a")
    assert held.entries.of_player("cy") == []  # no score applied
    item = held.pending.get("q", "0001-a")
    assert item is not None and "deciding" not in item  # still pending, for a decision again
    assert [p["pending_id"] for p in held.pending.of_player("cy")] == ["0001-a"]


def entry(player: str, score: int) -> Entry:
    return Entry(PART, player, player, score, f"{999_999 - score:06d}#{player}", 1, None, None)


def test_an_entries_write_removes_the_approved_submission_only_while_its_claim_holds(runtime):
    hold(runtime)
    assert runtime.pending.claim("q", "0001-a", "mine")
    lost = Approval("q", "0001-a", "cy", claim="another decision's")
    writes = [EntryWrite(entry("cy", 5000), None)]
    with pytest.raises(Conflict):
        runtime.unit_of_work.commit(runtime.pending.approval_ops(lost), runtime.entries.write_ops(writes))
    assert runtime.entries.of_player("cy") == []  # nothing written
    assert runtime.pending.get("q", "0001-a") is not None and runtime.pending.of_player("cy") != []
    mine = runtime.pending.approval_ops(Approval("q", "0001-a", "cy", "mine"))
    runtime.unit_of_work.commit(mine, runtime.entries.write_ops(writes))
    assert [e["score"] for e in runtime.entries.of_player("cy")] == [5000]
    assert runtime.pending.get("q", "0001-a") is None and runtime.pending.of_player("cy") == []


class CountingClient:
    """A DynamoDB client that counts the requests made through it (by operation) and the transactions' sizes."""

    def __init__(self, client: Any) -> None:
        self._client, self.calls, self.transactions = client, Counter(), []

    def __getattr__(self, name: str) -> Any:
        found = getattr(self._client, name)
        if name.startswith("_") or name in ("exceptions", "meta") or not callable(found):
            return found

        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            if name == "transact_write_items":
                self.transactions.append(len(kwargs["TransactItems"]))
            return found(*args, **kwargs)

        return counted


def test_an_approval_costs_the_requests_it_did_before_the_unit_of_work(runtime):
    """Claim (UpdateItem), read the submission (GetItem), the submission's read (BatchGetItem) and ONE transaction of
    the changed entries and the submission's two deletes; a submission of a board stored in the table is one read
    and one UpdateItem for its one changed period (no transaction where there was none)."""
    if not isinstance(runtime.unit_of_work, DynamoUnitOfWork):
        pytest.skip("counts DynamoDB requests")
    counting = CountingClient(runtime.dynamodb)
    runtime = Runtime.build(runtime.settings, runtime.clock, counting)
    with invocation.serving(runtime):
        board_catalog.create_board(runtime, {"board_id": "q", "periods": ["all-time"]}, runtime.clock.now())
        config = board_catalog.get_board(runtime, "q")
        hold(runtime, player="budget")
        counting.calls.clear()
        counting.transactions.clear()
        quarantine.approve(runtime, config, "0001-a")
        assert counting.calls == Counter(update_item=1, get_item=1, batch_get_item=1, transact_write_items=1)
        assert counting.transactions == [3]  # the entry's update, the submission's and its pointer's deletes
        counting.calls.clear()
        score_submission.submit(
            score_submission.Writer.of(runtime), config, Submission("budget", None, 6000), runtime.clock.now()
        )
        assert counting.calls == Counter(batch_get_item=1, update_item=1)
