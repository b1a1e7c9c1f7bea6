"""Appending every accepted change of an entry to its board period's log, from the scores table's stream (the
rank-counter function's batches), off the request path: a submission makes no extra request.

Why from the stream and not on the request path: one board period's head is ONE item, so appending on the request
path would make every concurrent submission of a board period take turns on it (a conditional write each, retried
by all but one), and a function stopped between the entry's write and the append would leave the change out.
The stream delivers every change of an entry once its write succeeded, in order per entry, and retries a batch
until it goes through; a batch appends each board period's changes in one transaction, so the head is written
once per batch and board period, by at most the mapping's concurrent batches (shards x parallelization factor).

Exactly once: each stream record's event id is marked in the same transaction as its record (data/chain.py). A
retried (or bisected) batch reads the marks first and appends only what is not marked; two appenders that read
the same head race on its conditional write, and the loser reads the head (and the marks) again.

What a change of an entry becomes (old -> new of an entry's place):
    none or fence -> entry             score   (the new score, at its reached time), or approve: the write
                                               remembers a quarantine approval's operation id (item_keys.py);
                                               an entry made hidden: hide first, then its score or approve
    entry -> entry, score/time changed  score or approve
    entry -> entry, rank key moved      hide / show (out of the rank index / back into it)
    entry -> fence                      erase   (the commitment comes with the fence: player_removal.py)
    entry -> none                       remove  (TTL expiry of a period's entries is not a change: left out)
    anything else (a name, an operation id, a fence raised again): nothing
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from ..domain import hashchain
from ..domain.changes import REMOVE, EntryChange, Standing
from ..domain.hashchain import MAX_APPEND
from ..shared import item_keys, schema
from ..shared.clock import ms

if TYPE_CHECKING:
    from ..domain.ports import ChainStore
    from ..domain.ports.runtime import Runtime

APPEND_ATTEMPTS = 12  # rounds of read head, append; past them the batch fails and Lambda retries it


class Contention(Exception):
    """A board period's head kept moving under this appender: the batch is retried (nothing is appended twice)."""


@dataclass(frozen=True)
class Change:
    source: str  # the feed's id of the entry's change
    board_id: str  # an evidence id: the board id of one generation (item_keys.py)
    period_id: str
    player_id: str
    kind: str
    score: int | None
    at_ms: int
    commitment: str | None = None  # given (an erasure's fence), else from the player's key


@dataclass
class Stats:
    changes: int = 0
    skipped: int = 0  # appended already (a retried batch)
    unlinked: int = 0  # changes of a player erased before the log took them in: left out
    appended: int = 0
    transactions: int = 0
    conflicts: int = 0
    periods: set[tuple[str, str]] = field(default_factory=set)

    def summary(self) -> dict[str, int]:
        return {
            "log_changes": self.changes,
            "log_skipped": self.skipped,
            "log_unlinked": self.unlinked,
            "log_appended": self.appended,
            "log_transactions": self.transactions,
            "log_conflicts": self.conflicts,
            "log_periods": len(self.periods),
        }


def _scored(old: Standing | None, new: Standing) -> str:
    """Whether this write was an approval of a quarantined score: it remembers an approval's operation id that the
    entry did not hold before (quarantine.approve)."""
    before = old.operations if old else frozenset()
    approved = any(op.startswith(item_keys.APPROVAL_OPERATION_PREFIX) for op in new.operations - before)
    return "approve" if approved else "score"


