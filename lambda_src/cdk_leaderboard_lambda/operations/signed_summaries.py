"""Closing summaries anchored to the period's log and signed (docs/PROVING.md).

A summary carries `log_head: {"seq", "hash"}` (the log's last record when it closed: seq 0 and 64 zeros for a
period without records) and `signature`: a compact JWS (receipt_keys.py) whose payload is the summary exactly as
GET .../periods/{period_id} answers it, without `signature`. Before it is signed, its standings are checked
against the log replayed up to that head (receipts.Standings): the same total, and the same score at each rank of
`top` (a period with no record at all is not checked: its log_head says seq 0, and a verifier finds the standings
do not follow from an empty log unless there were none). A log that lags the entries (appends off the request
path) makes the closing refuse with 409 "log catching up"; the scheduled closer tries again on its next run. A log
that still does not give them LOG_SETTLE_SECONDS after the period's end (a stream batch the mapping gave up on)
does not hold the closing back any longer: the summary is stored with `unsigned` (why) and no signature, and the
function logs an error; a verifier then refuses it, as it should.
Erasure rewrites a summary's top and rewards, and signs it again (player_removal.py): the payload names the
placeholder, never the erased player. A summary whose key has been revoked since is served signed again with the
current key (`served`): its standings were checked against the log when it closed, and a revoked key's signature
verifies nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..domain import receipt_keys
from ..domain.boards import DESC
from ..shared import item_keys
from ..shared.errors import Conflict
from .receipts import GENESIS_HASH, CatchingUp

if TYPE_CHECKING:
    from ..domain.ports.runtime import Replayed, Runtime

UNSIGNED = ("signature", "event_sent", "event_claimed_until")
# How long after a period's end a closing waits for the log to give its standings (the log lags by seconds).
LOG_SETTLE_SECONDS = 900
LOG_DISAGREES = "the log does not give these standings"


def log_head(runtime: Runtime, board_id: str, period_id: str) -> dict[str, Any]:
    head = runtime.chain.log_head(board_id, period_id)
    return {"seq": 0, "hash": GENESIS_HASH} if head is None else {"seq": head[0], "hash": head[1]}


def replayed(runtime: Runtime, board_id: str, period_id: str, head_seq: int) -> Replayed:
    """The standings at head_seq, however long the log (the closing is off the request path)."""
    while True:
        try:
            return runtime.replays.caught_up(runtime.chain, board_id, period_id, head_seq)
        except CatchingUp:
            continue  # each call goes on from where the last one stopped


def check_against_log(runtime: Runtime, summary: dict[str, Any], order: str, settled: bool = False) -> bool:
    """Whether the summary's total and the scores of its top are the log's at summary["log_head"]: 409 while they
    are not, unless the log has had its time to settle (`settled`: then False)."""
    head = summary["log_head"]
    if head["seq"] == 0:  # no log for this period (closed before the log, or before its first append): unchecked
        return True
    evidence = item_keys.evidence_id(summary["board_id"], summary.get("generation", item_keys.LEGACY_GENERATION))
    standings = replayed(runtime, evidence, summary["period_id"], head["seq"])
    listed = [e for p, e in standings.entries.items() if p not in standings.hidden]
    listed.sort(key=lambda e: ((-e[0] if order == DESC else e[0]), e[1]))
    scores = [e[0] for e in listed[: len(summary["top"])]]
    if standings.total() == summary["total_players"] and scores == [e["score"] for e in summary["top"]]:
        return True
    if not settled:
        raise Conflict(
            f"log catching up: the log of period {summary['period_id']} at record {head['seq']} does not give "
            "these standings yet; the closing is tried again on the scheduled closer's next run"
        )
    return False


def signed_view(runtime: Runtime, public: dict[str, Any]) -> dict[str, Any]:
    """The summary as the API answers it (closing._public) and its signature over everything else in it."""
    unsigned = {k: v for k, v in public.items() if k not in UNSIGNED}
    return {**unsigned, "signature": runtime.receipt_keys.get().sign_compact(unsigned)}


def served(runtime: Runtime, public: dict[str, Any]) -> dict[str, Any]:
    """The summary as the API answers it: signed again with the current key if its signature's key is revoked (on
    each read, not stored: a GET writes nothing, and the edge caches the answer)."""
    signature = public.get("signature")
    if not isinstance(signature, str):
        return public
    keys = runtime.receipt_keys.get()
    return signed_view(runtime, public) if receipt_keys.kid_of_token(signature) in keys.revoked_kids() else public


def signature_of(runtime: Runtime, public: dict[str, Any]) -> str:
    return str(signed_view(runtime, public)["signature"])
