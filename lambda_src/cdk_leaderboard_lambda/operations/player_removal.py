"""Removing a player: their entries on one board (moderation), and everything of theirs (erasure on request).

Entries are deleted from the player's own partition of the scores table (one Query finds them all), so the cost
grows with what the player holds, not with the boards. The rank counters follow from the table's stream, as for
any other change of an entry: counts and ranks stay exact.
"""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..domain.boards import BoardConfig
from ..domain.ports import EntryStore, ErasureKey, ErasureStore
from ..shared import function_registry as functions
from ..shared import item_keys
from ..shared.clock import iso
from ..shared.errors import NotFound
from . import board_catalog, chain_appending, closing, token_floors

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime


def remove_from_board(entries: EntryStore, config: BoardConfig, player_id: str, now: datetime) -> dict[str, Any]:
    """Delete the player's entries on every period (and shard) of the board still open at `now`. Entries of ended
    periods stay as they closed (docs/PROVING.md, "The closing rule"): an erasure is what deletes those."""
    pairs = entries.keys_of_player_on(player_id, config.board_id)
    still_open = [(p, part) for p, part in pairs if not config.ended(item_keys.board_and_period(part)[1], now)]
    deleted = entries.delete(still_open)
    return {"board_id": config.board_id, "player_id": player_id, "deleted_entries": deleted}


# --- erasure on request -------------------------------------------------------------------------

PAGES_PER_CALL = 20  # pages of idempotency records and of snapshots one call reads; then 202 and DELETE again
PAGE_SIZE = 100


# How long an erasure's fences stand: longer than any submission may run (the submitting function's timeout, then
# Lambda stops it). The entry places' fences (they hold the id) stand this long before the erasure answers
# "erased"; its hashed item this long after: a submission in flight at either moment is refused.
FENCE_SECONDS = functions.SCORE_SUBMIT.timeout_seconds + 5
# A call's lease on the erasure outlasts the longest function that calls erase (then Lambda has stopped it).
LEASE_SECONDS = max(functions.LEADERBOARD_ADMIN.timeout_seconds, functions.PERIOD_CLOSER.timeout_seconds) + 5
_WAITING = "waiting"  # every phase done: the entry places' fences stand until FENCE_SECONDS after they rose
_FENCED = "fenced"  # answered "erased": only the hashed item stands, until lift_fences takes it down


def erase(runtime: Runtime, player_id: str, now: datetime) -> tuple[bool, dict[str, Any]]:
    """Remove the player from every board, period, idempotency record and per-player counter, and replace them
    by a placeholder in snapshots and closing summaries. Returns (done, status). Each call reads at most
    PAGES_PER_CALL pages of the (history-sized) scans. The audit record keeps the erasure's id and times only.

    A submission racing the erasure is refused, not swept after. The first call puts the erasure's item (keyed by
    a keyed hash of the id: item_keys.erasing_key), which every submission's read meets in the same request
    (EntryStore.get_for_submission); then every call puts a fence in the place of each entry the player has or could
    write now (every board's current periods), which every entry write's condition refuses (a submission that
    read before the erasure began, or writes without reading). Those fences hold the id: the erasure answers
    "erased" only once they have stood FENCE_SECONDS (202 until then, as for a long history; the scheduled job
    goes on too), lifts them and answers. From then on no item holds the id: the hashed item refuses for
    FENCE_SECONDS more, then lift_fences takes it down."""
    erasures = runtime.erasures
    key = item_keys.erasing_key(runtime.digest_key.value(), player_id)
    state = erasures.state(key)
    if state is not None and state["phase"] == _FENCED:
        return True, status_view(erasures, state["erasure_id"])  # answered already; the hashed fence goes on schedule
    leased = _lease(erasures, player_id, key, state, now)
    if leased is None:  # another call holds it and goes on with the work: its status as it stands
        state = erasures.state(key)
        if state is None:  # lifted between the two reads: this call comes after the erasure, as a new one
            return erase(runtime, player_id, now)
        view = status_view(erasures, state["erasure_id"])  # the audit says "erased" a moment before the state does
        return view["status"] == "erased", view
    if leased["phase"] == _FENCED:  # another call finished it between this call's read and its claim
        erasures.release(key)
        return True, status_view(erasures, leased["erasure_id"])
    try:
        return _go_on(runtime, player_id, key, leased, now)
    except BaseException:
        erasures.release(key)  # the next call goes on at once rather than after the lease
        raise