def change_of(change: EntryChange, now_ms: int) -> list[Change]:
    """The log's changes for one change of an entry (none, one, or a score change and a hide/show together)."""
    source = change.event_id
    if not source:
        return []
    player_id = change.player_id
    board_id = item_keys.evidence_id(change.board_id, change.generation)  # the entry's board generation (item_keys.py)
    period_id = change.period_id
    old, new = change.old, change.new
    # The time of a removal, hide, show or erasure: the runtime's clock when the log takes it in (the change's own
    # time plus the log's lag). The change's written_at would be the stream's wall clock, which is not the clock the
    # domain reads (tests and the local stack move theirs), and whole seconds on AWS.
    at_ms = now_ms

    def made(kind: str, score: int | None, when: int, commitment: str | None = None, suffix: str = "") -> Change:
        return Change(source + suffix, board_id, period_id, player_id, kind, score, when, commitment)

    if change.kind == REMOVE or new is None:
        if old is None or not old.is_entry or change.expired:
            return []  # a fence lifted, or a period's entries expiring (TTL): no change of the standings
        return [made("remove", old.score, at_ms)]
    if new.erasing:
        if old is None or not old.is_entry:
            return []
        return [made("erase", old.score, at_ms, new.commitment)]
    if not new.is_entry:
        return []
    scored = _scored(old, new)
    reached = int(new.reached_at_ms or 0)
    if old is None or not old.is_entry:  # a new entry; a player hidden before it was made gets it hidden: logged
        first = made(scored, new.score, reached)
        # the hide goes first: the entry is hidden from its first record, never counted in a replay between the two
        return [made("hide", new.score, at_ms, suffix="#moderation"), first] if new.hidden else [first]
    found = []
    if (old.score, old.reached_at_ms) != (new.score, new.reached_at_ms):
        found.append(made(scored, new.score, reached))
    if old.hidden != new.hidden:
        found.append(made("hide" if new.hidden else "show", new.score, at_ms, suffix="#moderation"))
    return found


def fences(runtime: Runtime, player_id: str, partitions: list[str]) -> dict[str, dict[str, str]]:
    """The attributes an erasure's fences carry on these partitions: the player's commitment on each board period
    (their key made if they have none: a change of theirs may still be on its way through the stream)."""
    key = runtime.chain.player_keys([player_id], int(runtime.clock.now().timestamp())).get(player_id)
    if key is None:  # erased lately (and back since): nothing of theirs is logged until the key may be made again
        return {}
    return {
        part: {schema.FENCE_COMMITMENT: hashchain.commitment(key, *item_keys.evidence_and_period(part), player_id)}
        for part in partitions
    }


def append(runtime: Runtime, entry_changes: Iterable[EntryChange], stats: Stats | None = None) -> Stats:
    """Append the log's changes these changes of entries make, each once, to their board periods' logs."""
    stats = stats or Stats()
    now = runtime.clock.now()
    changes = [c for change in entry_changes for c in change_of(change, ms(now))]
    stats.changes = len(changes)
    if not changes:
        return stats
    store = runtime.chain
    done = store.appended([c.source for c in changes])
    pending = [c for c in changes if c.source not in done]
    stats.skipped = len(changes) - len(pending)
    player_keys = store.player_keys(
        sorted({c.player_id for c in pending if c.commitment is None}), int(now.timestamp())
    )
    by_period: dict[tuple[str, str], list[tuple[Change, str]]] = {}
    for c in pending:
        if c.commitment is None and c.player_id not in player_keys:
            stats.unlinked += 1  # erased since (the stream lagged the erasure): nothing may link to them now
            continue
        commitment = c.commitment or hashchain.commitment(
            player_keys[c.player_id], c.board_id, c.period_id, c.player_id
        )
        by_period.setdefault((c.board_id, c.period_id), []).append((c, commitment))
    for (board_id, period_id), group in by_period.items():
        stats.periods.add((board_id, period_id))
        for start in range(0, len(group), MAX_APPEND):
            _append_chunk(store, board_id, period_id, group[start : start + MAX_APPEND], now, stats)
    return stats


def _append_chunk(
    store: ChainStore, board_id: str, period_id: str, chunk: list[tuple[Change, str]], now: datetime, stats: Stats
) -> None:
    for attempt in range(APPEND_ATTEMPTS):
        head = store.log_head(board_id, period_id)
        records = hashchain.chain(head, [(c.at_ms, c.kind, c.score, player) for c, player in chunk])
        stats.transactions += 1
        if store.append(board_id, period_id, head, records, [c.source for c, _ in chunk], int(now.timestamp())):
            stats.appended += len(records)
            return
        stats.conflicts += 1
        done = store.appended([c.source for c, _ in chunk])  # another appender with the same records (a retry)
        chunk = [(c, p) for c, p in chunk if c.source not in done]
        stats.skipped += len(done)
        if not chunk:
            return
        time.sleep(random.uniform(0, 0.02 * (attempt + 1)))  # jitter: let the other appender finish
    raise Contention(f"{board_id}/{period_id}: the log's head moved {APPEND_ATTEMPTS} times; the batch is retried")
