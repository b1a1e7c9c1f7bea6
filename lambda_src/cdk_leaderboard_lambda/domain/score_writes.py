"""The rules of a score write: what a submission stores on each standing it takes a place in (the board's operator
on the stored score, its bounds, an idempotent request's replay), as a plan of conditional entry writes and the rows
of its answer. Pure: the use case that reads, writes and retries (operations/score_submission.py) hands in what it
read and writes what the plan says.

Every submission reads first: the player's entries of the current periods, whether the player is hidden on the
board and (for a board stored in the table) the board's config, in ONE BatchGetItem; then it writes only the
entries the submission changes, each under a condition that refuses it if a concurrent writer got there first.
A submission that changes nothing (the most common one: not the player's best) is that one read and no write.

Keep-best boards read eventually consistently (half the read units): a stale read can only show an older, lower
best, and each write's condition (`score` still below ours) guards the race, so no better score is ever lowered.
Other operators (latest, increment) read strongly consistently, as their writes expect exactly what was read;
every retry after a conflict does too. The rank counters are not touched here (operations/counter_upkeep.py keeps
them from the table's stream), so two submissions only ever meet on the same player's entries.

Idempotent requests (Idempotency-Key) remember an operation id on every entry they change, so a request retried
after failing part-way (a bulk whose later chunks failed) skips what it applied already.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..shared import item_keys, limits
from ..shared.errors import BadRequest, BrokenRule
from ..shared.item_keys import Standing
from ..shared.model import Entry, EntryWrite
from . import entry_store, periods
from .boards import BoardConfig
from .placement import Placed, standing_of


@dataclass(frozen=True)
class PeriodOutcome:
    """What a submission left on one period: the stored score, whether it changed, where the entry is."""

    period: periods.Period
    leaderboard_id: str  # the board period
    partition: str  # the index partition holding the player's entry (the shard)
    score: int | None  # None: the player has no entry there (nothing stored)
    changed: bool
    rank_key: str | None

    def row(self) -> dict[str, Any]:
        return {
            "leaderboard_id": self.leaderboard_id,
            "period": self.period.kind,
            "period_id": self.period.period_id,
            "score": self.score,
            "changed": self.changed,
        }


@dataclass(frozen=True)
class Outcome:
    board_id: str
    player_id: str
    player_name: str
    periods: list[PeriodOutcome]

    def view(self) -> dict[str, Any]:
        return {
            "board_id": self.board_id,
            "player_id": self.player_id,
            "player_name": self.player_name,
            "periods": [p.row() for p in self.periods],
        }


@dataclass(frozen=True)
class Submission:
    player_id: str
    player_name: str | None  # None: keep the stored name
    score: int
    metadata: dict | None = None
    operation: str | None = None  # set for idempotent requests (see item_keys.operation_id)


def make_entry(
    config: BoardConfig,
    period: periods.Period,
    player_id: str,
    name: str,
    score: int,
    reached_ms: int,
    metadata: str | None,
    *,
    retention_days: int,
    standing: Standing | None = None,
) -> Entry:
    """The entry of a score on one period, kept `retention_days` (settings.period_retention_days) past its end, in
    `standing` (default: the board's own on the period, in the player's shard)."""
    standing = standing or standing_of(config, period.period_id, player_id)
    return Entry(
        leaderboard_id=standing.index_partition,
        player_id=player_id,
        player_name=name,
        score=score,
        rank_key=item_keys.rank_key(score, reached_ms, player_id, config.order == limits.DESC),
        reached_at=reached_ms,
        expires_at=periods.expires_at(period, retention_days),
        metadata=metadata,
    )


def combine(config: BoardConfig, stored: int | None, submitted: int) -> int | None:
    """The board operator: the score to store, or None to leave the entry as it is."""
    if config.operator == limits.INCREMENT:
        return (stored or 0) + submitted
    if config.operator == limits.LATEST or stored is None:
        return submitted
    return submitted if config.better(submitted, stored) else None


def check_range(config: BoardConfig, s: Submission) -> None:
    if config.operator != limits.INCREMENT and not config.in_bounds(s.score):
        # the board's own bounds, which the document cannot know: 422, as for its other rules in words
        raise BrokenRule(f"score must be between {config.min_score} and {config.max_score} on this board")


def check(config: BoardConfig, s: Submission, now: datetime) -> None:
    """What refuses a submission without reading anything (a tournament's window, the board's bounds): checked
    before the per-player limit counts it, so a refused submission costs the player nothing."""
    config.check_open(now)
    check_range(config, s)


def checked(config: BoardConfig, s: Submission | BadRequest) -> Submission | BadRequest:
    """A bulk entry, or the BadRequest that refuses it for the board's bounds (see check)."""
    if isinstance(s, BadRequest):
        return s
    try:
        check_range(config, s)
    except BadRequest as err:
        return err
    return s


