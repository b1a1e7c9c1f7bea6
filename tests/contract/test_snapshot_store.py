"""The snapshot archive (ports.SnapshotStore): the same cases on DynamoDB Local and in memory (conftest.py)."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from cdk_leaderboard_lambda.domain.ports import Taken


@pytest.fixture
def store(runtime):
    return runtime.snapshots


def snapshot(board_period: str, taken_at: str, *players: str) -> dict:
    entries = [{"rank": i + 1, "player_id": p, "player_name": None, "score": 100 - i} for i, p in enumerate(players)]
    return {
        "leaderboard_id": board_period,
        "taken_at": taken_at,
        "snapshot_id": f"{board_period}#{taken_at}",
        "period": "all-time",
        "entries": entries,
        "note": None,  # a None attribute is not stored
    }


def test_a_period_s_snapshots_come_newest_first_up_to_the_limit_and_apart_from_other_periods(store):
    for taken_at in ("2026-11-30T10:00:00Z#a", "2026-11-30T12:00:00Z#b", "2026-11-30T11:00:00Z#c"):
        store.put(snapshot("race#all-time", taken_at, "ada", "bo"))
    store.put(snapshot("lap#all-time", "2026-11-30T13:00:00Z#d", "cy"))
    newest = store.newest("race#all-time", 2)
    assert [s["taken_at"] for s in newest] == ["2026-11-30T12:00:00Z#b", "2026-11-30T11:00:00Z#c"]
    assert newest[0] == {
        "leaderboard_id": "race#all-time",
        "taken_at": "2026-11-30T12:00:00Z#b",
        "snapshot_id": "race#all-time#2026-11-30T12:00:00Z#b",
        "period": "all-time",
        "entries": [
            {"rank": 1, "player_id": "ada", "player_name": None, "score": 100},
            {"rank": 2, "player_id": "bo", "player_name": None, "score": 99},
        ],
    }
    assert isinstance(newest[0]["entries"][0]["score"], int)  # numbers come back as ints, not Decimals
    assert store.newest("nobody#all-time", 5) == []


def test_the_archive_is_append_only_a_second_put_is_refused_and_changes_nothing(store):
    store.put(snapshot("race#all-time", "2026-11-30T10:00:00Z#a", "ada"))
    with pytest.raises(Taken):
        store.put(snapshot("race#all-time", "2026-11-30T10:00:00Z#a", "bo"))
    assert store.put_once(snapshot("race#all-time", "2026-11-30T10:00:00Z#a", "cy")) is False
    assert store.put_once(snapshot("race#all-time", "2026-11-30T10:00:01Z#a", "cy")) is True
    assert [s["entries"][0]["player_id"] for s in store.newest("race#all-time", 5)] == ["cy", "ada"]


def test_scanning_page_by_page_visits_every_snapshot_once_and_ends(store):
    """What erasure relies on: cursors carried from page to page (in its saved state) reach every snapshot."""
    assert store.scan_page(None, 3) == ([], None)
    made = {(f"board{b}#all-time", f"2026-11-30T1{t}:00:00Z#x") for b in range(3) for t in range(3)}
    for board_period, taken_at in made:
        store.put(snapshot(board_period, taken_at, "ada"))
    seen, cursor, pages = [], None, 0
    while True:
        page, cursor = store.scan_page(cursor, 4)
        assert len(page) <= 4
        seen += [(s["leaderboard_id"], s["taken_at"]) for s in page]
        pages += 1
        if cursor is None:
            break
        assert pages < 10
    assert sorted(seen) == sorted(made) and len(seen) == len(made)


def test_replacing_entries_changes_only_them_and_never_creates_a_snapshot(store):
    store.put(snapshot("race#all-time", "2026-11-30T10:00:00Z#a", "ada", "bo"))
    (stored,) = store.newest("race#all-time", 1)
    placeholder = [{"rank": 1, "player_id": "erased", "player_name": "(erased)", "score": 100}, stored["entries"][1]]
    store.replace_entries(stored, placeholder)
    assert store.newest("race#all-time", 1) == [{**stored, "entries": placeholder}]
    with pytest.raises(ClientError) as refused:
        store.replace_entries(snapshot("race#all-time", "2026-11-30T09:00:00Z#z"), placeholder)
    assert refused.value.response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert len(store.newest("race#all-time", 5)) == 1
