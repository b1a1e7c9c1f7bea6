"""An approval is atomic: the held submission's entries are written and the submission leaves the queue
in ONE write (EntryStore.write(approving=...)), on DynamoDB (one TransactWriteItems) and in memory (under the
entries' lock) alike, so no reader ever meets a score both ranked and still pending, and a removal that cannot
happen applies nothing. The same cases on DynamoDB Local and in memory (conftest.py)."""

from __future__ import annotations

from typing import Any

import pytest

from cdk_leaderboard_lambda.composition import STORES, Runtime
from cdk_leaderboard_lambda.data.entries import DynamoEntries
from cdk_leaderboard_lambda.data.memory_entries import MemoryEntries
from cdk_leaderboard_lambda.data.memory_stream import MemoryStream
from cdk_leaderboard_lambda.data.pending import MemoryPending
from cdk_leaderboard_lambda.domain.ports import Approval
from cdk_leaderboard_lambda.operations import board_catalog, quarantine
from cdk_leaderboard_lambda.shared import item_keys, schema
from cdk_leaderboard_lambda.shared.clock import iso, ms
from cdk_leaderboard_lambda.shared.errors import Conflict, TransactionBusy
from cdk_leaderboard_lambda.shared.model import Entry, EntryWrite

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

    def take(self, approval: Approval) -> bool:
        raise TransactionBusy("this pending submission")

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
    stores = {name: getattr(runtime, name) for name, _, _ in STORES}
    if isinstance(runtime.entries, MemoryEntries):
        stores["pending"] = BusyMemoryPending()
        stores["entries"] = MemoryEntries(
            runtime.moderation, runtime.boards, runtime.erasures, MemoryStream(), stores["pending"]
        )
    else:
        settings = runtime.settings
        stores["entries"] = DynamoEntries(
            BusyClient(runtime.dynamodb), settings.scores_table, settings.rank_index, runtime.clock, runtime.digest_key
        )
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
    with pytest.raises(Conflict):
        runtime.entries.write([EntryWrite(entry("cy", 5000), None)], approving=lost)
    assert runtime.entries.of_player("cy") == []  # nothing written
    assert runtime.pending.get("q", "0001-a") is not None and runtime.pending.of_player("cy") != []
    runtime.entries.write([EntryWrite(entry("cy", 5000), None)], approving=Approval("q", "0001-a", "cy", "mine"))
    assert [e["score"] for e in runtime.entries.of_player("cy")] == [5000]
    assert runtime.pending.get("q", "0001-a") is None and runtime.pending.of_player("cy") == []
