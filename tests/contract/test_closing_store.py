"""The closing summaries (ports.ClosingStore): the same cases on DynamoDB Local and in memory (conftest.py)."""

from __future__ import annotations

import threading

import pytest
from botocore.exceptions import ClientError

from local import invocation


@pytest.fixture
def store(runtime):
    return runtime.closings


def summary(period_id: str, *players: str, **more) -> dict:
    top = [{"rank": i + 1, "player_id": p, "player_name": p.title(), "score": 50 - i} for i, p in enumerate(players)]
    return {
        "board_id": "race",
        "period_id": period_id,
        "kind": "daily",
        "status": "closed",
        "starts_at": None,  # a None attribute is not stored
        "ends_at": f"{period_id}T00:00:00Z",
        "closed_at": f"{period_id}T00:05:00Z",
        "total_players": len(players),
        "top": top,
        "rewards": [{"reward": "gold", "ranks": [1, 1], "players": top[:1]}],
        "event_sent": False,
        **more,
    }


def test_the_first_summary_of_a_period_wins_and_reads_back_as_stored(store):
    assert store.get("race", "2026-11-29#d") is None
    assert store.put_new("race", "2026-11-29#d", summary("2026-11-29", "ada", "bo")) is True
    assert store.put_new("race", "2026-11-29#d", summary("2026-11-29", "cy")) is False  # a later closing
    stored = store.get("race", "2026-11-29#d")
    expected = {k: v for k, v in summary("2026-11-29", "ada", "bo").items() if v is not None}
    assert stored == expected  # without the table's keys, and without the None attribute
    assert isinstance(stored["top"][0]["score"], int)
    assert store.get("lap", "2026-11-29#d") is None  # boards apart


def test_the_newest_summaries_come_latest_first_with_only_the_listed_fields(store):
    for day in ("2026-11-27", "2026-11-29", "2026-11-28"):
        store.put_new("race", f"{day}#d", summary(day, "ada"))
    store.put_new("lap", "2026-11-30#d", summary("2026-11-30", "bo"))
    newest = store.newest("race", 2)
    assert [s["period_id"] for s in newest] == ["2026-11-29", "2026-11-28"]
    assert newest[0] == {
        "period_id": "2026-11-29",
        "kind": "daily",
        "ends_at": "2026-11-29T00:00:00Z",
        "closed_at": "2026-11-29T00:05:00Z",
        "total_players": 1,
    }  # starts_at was None: not stored, so not listed
    assert store.newest("nobody", 5) == []


def test_an_event_is_claimed_by_one_until_its_lease_ends_and_never_once_sent(store):
    assert store.claim_event("race", "x", now_s=1000, lease_s=300) is False  # no such summary
    store.put_new("race", "x", summary("x"))
    assert store.claim_event("race", "x", now_s=1000, lease_s=300) is True
    assert store.claim_event("race", "x", now_s=1300, lease_s=300) is False  # held until 1300 inclusive
    assert store.claim_event("race", "x", now_s=1301, lease_s=300) is True  # its holder died: taken over
    store.mark_event_sent("race", "x")
    assert store.claim_event("race", "x", now_s=9999, lease_s=300) is False
    assert store.get("race", "x")["event_sent"] is True and store.get("race", "x")["event_claimed_until"] == 1601


def test_concurrent_claims_of_one_event_have_one_winner(store):
    store.put_new("race", "x", summary("x"))
    barrier, results = threading.Barrier(8), []

    def claim() -> None:
        barrier.wait()
        results.append(store.claim_event("race", "x", now_s=1000, lease_s=300))

    threads = [threading.Thread(target=invocation.carried(claim)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True]


def test_a_board_s_items_page_by_page_whole_and_their_players_replaced(store):
    """What erasure relies on: every stored item of the board once, with its keys, so that it can be rewritten."""
    assert store.page_of_board("race", None, 2) == ([], None)
    days = [f"2026-11-2{d}" for d in range(5)]
    for day in days:
        store.put_new("race", f"{day}#d", summary(day, "ada", "bo"))
    store.put_new("lap", "2026-11-20#d", summary("2026-11-20", "ada"))
    seen, cursor = [], None
    for _ in range(10):
        page, cursor = store.page_of_board("race", cursor, 2)
        assert len(page) <= 2
        seen += page
        if cursor is None:
            break
    assert sorted(s["period_id"] for s in seen) == days
    item = seen[0]
    erased = {"rank": 1, "player_id": "erased", "player_name": "(erased)", "score": 50}
    store.replace_players(item, [erased, item["top"][1]], [{**item["rewards"][0], "players": [erased]}])
    after = store.get("race", f"{item['period_id']}#d")
    assert after["top"] == [erased, item["top"][1]] and after["rewards"][0]["players"] == [erased]
    assert {k: v for k, v in after.items() if k not in ("top", "rewards")} == {
        k: v for k, v in summary(item["period_id"]).items() if k not in ("top", "rewards") and v is not None
    } | {"total_players": 2}
    # with a signature (erasure signs the rewritten summary again): it is set too, nothing else changes
    store.replace_players(item, [erased], [], "header.payload.signature")
    signed = store.get("race", f"{item['period_id']}#d")
    assert (signed["top"], signed["rewards"], signed["signature"]) == ([erased], [], "header.payload.signature")
    assert {k: v for k, v in signed.items() if k not in ("top", "rewards", "signature")} == {
        k: v for k, v in after.items() if k not in ("top", "rewards")
    }
    with pytest.raises(ClientError) as refused:
        store.replace_players({**item, "leaderboard_id": "gone#d"}, [], [])
    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert store.get("race", "gone#d") is None
