"""Removing a player: their entries on one board (moderation), and everything of theirs (erasure on request).

Entries are deleted from the player's own partition of the scores table (one Query finds them all), so the cost
grows with what the player holds, not with the boards. The rank counters follow from the table's stream, as for
any other change of an entry: counts and ranks stay exact.
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime
from typing import Any

from . import board_registry, keys
from .boards import BoardConfig
from .clock import iso, now_utc
from .data import entries, erasures
from .data import idempotency as idempotency_records
from .data import moderation as moderation_items
from .data import snapshots as snapshot_items
from .errors import NotFound


def remove_from_board(config: BoardConfig, player_id: str) -> dict[str, Any]:
    """Delete the player's entries on every period (and shard) of the board."""
    deleted = entries.delete(entries.keys_of_player_on(player_id, config.board_id))
    return {"board_id": config.board_id, "player_id": player_id, "deleted_entries": deleted}


# --- erasure on request -------------------------------------------------------------------------

PAGES_PER_CALL = 20  # pages of idempotency records and of snapshots one call reads; then 202 and DELETE again
PAGE_SIZE = 100


def erase(player_id: str, now: datetime | None = None) -> tuple[bool, dict[str, Any]]:
    """Remove the player from every board, period, idempotency record and per-player counter, and replace them
    in snapshots by a placeholder. Returns (done, status). Each call reads at most PAGES_PER_CALL pages of the
    (history-sized) scans; the state between calls is one item that names the player, deleted at the end. The
    audit record keeps the erasure's id and times only."""
    stamp = iso(now or now_utc())
    state = erasures.state(player_id)
    if state is None:
        state = {"erasure_id": secrets.token_urlsafe(12), "requested_at": stamp, "phase": "records"}
        erasures.put_audit(state["erasure_id"], {"status": "erasing", "requested_at": stamp})
        erasures.save_state(player_id, state)
    # The player's own partitions: every entry on every board and period (even of boards since deleted), and
    # the submission counters; and the player's moderation items on every board. Deleted on every call, so a
    # score submitted meanwhile goes too.
    entries.delete(entries.keys_in_partition(player_id))
    entries.delete(entries.keys_in_partition(keys.rate_partition(player_id)))
    entries.delete(moderation_items.item_key(config.board_id, player_id) for config in board_registry.all_boards())
    # Records and snapshots hold the id as a JSON string value: match it quoted, so "ada" does not match "adam".
    quoted = json.dumps(player_id)
    for _ in range(PAGES_PER_CALL):
        if state["phase"] == "records":
            found, state_cursor = idempotency_records.records_holding(quoted, state.get("cursor"), PAGE_SIZE)
            entries.delete(found)
        else:
            page, state_cursor = snapshot_items.scan_page(state.get("cursor"), PAGE_SIZE)
            for snapshot in page:
                if any(e.get("player_id") == player_id for e in snapshot.get("entries", [])):
                    snapshot_items.replace_entries(snapshot, [_placeholder(e, player_id) for e in snapshot["entries"]])
        state["cursor"] = state_cursor
        if state_cursor is None:
            if state["phase"] == "snapshots":
                erasures.drop_state(player_id)
                erasures.put_audit(
                    state["erasure_id"],
                    {"status": "erased", "requested_at": state["requested_at"], "finished_at": stamp},
                )
                return True, status_view(state["erasure_id"])
            state["phase"] = "snapshots"
    erasures.save_state(player_id, {k: v for k, v in state.items() if v is not None})
    return False, status_view(state["erasure_id"])


def _placeholder(entry: dict[str, Any], player_id: str) -> dict[str, Any]:
    if entry.get("player_id") != player_id:
        return entry
    return {
        "rank": entry["rank"],
        "player_id": keys.ERASED_PLAYER_ID,
        "player_name": keys.ERASED_PLAYER_NAME,
        "score": entry["score"],
    }


def status_view(erasure_id: str) -> dict[str, Any]:
    record = erasures.audit(erasure_id)
    if record is None:
        raise NotFound(f"no erasure {erasure_id}")
    view = {"erasure_id": erasure_id, "status": record["status"], "requested_at": record["requested_at"]}
    if record.get("finished_at"):
        view["finished_at"] = record["finished_at"]
    view["status_url"] = f"/erasures/{erasure_id}"
    return view