def _lease(
    erasures: ErasureStore,
    player_id: str,
    key: ErasureKey,
    state: dict[str, Any] | None,
    now: datetime,
) -> dict[str, Any] | None:
    """The erasure's state, leased to this call (a new erasure if there is none); None if another call holds it."""
    now_s = int(now.timestamp())
    lease_until = now_s + LEASE_SECONDS
    if state is not None:
        return erasures.claim(key, now_s, lease_until)
    stamp = iso(now)
    state = {
        "erasure_id": secrets.token_urlsafe(12),
        "requested_at": stamp,
        "phase": PHASES[0],
        "subject": player_id,  # until the answer: the scheduled job goes on with an erasure left half-done
        "fenced_at": now_s,
        "due": now_s + FENCE_SECONDS,
    }
    # The audit first, so that a call meeting the state can show it; then the state, which from now on every
    # submission's read finds.
    erasures.put_audit(state["erasure_id"], {"status": "erasing", "requested_at": stamp})
    if not erasures.create(key, state, lease_until):
        erasures.drop_audit(state["erasure_id"])  # another call began the erasure first: its audit is the one
        return None
    erasures.register(key, state["erasure_id"], state["due"])
    return state


def _go_on(
    runtime: Runtime, player_id: str, key: ErasureKey, state: dict[str, Any], now: datetime
) -> tuple[bool, dict[str, Any]]:
    """One call's work on a leased erasure, from where the last call left it."""
    now_s = int(now.timestamp())
    # The player's own partition: every entry on every board and period (even of boards since deleted) gives
    # way to a fence, and so does every entry place a submission may write now. Then the submission counters,
    # and the player's moderation items on every board.
    places = _fence_partitions(runtime, player_id, now)
    # Each fence carries the player's commitment there: the log's erase record takes it from the stream's image,
    # so it needs no key once _finish has deleted the key.
    runtime.entries.raise_fence(
        player_id,
        places,
        int(state["fenced_at"]) + FENCE_SECONDS,
        chain_appending.fences(runtime, player_id, places),
    )
    runtime.rate_limits.forget_player(player_id)
    _erase_client_items(runtime, player_id)
    runtime.moderation.forget(player_id, (config.board_id for config in board_catalog.all_boards(runtime)))
    # Records and snapshots hold the id as a JSON string value: match it quoted, so "ada" does not match "adam".
    quoted = json.dumps(player_id)
    for _ in range(PAGES_PER_CALL):
        phase = state["phase"]
        if phase == _WAITING:
            break
        if phase == "records":
            records = runtime.idempotency
            found, state_cursor = records.records_holding(quoted, state.get("cursor"), PAGE_SIZE)
            records.forget(found)
        elif phase == "snapshots":
            archive = runtime.snapshots
            page, state_cursor = archive.scan_page(state.get("cursor"), PAGE_SIZE)
            for snapshot in page:
                if _names(snapshot.get("entries", []), player_id):
                    archive.replace_entries(snapshot, [_placeholder(e, player_id) for e in snapshot["entries"]])
        else:
            state_cursor = _erase_from_closings(runtime, player_id, state)
        state["cursor"] = state_cursor
        if state_cursor is None:
            state["phase"] = _WAITING if phase == PHASES[-1] else PHASES[PHASES.index(phase) + 1]
    if state["phase"] == _WAITING and now_s >= int(state["fenced_at"]) + FENCE_SECONDS:
        return _finish(runtime, player_id, key, state, now_s)
    runtime.erasures.save_state(key, state)
    return False, status_view(runtime.erasures, state["erasure_id"])


def _finish(
    runtime: Runtime, player_id: str, key: ErasureKey, state: dict[str, Any], now_s: int
) -> tuple[bool, dict[str, Any]]:
    """The fences have stood long enough: sweep once more what a submission that raced the erasure may have left
    beside its entry (its per-minute counter; the stored answer of one that wrote just before the fences rose),
    lift the entry places' fences, leave only the hashed item (no id) and answer "erased"."""
    erasures, records = runtime.erasures, runtime.idempotency
    runtime.rate_limits.forget_player(player_id)
    _erase_client_items(runtime, player_id)
    quoted, cursor = json.dumps(player_id), state.get("sweep_cursor")
    for _ in range(PAGES_PER_CALL):
        found, cursor = records.records_holding(quoted, cursor, PAGE_SIZE)
        records.forget(found)
        if cursor is None:
            break
    if cursor is not None:  # a long records history: the next call goes on from here
        erasures.save_state(key, {**state, "sweep_cursor": cursor})
        return False, status_view(erasures, state["erasure_id"])
    runtime.entries.lift_fence(player_id)
    runtime.chain.forget_player(player_id, now_s)  # the log's commitments link to no one from now on
    answered = runtime.clock.now()  # the clock's time, not the call's `now` (the job passes its own)
    # Before the answer: from it on, a token issued to the player until now (a run started with one) is refused.
    token_floors.raise_floor(runtime, player_id, int(answered.timestamp()))
    finished_at = iso(answered)
    erasures.put_audit(
        state["erasure_id"], {"status": "erased", "requested_at": state["requested_at"], "finished_at": finished_at}
    )
    fence_until = now_s + FENCE_SECONDS
    erasures.save_state(key, {**_kept(state), "phase": _FENCED, "fence_until": fence_until})
    erasures.register(key, state["erasure_id"], fence_until)
    erasures.unregister(state["erasure_id"], state["due"])
    return True, status_view(erasures, state["erasure_id"])


