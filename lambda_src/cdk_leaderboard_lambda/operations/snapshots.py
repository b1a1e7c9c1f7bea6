"""Snapshots: a period's top N frozen into the append-only history, and the history listed newest first."""

from __future__ import annotations

import secrets
from datetime import datetime

from ..domain import boards, periods
from ..domain.ports import SnapshotStore
from ..shared import invocation
from ..shared.clock import iso
from . import ranking_reads


def _store() -> SnapshotStore:
    return invocation.runtime().snapshots


def take_snapshot(period: str | None, limit: int, now: datetime | None = None) -> dict:
    now = now or invocation.now()
    p = periods.resolve(period, now, boards.DEFAULT_BOARD.periods)
    # The sort key is the time plus a random suffix: two snapshots in the same ms stay distinct.
    sort_key = f"{iso(now)}#{secrets.token_hex(3)}"
    snapshot = {
        "leaderboard_id": p.period_id,
        "taken_at": sort_key,
        "snapshot_id": f"{p.period_id}#{sort_key}",
        "period": p.kind,
        "entries": ranking_reads.ranked(invocation.runtime().entries.page(p.period_id, limit)),
    }
    _store().put(snapshot)
    return {**snapshot, "taken_at": iso(now)}


def snapshots(period: str | None, limit: int, now: datetime | None = None) -> dict:
    p = periods.resolve(period, now or invocation.now(), boards.DEFAULT_BOARD.periods)
    items = _store().newest(p.period_id, limit)
    return {
        "leaderboard_id": p.period_id,
        "period": p.kind,
        "snapshots": [
            {"snapshot_id": s["snapshot_id"], "taken_at": s["taken_at"].split("#")[0], "entries": s["entries"]}
            for s in items
        ],
    }
