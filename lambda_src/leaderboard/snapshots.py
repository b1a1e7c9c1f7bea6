"""Snapshots: a period's top N frozen into the append-only history, and the history listed newest first."""

from __future__ import annotations

import secrets
from datetime import datetime

from . import boards, invocation, periods, rankings
from .clock import iso
from .data import entries
from .data import snapshots as snapshot_items


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
        "entries": rankings.ranked(entries.page(p.period_id, limit)),
    }
    snapshot_items.put(snapshot)
    return {**snapshot, "taken_at": iso(now)}


def snapshots(period: str | None, limit: int, now: datetime | None = None) -> dict:
    p = periods.resolve(period, now or invocation.now(), boards.DEFAULT_BOARD.periods)
    items = snapshot_items.newest(p.period_id, limit)
    return {
        "leaderboard_id": p.period_id,
        "period": p.kind,
        "snapshots": [
            {"snapshot_id": s["snapshot_id"], "taken_at": s["taken_at"].split("#")[0], "entries": s["entries"]}
            for s in items
        ],
    }
