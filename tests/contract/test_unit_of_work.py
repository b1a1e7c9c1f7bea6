"""The unit of work (ports.UnitOfWork): several stores' writes, each with its own conditions, committed all or nothing.
The same cases on DynamoDB Local (one TransactWriteItems) and in memory (one lock the stores share), conftest.py."""

from __future__ import annotations

import threading

import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.data.unit_of_work import DynamoUnitOfWork, DynamoWrites, MemoryUnitOfWork, MemoryWrites
from cdk_leaderboard_lambda.domain.entry_store import Changed
from cdk_leaderboard_lambda.domain.ports import MAX_ACTIONS, Approval
from cdk_leaderboard_lambda.shared.clock import iso, ms
from cdk_leaderboard_lambda.shared.errors import ApiError, Conflict
from cdk_leaderboard_lambda.shared.model import Entry, EntryWrite

PART = "race#all-time"


def entry(player: str, score: int) -> Entry:
    return Entry(PART, player, player, score, f"{999_999 - score:06d}#{player}", 1, None, None)


def held(runtime: Runtime, pending_id: str = "0001-a", player: str = "cy", claim: str = "mine") -> Approval:
    """A pending submission, claimed by the decision `claim`; its approval."""
    now = runtime.clock.now()
    values = {"board_id": "q", "score": 5000, "rule": "max_score", "submitted_at": iso(now), "submitted_ms": ms(now)}
    runtime.pending.put("q", pending_id, player, values)
    assert runtime.pending.claim("q", pending_id, claim)
    return Approval("q", pending_id, player, claim)


def pending_left(runtime: Runtime, player: str = "cy") -> list[str]:
    return [p["pending_id"] for p in runtime.pending.of_player(player)]


def scores(runtime: Runtime, player: str) -> list[int]:
    return [e["score"] for e in runtime.entries.of_player(player)]


def test_the_writes_of_both_stores_land_together(runtime):
    approval = held(runtime)
    writes = [EntryWrite(entry("cy", 5000), None), EntryWrite(entry("dee", 10), None)]
    runtime.unit_of_work.commit(runtime.pending.approval_ops(approval), runtime.entries.write_ops(writes))
    assert scores(runtime, "cy") == [5000] and scores(runtime, "dee") == [10]
    assert runtime.pending.get("q", "0001-a") is None and pending_left(runtime) == []


def test_a_failed_condition_of_the_entries_leaves_the_pending_store_unchanged(runtime):
    approval = held(runtime)
    runtime.entries.write([EntryWrite(entry("cy", 100), None)])
    stale = [EntryWrite(entry("cy", 5000), None)]  # expects no entry: one is there now
    with pytest.raises(Changed):
        runtime.unit_of_work.commit(runtime.pending.approval_ops(approval), runtime.entries.write_ops(stale))
    assert scores(runtime, "cy") == [100]
    assert runtime.pending.get("q", "0001-a")["deciding"] == "mine" and pending_left(runtime) == ["0001-a"]


def test_a_failed_condition_of_the_pending_store_leaves_the_entries_unchanged(runtime):
    approval = held(runtime)
    lost = Approval(approval.board_id, approval.pending_id, approval.player_id, claim="another decision's")
    writes = [EntryWrite(entry("cy", 5000), None), EntryWrite(entry("dee", 10), None)]
    with pytest.raises(Conflict):
        runtime.unit_of_work.commit(runtime.pending.approval_ops(lost), runtime.entries.write_ops(writes))
    assert runtime.entries.of_player("cy") == [] and runtime.entries.of_player("dee") == []
    assert pending_left(runtime) == ["0001-a"]


def test_the_first_failed_condition_in_the_order_given_is_the_one_told(runtime):
    approval = held(runtime)
    lost = Approval(approval.board_id, approval.pending_id, approval.player_id, claim="another decision's")
    runtime.entries.write([EntryWrite(entry("cy", 100), None)])
    stale = runtime.entries.write_ops([EntryWrite(entry("cy", 5000), None)])
    with pytest.raises(Changed):
        runtime.unit_of_work.commit(stale, runtime.pending.approval_ops(lost))
    with pytest.raises(Conflict):
        runtime.unit_of_work.commit(runtime.pending.approval_ops(lost), stale)


def test_concurrent_conflicting_commits_let_one_through_and_refuse_the_others_cleanly(runtime):
    """Several decisions race to apply the same approval and create the same entry: one commits, every other is
    refused by a condition (in memory the lock orders them; DynamoDB Local serializes its transactions), and
    nothing is left half done."""
    approval = held(runtime)
    racers = 4
    start = threading.Barrier(racers)
    outcomes: list[object] = []

    def race(score: int) -> None:
        create = [EntryWrite(entry("cy", score), None)]
        ops = (runtime.pending.approval_ops(approval), runtime.entries.write_ops(create))
        start.wait()
        try:
            runtime.unit_of_work.commit(*ops)
            outcomes.append(score)
        except (Changed, ApiError) as err:
            outcomes.append(err)

    threads = [threading.Thread(target=race, args=(100 + i,)) for i in range(racers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    won = [o for o in outcomes if isinstance(o, int)]
    assert len(won) == 1 and len(outcomes) == racers
    assert all(isinstance(o, Changed | Conflict) for o in outcomes if not isinstance(o, int))
    assert scores(runtime, "cy") == won and pending_left(runtime) == []


def test_more_writes_than_one_commit_holds_are_refused_before_anything_is_written(runtime):
    writes = [EntryWrite(entry(f"p{i:03d}", i), None) for i in range(MAX_ACTIONS + 1)]
    with pytest.raises(ValueError, match="at once"):
        runtime.unit_of_work.commit(runtime.entries.write_ops(writes))
    assert runtime.entries.get([(f"p{i:03d}", PART) for i in range(MAX_ACTIONS + 1)]) == {}
    runtime.unit_of_work.commit(runtime.entries.write_ops(writes[:MAX_ACTIONS]))  # exactly the limit: one commit
    assert len(runtime.entries.get([(f"p{i:03d}", PART) for i in range(MAX_ACTIONS)])) == MAX_ACTIONS


def test_one_store_s_writes_alone_commit_as_their_own(runtime):
    runtime.unit_of_work.commit(runtime.entries.write_ops([EntryWrite(entry("cy", 7), None)]))
    assert scores(runtime, "cy") == [7]
    with pytest.raises(Changed):
        runtime.unit_of_work.commit(runtime.entries.write_ops([EntryWrite(entry("cy", 8), None)]))
    runtime.unit_of_work.commit()  # nothing to write: nothing sent
    assert scores(runtime, "cy") == [7]


def test_a_unit_of_work_takes_only_writes_it_can_commit_atomically(runtime):
    """Writes of the other implementation, or of an in-memory store outside the unit's lock, could not commit in
    the same step: refused, nothing written."""
    ops = runtime.entries.write_ops([EntryWrite(entry("cy", 7), None)])
    if isinstance(runtime.unit_of_work, MemoryUnitOfWork):
        assert isinstance(ops, MemoryWrites)
        with pytest.raises(TypeError):
            MemoryUnitOfWork().commit(ops)  # a lock of its own, not the stores'
        with pytest.raises(TypeError):
            runtime.unit_of_work.commit(DynamoWrites((), "nothing"))
    else:
        assert isinstance(runtime.unit_of_work, DynamoUnitOfWork) and isinstance(ops, DynamoWrites)
        with pytest.raises(TypeError):
            runtime.unit_of_work.commit(MemoryWrites(object(), (), lambda: None))
    assert runtime.entries.of_player("cy") == []