def _erase_client_items(runtime: Runtime, player_id: str) -> None:
    """The player's runs and quarantined submissions (with their pointers): a Query each, whatever the boards."""
    runtime.runs.forget_player(player_id)
    runtime.pending.forget_player(player_id)


def _kept(state: dict[str, Any]) -> dict[str, Any]:
    return {k: state[k] for k in ("erasure_id", "requested_at")}


def _fence_partitions(runtime: Runtime, player_id: str, now: datetime) -> list[str]:
    """Where the player has an entry, and where a submission running now may write one: each board's periods
    current at any time a submission in flight may have started at, or may still start at during this call."""
    places = runtime.entries.partitions_of(player_id)
    window = timedelta(seconds=FENCE_SECONDS)
    for config in board_catalog.all_boards(runtime):
        for moment in (now - window, now, now + window):
            places += [config.player_partition(p.period_id, player_id) for p in config.current_periods(moment)]
    return list(dict.fromkeys(places))


def lift_fences(runtime: Runtime, now_s: int, most: int = 25) -> int:
    """The scheduled job's part at `now_s` (epoch seconds), for each erasure due: go on with one its caller left
    before it answered "erased" (it finishes once its fences have stood long enough), or take down the hashed item
    of one that answered FENCE_SECONDS ago (no submission in flight can meet it any more). Returns how many it took
    down."""
    erasures = runtime.erasures
    lifted = 0
    for registered in erasures.due(now_s, most):
        key = tuple(registered["erasing_key"])
        state = erasures.state(key)
        if state is None or state["erasure_id"] != registered["erasure_id"]:
            erasures.unregister(registered["erasure_id"], registered["due"])  # a stale entry of the list
        elif state["phase"] != _FENCED:
            erase(runtime, state["subject"], datetime.fromtimestamp(now_s, UTC))
        elif int(state["fence_until"]) <= now_s:
            erasures.drop_state(key)
            erasures.unregister(registered["erasure_id"], registered["due"])
            erasures.update_audit(state["erasure_id"], {"fence_lifted_at": iso(runtime.clock.now())})
            lifted += 1
    return lifted


PHASES = ("records", "snapshots", "closings")
_NEXT_BOARD = MappingProxyType(
    {"next_board": True}
)  # the closings phase's cursor between boards: the next one from its start


def _erase_from_closings(runtime: Runtime, player_id: str, state: dict[str, Any]) -> dict | None:
    """One page of one board's closing summaries (no TTL: they outlive the entries), the player's places in
    their top and reward winners given to the placeholder. The state names the board being read; None once the
    last board is done."""
    board_ids = board_catalog.evidence_ids(runtime)  # deleted boards' archived summaries too
    board_id = state.get("board_id") or (board_ids[0] if board_ids else None)
    if board_id is None:
        return None
    start = state.get("cursor")
    summaries = runtime.closings
    page, cursor = summaries.page_of_board(board_id, None if start == _NEXT_BOARD else start, PAGE_SIZE)
    for summary in page:
        rewards = summary.get("rewards") or []
        if _names(summary.get("top") or [], player_id) or any(
            _names(r.get("players") or [], player_id) for r in rewards
        ):
            top = [_placeholder(e, player_id) for e in summary.get("top") or []]
            rewritten = [
                {**r, "players": [_placeholder(e, player_id) for e in r.get("players") or []]} for r in rewards
            ]
            summaries.replace_players(summary, top, rewritten, closing.resigned(runtime, summary, top, rewritten))
    if cursor is not None:
        state["board_id"] = board_id
        return cursor
    later = [b for b in board_ids if b > board_id]
    state["board_id"] = later[0] if later else None
    return dict(_NEXT_BOARD) if later else None


def _names(rows: list[dict[str, Any]], player_id: str) -> bool:
    return any(row.get("player_id") == player_id for row in rows)


def _placeholder(entry: dict[str, Any], player_id: str) -> dict[str, Any]:
    if entry.get("player_id") != player_id:
        return entry
    return {
        "rank": entry["rank"],
        "player_id": item_keys.ERASED_PLAYER_ID,
        "player_name": item_keys.ERASED_PLAYER_NAME,
        "score": entry["score"],
    }


def status_view(erasures: ErasureStore, erasure_id: str) -> dict[str, Any]:
    """An erasure's status as its audit record says (404 for an unknown id)."""
    record = erasures.audit(erasure_id)
    if record is None:
        raise NotFound(f"no erasure {erasure_id}")
    view = {"erasure_id": erasure_id, "status": record["status"], "requested_at": record["requested_at"]}
    for moment in ("finished_at", "fence_lifted_at"):
        if record.get(moment):
            view[moment] = record[moment]
    view["status_url"] = f"/erasures/{erasure_id}"
    return view
