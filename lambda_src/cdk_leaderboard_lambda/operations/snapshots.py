"""Snapshots: a period's top N frozen into the append-only archive, and the archive listed newest first."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING

from ..domain import boards, periods
from ..shared.clock import iso
from . import ranking_reads

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime


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
