"""Closing a period once it has ended: a summary kept after the entries expire (the top, the total, each tier's
score cut-off, the reward winners), the final top frozen into the snapshot archive, and an event for the game's
backend. Run by the scheduled closer a few minutes after each end, or by an admin through the API; both are
idempotent: the first closing's summary is stored once and returned ever after.

The event goes out once in the normal case: the closing that sends it first claims the sending on the summary
(a conditional write, so a scheduled closing and an admin's close call racing send one event). Delivery is still at
least once: a closing that stops after sending and before marking it sent, or whose claim lease runs out while
EventBridge is slow, lets the next run send it again. Consumers dedupe on (board_id, period_id).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ..domain import periods, rank_counters
from ..domain.boards import BoardConfig
from ..domain.timestamps import parse_time
from ..shared import item_keys, limits, schema
from ..shared.clock import iso
from ..shared.errors import Conflict, NotFound
from ..shared.limits import CLOSED, CLOSING_TOP, EVENT_SOURCE, MAX_PERIODS_LISTED, PERIOD_CLOSED_DETAIL_TYPE
from . import board_catalog, ranking_reads, signed_summaries

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

EVENT_CLAIM_SECONDS = 300  # a sender that dies holding the claim is taken over by a run this much later
logger = logging.getLogger(__name__)


SUMMARY_FIELDS = ("board_id", "leaderboard_id", "period_id", "kind", "status", "starts_at", "ends_at", "closed_at")


def _start_of(config: BoardConfig, p: periods.Period) -> str | None:
    if p.kind == periods.TOURNAMENT:
        return config.starts_at
    start = periods.starts_at(p)
    return None if start is None else iso(start)


def _sort_key(p: periods.Period) -> str:
    assert p.ends_at is not None
    return item_keys.closing_sort_key(iso(p.ends_at), p.period_id)


def _ended(config: BoardConfig, period_ref: str, now: datetime) -> periods.Period:
    p = config.resolve_period(period_ref, now)
    if p.ends_at is None:
        raise Conflict(f"{p.period_id} never ends: it cannot be closed")
    if now < p.ends_at:
        raise Conflict(f"period {p.period_id} is open until {p.next_reset()}: only an ended period can be closed")
    return p


def tier_cutoffs(
    runtime: Runtime, config: BoardConfig, parts: list[str], total: int, top: list[dict]
) -> dict[str, int | None]:
    """Each tier's lowest score that still reaches it (None: nobody reaches it), from the same percentile the
    player lookups show. A cut-off inside the closing's top is read from it; one further down is searched for
    between the top's last score and the board's last (rank_counters.score_at_rank: a rank read per probe)."""
    cutoffs: dict[str, int | None] = {}
    descending = config.order == limits.DESC
    low, high = config.min_score, config.max_score
    if len(top) < total and top:
        last_entries = rank_counters.merged_page(
            runtime, parts, 1, before=item_keys.LAST_HI
        )  # the worst entry (of each shard)
        scores = [top[-1]["score"], *(int(e["score"]) for e in last_entries)]
        low, high = min(scores), max(scores)
    for tier in config.tiers:
        # the worst rank whose (rounded) percentile reaches the tier's minimum
        last = total * (100 - tier["min_percentile"]) // 100 + 1
        while last >= 1 and ranking_reads.percentile(last, total) < tier["min_percentile"]:
            last -= 1
        last = min(last, total)
        if last < 1:
            cutoffs[tier["name"]] = None
        elif last <= len(top):
            cutoffs[tier["name"]] = top[last - 1]["score"]
        else:
            cutoffs[tier["name"]] = rank_counters.score_at_rank(runtime, parts, last, low, high, descending)
    return cutoffs


def _summarize(runtime: Runtime, config: BoardConfig, p: periods.Period, now: datetime) -> dict[str, Any]:
    parts = config.partitions(p.period_id)
    items = rank_counters.merged_page(runtime, parts, CLOSING_TOP)
    top = [{k: e[k] for k in ("rank", "player_id", "player_name", "score")} for e in ranking_reads.ranked(items)]
    total = max(rank_counters.total(runtime, parts), len(top))
    return {
        "board_id": config.board_id,
        "generation": config.generation,  # whose log (item_keys.py): a board created again under this id has its own
        "leaderboard_id": config.leaderboard_id(p.period_id),
        "period_id": p.period_id,
        "kind": p.kind,
        "status": CLOSED,
        "starts_at": _start_of(config, p),
        "ends_at": p.next_reset(),
        "closed_at": iso(now),
        # signed with the rest: how to replay the log (a board recreated with the other order changes nothing
        # here) and how many entries `top` keeps (a verifier refuses one shorter than min(top_size, total))
        "order": config.order,
        "top_size": CLOSING_TOP,
        "total_players": total,
        "top": top,
        "tier_cutoffs": tier_cutoffs(runtime, config, parts, total, top),
        "rewards": [
            {
                "reward": r["reward"],
                "ranks": r["ranks"],
                "players": [e for e in top if r["ranks"][0] <= e["rank"] <= r["ranks"][1]],
            }
            for r in config.rewards
        ],
    }


def close(runtime: Runtime, config: BoardConfig, period_ref: str) -> dict[str, Any]:
    """Close an ended period (409 for one still open); a period closed already returns its stored summary."""
    return _close(runtime, config, period_ref, runtime.clock.now())[0]


def _close(runtime: Runtime, config: BoardConfig, period_ref: str, now: datetime) -> tuple[dict[str, Any], bool]:
    """close(), and whether this call finished the closing (stored the summary or sent its event)."""
    p = _ended(config, period_ref, now)
    sort_key = _sort_key(p)
    closings = runtime.closings
    summary = closings.get(config.evidence_id, sort_key)
    finished = False
    if summary is None:
        assert p.ends_at is not None
        if now > p.ends_at + timedelta(days=runtime.settings.period_retention_days):
            raise Conflict(f"period {p.period_id} ended more than the retention ago: its entries have expired")
        fresh = _summarize(runtime, config, p, now)
        fresh["log_head"] = signed_summaries.log_head(runtime, config.evidence_id, p.period_id)
        settled = now >= p.ends_at + timedelta(seconds=signed_summaries.LOG_SETTLE_SECONDS)
        if not signed_summaries.check_against_log(runtime, fresh, config.order, settled):  # 409 while the log lags
            logger.error("closing %s %s unsigned: %s", config.board_id, p.period_id, signed_summaries.LOG_DISAGREES)
            fresh["unsigned"] = signed_summaries.LOG_DISAGREES
        snapshot_id = f"{fresh['leaderboard_id']}#{iso(p.ends_at)}#closing"
        runtime.snapshots.put_once(
            {
                "leaderboard_id": fresh["leaderboard_id"],
                "taken_at": f"{iso(p.ends_at)}#closing",  # one per period: a retried closing finds it there
                "snapshot_id": snapshot_id,
                "period": p.kind,
                "entries": fresh["top"],
            }
        )
        fresh["snapshot_id"] = snapshot_id
        # the scores table's sort key is named leaderboard_id: the summary's own is derived on reading
        stored = {k: v for k, v in fresh.items() if k != "leaderboard_id"}
        if "unsigned" not in stored:
            stored["signature"] = signed_summaries.signature_of(runtime, _public(stored))
        closings.put_new(config.evidence_id, sort_key, {**stored, "event_sent": False})
        summary = closings.get(config.evidence_id, sort_key)  # ours, or the one a concurrent closing stored first
        assert summary is not None
    if not summary.get("event_sent") and closings.claim_event(
        config.evidence_id, sort_key, int(runtime.clock.now().timestamp()), EVENT_CLAIM_SECONDS
    ):
        public = _public(summary)
        runtime.events.put(EVENT_SOURCE, PERIOD_CLOSED_DETAIL_TYPE, public)
        closings.mark_event_sent(config.evidence_id, sort_key)
        logger.info("closed %s %s: %s players", config.board_id, p.period_id, public["total_players"])
        finished = True
    return signed_summaries.served(runtime, _public(summary)), finished


def _public(summary: dict[str, Any]) -> dict[str, Any]:
    evidence = item_keys.evidence_id(summary["board_id"], summary.get("generation", item_keys.LEGACY_GENERATION))
    board_period = item_keys.leaderboard_id(evidence, summary["period_id"])
    return {
        "leaderboard_id": board_period,
        **{k: v for k, v in summary.items() if k not in ("event_sent", "event_claimed_until")},
    }


def resigned(
    runtime: Runtime, item: dict[str, Any], top: list[dict[str, Any]], rewards: list[dict[str, Any]]
) -> str | None:
    """The signature of a stored summary (an item of page_of_board) once its top and rewards are these; None for a
    summary closed before summaries were signed (it stays unsigned)."""
    if "signature" not in item:
        return None
    summary = {k: v for k, v in item.items() if k not in (schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY)}
    return signed_summaries.signature_of(runtime, _public({**summary, "top": top, "rewards": rewards}))


def _open_view(runtime: Runtime, config: BoardConfig, p: periods.Period, now: datetime) -> dict[str, Any]:
    """A period with no closing summary: open only while `now` is inside it (else upcoming, or ended)."""
    starts = parse_time(config.starts_at, "starts_at") if p.kind == periods.TOURNAMENT else periods.starts_at(p)
    return {
        "period_id": p.period_id,
        "kind": p.kind,
        "status": periods.status(starts, p.ends_at, now),
        "starts_at": _start_of(config, p),
        "ends_at": p.next_reset(),
        "next_reset": p.next_reset(),
        "total_players": rank_counters.total(runtime, config.partitions(p.period_id)),
    }


def listing(runtime: Runtime, config: BoardConfig) -> dict[str, Any]:
    """The board's current periods (open, or ended and awaiting their closing), then its closed ones, newest
    first. Bounded: a counter read per current period and one Query of at most MAX_PERIODS_LISTED summaries."""
    now = runtime.clock.now()
    closed = [
        {"period_id": c["period_id"], "kind": c["kind"], "status": CLOSED, **_times(c)}
        for c in runtime.closings.newest(config.evidence_id, MAX_PERIODS_LISTED)
    ]
    closed_ids = {c["period_id"] for c in closed}
    current = [
        _open_view(runtime, config, p, now) for p in config.current_periods(now) if p.period_id not in closed_ids
    ]
    return {"board_id": config.board_id, "periods": current + closed}


def _times(c: dict[str, Any]) -> dict[str, Any]:
    return {
        "starts_at": c.get("starts_at"),
        "ends_at": c["ends_at"],
        "closed_at": c["closed_at"],
        "total_players": c["total_players"],
    }


def detail(runtime: Runtime, config: BoardConfig, period_ref: str) -> dict[str, Any]:
    """One period: its closing summary once closed, else its open view."""
    now = runtime.clock.now()
    p = config.resolve_period(period_ref, now)
    if p.ends_at is not None:
        summary = runtime.closings.get(config.evidence_id, _sort_key(p))
        if summary is not None:
            return signed_summaries.served(runtime, _public(summary))
    return {"board_id": config.board_id, **_open_view(runtime, config, p, now)}


def due(config: BoardConfig, now: datetime) -> list[periods.Period]:
    """The periods of a board the scheduled closing should have closed by now: each kind's previous period (a
    tournament: itself, once ended), if the board existed before it ended."""
    found = []
    for p in config.current_periods(now):
        candidate = p if p.kind == periods.TOURNAMENT else periods.previous(p)
        if candidate is None or candidate.ends_at is None or candidate.ends_at > now:
            continue
        if config.created_at and iso(candidate.ends_at) <= config.created_at:
            continue
        found.append(candidate)
    return found


def close_ended(runtime: Runtime) -> list[dict[str, str]]:
    """The scheduled job: close every board's ended periods that are not closed yet (a GetItem each when they
    are). One board failing does not stop the others; its period is retried on the next run."""
    now = runtime.clock.now()
    closed = []
    for config in board_catalog.all_boards(runtime):
        for p in due(config, now):
            try:
                summary, finished = _close(runtime, config, p.period_id, now)
                if finished:
                    closed.append({"board_id": config.board_id, "period_id": summary["period_id"]})
            except (Conflict, NotFound) as err:
                logger.warning("not closing %s %s: %s", config.board_id, p.period_id, err)
    return closed
