"""The review queue of quarantined submissions (quarantine.py): list, approve, reject. Admin only (a player's own
held scores: GET /players/{player_id}, their token's; no public read shows them)."""

from __future__ import annotations

from ...shared import limits
from ...shared.function_registry import LEADERBOARD_ADMIN
from .access import ADMIN
from .fields import PLAYER_ID, _limit, cursor_of
from .route import Route

_BUSY = (
    "the decision's transaction was cancelled because another write was in progress on one of its items "
    "(DynamoDB's TransactionConflict): nothing applied, the submission still pending; send the same request again "
    "after Retry-After seconds and it decides it once"
)

REVIEW_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/leaderboards/{board}/pending",
        LEADERBOARD_ADMIN,
        "list_pending",
        access=ADMIN,
        response=(200, "PendingList"),
        query={
            "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE),
            "cursor": cursor_of("the same board's queue (and player_id)"),
            "player_id": {**PLAYER_ID, "description": "only this player's submissions (their pointers: one Query)"},
        },
        summary="The board's quarantined submissions, oldest first, a page at a time, and the board's rules",
        description="Each with the rule that held it back, and its run and evidence if it had any. Cost: one Query "
        "per page. A pending submission is on no list, rank, total, snapshot, summary or live push until approved. "
        "rules: the board's plausibility rules, thresholds and actions ({} when none), which no public read shows.",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/pending/{pending_id}/approve",
        LEADERBOARD_ADMIN,
        "approve_pending",
        access=ADMIN,
        response=(200, "PendingDecision"),
        summary="Approve a quarantined submission: applied as it would have been at its submission time",
        description="The periods current at its submission time that are still open (a period whose ends_at has "
        "passed stays as it closed: closed_periods lists those), and ties ranked by that time. When every one of "
        "them has ended the approval is a 409 and the submission stays pending (reject it). The entries and "
        "the submission's removal from the queue are one transaction. A submission decided already (approved or "
        "rejected) is a 404; one another decision is applying right now a 409.",
        busy=_BUSY,
    ),
    Route(
        "POST",
        "/leaderboards/{board}/pending/{pending_id}/reject",
        LEADERBOARD_ADMIN,
        "reject_pending",
        access=ADMIN,
        response=(200, "PendingDecision"),
        summary="Reject a quarantined submission: dropped, no trace left on the board",
        description="A submission decided already is a 404; one another decision is applying right now a 409.",
        busy=_BUSY,
    ),
)
