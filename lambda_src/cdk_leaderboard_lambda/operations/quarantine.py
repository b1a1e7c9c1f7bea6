"""Quarantine: a submission a board's rule holds back (action quarantine) waits as pending, outside the board, for
a reviewer (or a game's validator, told by a `Leaderboard Score Pending` event) to approve or reject it.

A pending submission is no entry (data/pending.py): absent from every list, rank, total, snapshot, summary and
live push, as hidden players are. Approving applies it exactly as the submission would have been applied when it
was made: the periods current then, and its rank key (ties) from its submission time; the per-player limit
counted it then, and the submission leaves the queue in the same unit of work as its entries are written
(PendingStore.approval_ops, committed with the entry writes).
Rejecting drops it without a trace. A decision claims the submission first: a second approve or reject of the same
one is a 404 (it is gone), one while another decision is in flight a 409. A decision whose transaction DynamoDB
cancels because another transaction was in progress on one of its items is a 503 with Retry-After (TransactionBusy):
nothing applied, the claim given back, so the same request sent again decides it once.
"""

from __future__ import annotations

import json
import logging
import secrets
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..domain import cursors, periods, score_writes
from ..domain.boards import BoardConfig
from ..domain.ports import Approval, PendingStore
from ..shared import item_keys
from ..shared.clock import iso, ms
from ..shared.errors import Conflict, NotFound
from ..shared.limits import EVENT_SOURCE, SCORE_PENDING_DETAIL_TYPE
from . import score_submission

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

logger = logging.getLogger(__name__)


def new_pending_id(now: datetime) -> str:
    """Submission time first (the queue lists oldest first), then 48 random bits."""
    return f"{ms(now):013d}-{secrets.token_urlsafe(6)}"


def hold(
    runtime: Runtime,
    config: BoardConfig,
    s: score_writes.Submission,
    rule: str,
    now: datetime,
    run: dict[str, Any] | None = None,
    evidence: dict | None = None,
) -> dict[str, Any]:
    """Store the submission as pending, tell the bus, and answer what the 202 says."""
    pending_id = new_pending_id(now)
    values: dict[str, Any] = {
        "board_id": config.board_id,
        "player_name": s.player_name,
        "score": s.score,
        "rule": rule,
        "submitted_at": iso(now),
        "submitted_ms": ms(now),
        "metadata": _json(s.metadata),
        "evidence": _json(evidence),
    }
    if run is not None:
        values |= {"run_id": run["run_id"], "seed": run["seed"]}
    runtime.pending.put(config.board_id, pending_id, s.player_id, values)
    detail = {**view({**values, "pending_player": s.player_id}, pending_id), "board_id": config.board_id}
    if run is not None:
        detail["seed"] = run["seed"]
    try:
        runtime.events.put(EVENT_SOURCE, SCORE_PENDING_DETAIL_TYPE, detail)
    except Exception:  # the queue holds it whatever the bus does: a reviewer still sees it
        logger.exception("the pending event was not sent", extra={"pending_id": pending_id})
    return {"status": "pending", "pending_id": pending_id, "rule": rule}


def _json(value: dict | None) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"))


def view(item: dict[str, Any], pending_id: str) -> dict[str, Any]:
    """A pending submission as the queue lists it."""
    row: dict[str, Any] = {
        "pending_id": pending_id,
        "player_id": item["pending_player"],
        "score": item["score"],
        "rule": item["rule"],
        "submitted_at": item["submitted_at"],
    }
    if item.get("run_id"):
        row["run_id"] = item["run_id"]
    if item.get("evidence"):
        row["evidence"] = json.loads(item["evidence"])
    return row


def listing(
    runtime: Runtime, config: BoardConfig, limit: int, cursor: str | None, player_id: str | None = None
) -> dict[str, Any]:
    """A page of the board's queue, oldest first, with a signed cursor bound to this board's queue (and player)."""
    binding = item_keys.pending_key(config.board_id, "")[0]
    if player_id is not None:
        binding += "#player#" + player_id  # a cursor of the whole queue pages no player's list, nor the reverse
    position = cursors.read(runtime, cursor, binding) if cursor is not None else None
    after = position.last_key if position else None
    if player_id is None:
        items, more = runtime.pending.page_of_board(config.board_id, after, limit)
        rows = [view(i, i["leaderboard_id"]) for i in items]
    else:  # the player's pointers, one Query: the rows the review queue lists, without run and evidence
        held = of_player(runtime.pending, config, player_id)
        mine = [{**i, "player_id": player_id} for i in held if after is None or i["pending_id"] > after]
        rows, more = mine[:limit], len(mine) > limit
    answer: dict[str, Any] = {"pending": rows}
    if more and rows:
        listed = (position.last_rank if position else 0) + len(rows)
        answer["next_cursor"] = cursors.issue(
            runtime, binding, rows[-1]["pending_id"], listed, position.issued_ms if position else None
        )
    return answer


