"""The erasure records (ports.ErasureStore): the same cases on DynamoDB Local and in memory (conftest.py).
What player_removal relies on: one call at a time holds an erasure (its lease), the last save releases it, the
audit outlives the state, and the scheduled job's list gives the due erasures in due order."""

from __future__ import annotations

import pytest

from cdk_leaderboard_lambda.shared import item_keys

KEY = ("#erasing#abc", "#erasing")


@pytest.fixture
def store(runtime):
    return runtime.erasures


def test_one_call_creates_an_erasure_and_holds_its_lease(store):
    assert store.state(KEY) is None
    assert store.create(KEY, {"erasure_id": "e1", "phase": "erasing", "subject": "ada", "none": None}, 100)
    assert not store.create(KEY, {"erasure_id": "e2", "phase": "erasing"}, 100)  # another call was first
    state = store.state(KEY)
    assert state["erasure_id"] == "e1" and state["lease_until"] == 100 and "none" not in state
    assert store.claim(KEY, 99, 200) is None  # leased until 100
    assert store.claim(KEY, 100, 200)["lease_until"] == 200  # the lease has run out: this call takes it
    assert store.claim(("#erasing#none", "#erasing"), 0, 10) is None  # no such erasure


def test_saving_the_state_or_releasing_gives_the_lease_up(store):
    store.create(KEY, {"erasure_id": "e1", "phase": "erasing"}, 100)
    store.save_state(KEY, {"erasure_id": "e1", "phase": "records", "lease_until": 500, "cursor": None})
    assert store.state(KEY) == {"player_id": KEY[0], "leaderboard_id": KEY[1], "erasure_id": "e1", "phase": "records"}
    assert store.claim(KEY, 0, 100)["phase"] == "records"
    store.release(KEY)
    assert "lease_until" not in store.state(KEY) and store.claim(KEY, 0, 100) is not None
    store.drop_state(KEY)
    store.release(KEY)  # gone: nothing to release, no error
    assert store.state(KEY) is None


def test_the_audit_record_is_kept_apart_and_updated_in_place(store):
    store.put_audit("e1", {"status": "erasing", "requested_at": "2026-12-01T00:00:00Z"})
    store.update_audit("e1", {"status": "erased", "erased_at": "2026-12-01T00:01:00Z"})
    audit = store.audit("e1")
    assert (audit["status"], audit["requested_at"], audit["erased_at"]) == (
        "erased",
        "2026-12-01T00:00:00Z",
        "2026-12-01T00:01:00Z",
    )
    assert audit["player_id"] == item_keys.ERASURES_PARTITION
    store.drop_audit("e1")
    assert store.audit("e1") is None and store.audit("never") is None


def test_the_scheduled_list_gives_the_due_erasures_first_due_first(store):
    store.register(KEY, "late", 300)
    store.register(("#erasing#b", "#erasing"), "early", 100)
    store.register(("#erasing#c", "#erasing"), "soon", 200)
    store.register(("#erasing#d", "#erasing"), "same", 200)
    due = store.due(200, 10)
    assert [(d["erasure_id"], d["due"]) for d in due] == [("early", 100), ("same", 200), ("soon", 200)]
    assert tuple(due[0]["erasing_key"]) == ("#erasing#b", "#erasing")
    assert [d["erasure_id"] for d in store.due(1_000, 2)] == ["early", "same"]
    assert store.due(99, 10) == []
    store.unregister("early", 100)
    store.unregister("early", 100)  # again: nothing there
    assert [d["erasure_id"] for d in store.due(1_000, 10)] == ["same", "soon", "late"]


def test_a_token_floor_sits_beside_the_erasure_and_a_later_one_replaces_it(store):
    floor_key = ("#erasing#abc", item_keys.TOKEN_FLOOR_SORT)
    assert store.token_floor(floor_key) is None
    store.create(KEY, {"erasure_id": "e1", "phase": "erasing"}, 100)
    store.put_token_floor(floor_key, 1000, 90_000)
    assert store.token_floor(floor_key) == 1000
    assert store.state(KEY)["erasure_id"] == "e1"  # the erasure's own item is untouched
    store.drop_state(KEY)  # the erasure's item goes when its fence is lifted: the floor stays
    assert store.token_floor(floor_key) == 1000
    store.put_token_floor(floor_key, 2000, 92_000)  # the same player erased again
    assert store.token_floor(floor_key) == 2000
    assert store.token_floor(("#erasing#other", item_keys.TOKEN_FLOOR_SORT)) is None