def plan(
    config: BoardConfig,
    placed: Placed,
    s: Submission,
    stored: dict,
    reached_ms: int,
    *,
    retention_days: int,
    operation_expires: int,
    hidden: bool = False,
) -> tuple[list[EntryWrite], list[PeriodOutcome]]:
    """The writes one submission needs on the standings it takes a place in (placement.py), given what is stored
    (by (player id, index partition)), and its result rows (one per standing). A hidden player's entries are
    written outside the rank index. `operation_expires`: until when an idempotent request's operation id is kept
    (while a retry may come)."""
    meta = json.dumps(s.metadata, separators=(",", ":")) if s.metadata is not None else None
    writes, rows = [], []
    places = [(period, standing, standing.index_partition) for period, standing in placed]
    replay = any(entry_store.applied(stored.get((s.player_id, part)), s.operation) for _, _, part in places)
    for period, standing, part in places:
        old = stored.get((s.player_id, part))
        if entry_store.is_fence(old):
            raise entry_store.Erasing(s.player_id)
        new_score = None if replay else combine(config, old["score"] if old else None, s.score)
        if new_score is not None and not config.in_bounds(new_score):  # the board's bounds: 422, as above
            raise BrokenRule(
                f"the result would leave [{config.min_score}, {config.max_score}] on {period.kind}; nothing stored"
            )
        changed = new_score is not None and (old is None or new_score != old["score"])
        if changed and new_score is not None:  # (changed implies a new score)
            # No name given: keep the one stored (or show the id for a newcomer).
            name = s.player_name or (old.get("player_name") if old else None) or s.player_id
            entry = make_entry(
                config,
                period,
                s.player_id,
                name,
                new_score,
                reached_ms,
                meta,
                retention_days=retention_days,
                standing=standing,
            )
            writes.append(EntryWrite(entry, old, s.operation, operation_expires, hidden))
        rows.append(
            PeriodOutcome(
                period=period,
                leaderboard_id=standing.board_period,
                partition=part,
                score=new_score if changed else (old["score"] if old else None),
                changed=changed,
                rank_key=writes[-1].entry.rank_key if changed else entry_store.position(old or {}),
            )
        )
    return writes, rows


def result(config: BoardConfig, s: Submission, stored: dict, rows: list[PeriodOutcome]) -> Outcome:
    names = [e.get("player_name") for (p, _), e in stored.items() if p == s.player_id and e.get("player_name")]
    return Outcome(config.board_id, s.player_id, s.player_name or (names[0] if names else s.player_id), rows)


def consistent(config: BoardConfig, retry: bool) -> bool:
    """Whether a submission's read must be strongly consistent: on a retry (a concurrent writer changed what we
    read), and for operators whose writes expect exactly what was read. Keep-best's first read need not be: what
    it may miss is a score written in the last moment, which its conditional writes cannot lower, or an erasure
    begun in the last moment, whose entry-place fences its conditional writes refuse."""
    return retry or config.operator != limits.BEST