def everywhere(queue: PendingStore, player_id: str, boards: list[str] | None = None) -> list[dict[str, Any]]:
    """The player's own pending submissions on every board (or on `boards`), for their token: board_id,
    pending_id, score, rule, submitted_at. One Query of their pointers."""
    held = queue.of_player(player_id)
    return held if boards is None else [h for h in held if h["board_id"] in boards]


def of_player(queue: PendingStore, config: BoardConfig, player_id: str) -> list[dict[str, Any]]:
    """The player's own pending submissions on the board (their token's route, or the admin's queue filtered by
    player): pending_id, score, rule, submitted_at, oldest first."""
    return queue.of_player_on(player_id, config.board_id)


def _claimed(queue: PendingStore, config: BoardConfig, pending_id: str) -> tuple[dict[str, Any], str]:
    token = secrets.token_urlsafe(9)
    if not queue.claim(config.board_id, pending_id, token):
        if queue.get(config.board_id, pending_id) is None:
            raise NotFound(f"no pending submission {pending_id} on {config.board_id} (decided already, or never there)")
        raise Conflict(f"another decision on pending submission {pending_id} is in progress; retry")
    item = queue.get(config.board_id, pending_id)
    if item is None:  # decided between the claim and the read: only by its claimer, so not by now
        raise NotFound(f"no pending submission {pending_id} on {config.board_id}")
    return item, token


def approve(runtime: Runtime, config: BoardConfig, pending_id: str) -> dict[str, Any]:
    """Apply the submission as at its submission time, then drop it from the queue. The write carries an operation
    id of the pending id, so a decision retried after failing part-way does not apply it twice.

    Only the periods still open now are written: a period that ended since (its closing signs its standings) stays
    as it was, and the answer lists it under closed_periods; when every period it was held for has ended the
    approval is refused (409) and the submission stays pending, for a reject (docs/PROVING.md, "The closing rule")."""
    queue = runtime.pending
    item, token = _claimed(queue, config, pending_id)
    try:  # the entry writes and the submission's removal in one transaction: all of it or, cancelled, nothing
        at = datetime.fromtimestamp(int(item["submitted_ms"]) / 1000, UTC)
        now = runtime.clock.now()
        held_for = config.current_periods(at)
        closed = [p.period_id for p in held_for if periods.ended(p, now)]
        if len(closed) == len(held_for):
            raise Conflict(
                f"the periods this score was held for ({', '.join(closed)}) have ended: a score held before a "
                "period's end is not applied after it (its closing signs its standings); reject it instead"
            )
        submission = score_writes.Submission(
            player_id=item["pending_player"],
            player_name=item.get("player_name"),
            score=int(item["score"]),
            metadata=json.loads(item["metadata"]) if item.get("metadata") else None,
            operation=item_keys.APPROVAL_OPERATION_PREFIX
            + item_keys.operation_id(pending_id, f"{config.board_id}/pending"),
        )
        approval = Approval(config.board_id, pending_id, submission.player_id, claim=token)
        removal = queue.approval_ops(approval)
        writer = score_submission.Writer.of(runtime)
        outcome = score_submission.submit(writer, config, submission, at, together=(removal,), open_at=now)
    except BaseException:
        queue.unclaim(config.board_id, pending_id, token)
        raise
    return {"pending_id": pending_id, "status": "approved", "result": outcome.view(), "closed_periods": closed}


def reject(queue: PendingStore, config: BoardConfig, pending_id: str) -> dict[str, Any]:
    item, token = _claimed(queue, config, pending_id)
    try:
        queue.drop(config.board_id, pending_id, item["pending_player"])
    except BaseException:  # TransactionBusy (nothing deleted): the submission waits for a decision again
        queue.unclaim(config.board_id, pending_id, token)
        raise
    return {"pending_id": pending_id, "status": "rejected"}
