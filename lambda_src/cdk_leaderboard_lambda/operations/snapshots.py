"""Snapshots: a period's top N frozen into the append-only history, and the history listed newest first."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, Protocol

from ..domain import boards, periods
from ..shared.clock import iso
from . import ranking_reads

if TYPE_CHECKING:
    from ..composition import Runtime


class SnapshotStore(Protocol):
    """The append-only history (data/snapshots.py: DynamoDB, or in memory). A snapshot is keyed by its
    `leaderboard_id` (its board period) and `taken_at` (its time, ordered)."""

    def put(self, snapshot: dict[str, Any]) -> None:
        """Store a new snapshot; one with the same key exists already: raise botocore's ClientError with the code
        ConditionalCheckFailedException (what the DynamoDB client raises), storing nothing."""
        ...

    def put_once(self, snapshot: dict[str, Any]) -> bool:
        """put(), or False (nothing changed) if that snapshot exists already."""
        ...

    def newest(self, leaderboard_id: str, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` snapshots of a board period, the latest `taken_at` first."""
        ...

    def scan_page(self, start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
        """Up to `limit` snapshots of the whole history after the cursor `start` (None: from the first), and the
        cursor to the next page (None once every snapshot was on a page): each snapshot is on one page."""
        ...

    def replace_entries(self, snapshot: dict[str, Any], new_entries: list[dict[str, Any]]) -> None:
        """Set an existing snapshot's entries (nothing else of it changes)."""
        ...


def take_snapshot(runtime: Runtime, period: str | None, limit: int) -> dict:
    now = runtime.clock.now()
    p = periods.resolve(period, now, boards.DEFAULT_BOARD.periods)
    # The sort key is the time plus a random suffix: two snapshots in the same ms stay distinct.
    sort_key = f"{iso(now)}#{secrets.token_hex(3)}"
    snapshot = {
        "leaderboard_id": p.period_id,
        "taken_at": sort_key,
        "snapshot_id": f"{p.period_id}#{sort_key}",
        "period": p.kind,
        "entries": ranking_reads.ranked(runtime.entries.page(p.period_id, limit)),
    }
    runtime.snapshots.put(snapshot)
    return {**snapshot, "taken_at": iso(now)}


def snapshots(runtime: Runtime, period: str | None, limit: int) -> dict:
    p = periods.resolve(period, runtime.clock.now(), boards.DEFAULT_BOARD.periods)
    items = runtime.snapshots.newest(p.period_id, limit)
    return {
        "leaderboard_id": p.period_id,
        "period": p.kind,
        "snapshots": [
            {"snapshot_id": s["snapshot_id"], "taken_at": s["taken_at"].split("#")[0], "entries": s["entries"]}
            for s in items
        ],
    }
