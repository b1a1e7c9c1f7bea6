"""Score submissions: the board's operator on every period it keeps, without lost or doubled updates.

Every submission reads first: the player's entries of the current periods, whether the player is hidden on the
board and (for a board stored in the table) the board's config, in ONE BatchGetItem; then it writes only the
entries the submission changes, each under a condition that refuses it if a concurrent writer got there first.
A submission that changes nothing (the most common one: not the player's best) is that one read and no write.

Keep-best boards read eventually consistently (half the read units): a stale read can only show an older, lower
best, and each write's condition (`score` still below ours) guards the race, so no better score is ever lowered.
Other operators (latest, increment) read strongly consistently, as their writes expect exactly what was read;
every retry after a conflict does too. The rank counters are not touched here (rank_counter_upkeep.py keeps them from
the
table's stream), so two submissions only ever meet on the same player's entries.

Idempotent requests (Idempotency-Key) remember an operation id on every entry they change, so a request retried
after failing part-way (a bulk whose later chunks failed) skips what it applied already.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar, cast

from ..shared import item_keys, limits, metrics
from ..shared.clock import ms
from ..shared.errors import BadRequest, BrokenRule, Conflict, NotFound
from ..shared.model import Entry, EntryWrite
from . import entry_store, periods
from .boards import BoardConfig
from .ports import StoreWrites

if TYPE_CHECKING:
    from .ports.runtime import Runtime

T = TypeVar("T")

WRITE_ATTEMPTS = 40  # one player's entries under many concurrent writers: each round one of them wins


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
) -> Entry:
    """The entry of a score on one period, kept `retention_days` (settings.period_retention_days) past its end."""
    return Entry(
        leaderboard_id=config.player_partition(period.period_id, player_id),
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


def _check_range(config: BoardConfig, s: Submission) -> None:
    if config.operator != limits.INCREMENT and not config.in_bounds(s.score):
        # the board's own bounds, which the document cannot know: 422, as for its other rules in words
        raise BrokenRule(f"score must be between {config.min_score} and {config.max_score} on this board")


def check(config: BoardConfig, s: Submission, now: datetime) -> None:
    """What refuses a submission without reading anything (a tournament's window, the board's bounds): checked
    before the per-player limit counts it, so a refused submission costs the player nothing."""
    config.check_open(now)
    _check_range(config, s)


def checked(config: BoardConfig, s: Submission | BadRequest) -> Submission | BadRequest:
    """A bulk entry, or the BadRequest that refuses it for the board's bounds (see check)."""
    if isinstance(s, BadRequest):
        return s
    try:
        _check_range(config, s)
    except BadRequest as err:
        return err
    return s


def _plan(
    runtime: Runtime, config, current, s: Submission, stored: dict, reached_ms: int, hidden: bool = False
) -> tuple[list[EntryWrite], list[PeriodOutcome]]:
    """The writes one submission needs given what is stored, and its result rows (one per period). A hidden
    player's entries are written outside the rank index."""
    retention_days = runtime.settings.period_retention_days
    meta = json.dumps(s.metadata, separators=(",", ":")) if s.metadata is not None else None
    writes, rows = [], []
    replay = any(entry_store.applied(stored.get((s.player_id, part)), s.operation) for _, part in current)
    for period, part in current:
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
                config, period, s.player_id, name, new_score, reached_ms, meta, retention_days=retention_days
            )
            expires = int(runtime.clock.now().timestamp()) + limits.IDEMPOTENCY_KEEP_SECONDS  # while a retry may come
            writes.append(EntryWrite(entry, old, s.operation, expires, hidden))
        rows.append(
            PeriodOutcome(
                period=period,
                leaderboard_id=config.leaderboard_id(period.period_id),
                partition=part,
                score=new_score if changed else (old["score"] if old else None),
                changed=changed,
                rank_key=writes[-1].entry.rank_key if changed else entry_store.position(old or {}),
            )
        )
    return writes, rows


def _result(config: BoardConfig, s: Submission, stored: dict, rows: list[PeriodOutcome]) -> Outcome:
    names = [e.get("player_name") for (p, _), e in stored.items() if p == s.player_id and e.get("player_name")]
    return Outcome(config.board_id, s.player_id, s.player_name or (names[0] if names else s.player_id), rows)


def _read(
    runtime: Runtime, config: BoardConfig, pairs: list[tuple[str, str]], consistent: bool = True
) -> tuple[dict, set[str]]:
    """The entries (fences in their place) and which of their players are hidden on the board, and for a board
    stored in the table its config (it may be being deleted): all in the same request."""
    read = runtime.entries.get_for_submission(pairs, config.board_id, stored_board=config.stored, consistent=consistent)
    stored, hidden, board = read.entries, read.hidden, read.board
    if config.stored and (board is None or board.get("status") == "deleting"):
        raise NotFound(f"no leaderboard {config.board_id}")
    if (
        config.stored
        and board is not None
        and board.get("generation", item_keys.LEGACY_GENERATION) != config.generation
    ):
        # This instance's cached config is of a deleted generation (board_catalog.BOARD_CACHE_SECONDS): writing
        # would change the deleted board's archived evidence. Nothing written; the next request reads the new one.
        runtime.board_cache.forget(config.board_id)
        raise Conflict(f"leaderboard {config.board_id} was deleted and created again: retry")
    return stored, hidden


def submit(
    runtime: Runtime,
    config: BoardConfig,
    s: Submission,
    now: datetime,
    together: tuple[StoreWrites, ...] = (),
    open_at: datetime | None = None,
) -> Outcome:
    """One submission on every period the board keeps: 1 read request, and a write only where it changes an entry
    (keep-best on a built-in or declared board: one conditional UpdateItem per improved period; otherwise one
    UpdateItem or one transaction). `together`: other stores' writes committed with the entry writes in one unit of
    work, even when no entry changes (an approval: the pending submission it applies; TransactionBusy or their
    store's refusal, nothing written).
    `open_at`: only the periods still open at that time are written (an approval after some of its periods ended
    leaves those as they closed: docs/PROVING.md, "The closing rule").

    `runtime` gives the entries, the board cache, the retention setting and the clock (an Idempotency-Key's
    record is kept from the time of writing, not `now`, which an approval sets to the submission's time)."""
    config.check_open(now)
    _check_range(config, s)
    current = [
        (p, config.player_partition(p.period_id, s.player_id))
        for p in config.current_periods(now)
        if open_at is None or not periods.ended(p, open_at)
    ]
    runtime.metrics.count(metrics.SUBMISSIONS, board=config.board_id)
    if config.operator == limits.BEST and not config.stored and not together:
        return _retry_on_change(
            runtime, config, lambda retry: _keep_best(runtime, config, s, current, ms(now), retry), "this entry"
        )

    def attempt(retry: bool) -> Outcome:
        stored, hidden = _read(
            runtime, config, [(s.player_id, part) for _, part in current], _consistent(config, retry)
        )
        writes, rows = _plan(runtime, config, current, s, stored, ms(now), s.player_id in hidden)
        if together:  # all in one commit (the other stores' writes first: their refusal is told first)
            runtime.unit_of_work.commit(*together, runtime.entries.write_ops(writes))
        elif writes:
            runtime.entries.write(writes)
        return _result(config, s, stored, rows)

    return _retry_on_change(runtime, config, attempt, "this entry")


def _consistent(config: BoardConfig, retry: bool) -> bool:
    """Whether a submission's read must be strongly consistent: on a retry (a concurrent writer changed what we
    read), and for operators whose writes expect exactly what was read. Keep-best's first read need not be: what
    it may miss is a score written in the last moment, which its conditional writes cannot lower, or an erasure
    begun in the last moment, whose entry-place fences its conditional writes refuse."""
    return retry or config.operator != limits.BEST


def _retry_on_change(runtime: Runtime, config: BoardConfig, attempt: Callable[[bool], T], what: str) -> T:
    """attempt(retry) reads and writes; a concurrent writer that changed what it read makes it raise Changed."""
    for n in range(WRITE_ATTEMPTS):
        try:
            return attempt(n > 0)
        except entry_store.Changed:
            runtime.metrics.count(metrics.WRITE_RETRIES, board=config.board_id)
            time.sleep(random.uniform(0, 0.01 * (n + 1)))  # jitter: let the other writer finish
    raise Conflict(f"too many concurrent writes to {what}; retry")


def _keep_best(runtime: Runtime, config: BoardConfig, s: Submission, current, reached_ms: int, retry: bool) -> Outcome:
    """Keep-best: read the entries (and whether the player is hidden on the board) in one request, then write only
    the periods the score beats, each with one conditional UpdateItem (see EntryStore.keep_best: a better score
    stored meanwhile refuses it, an equal one does not replace the one reached first). It is idempotent by nature,
    so an idempotent request needs no operation id. Boards stored in the table take the general path instead.

    A hidden player's entries stay hidden, and a created one is written hidden at once if the read says the player
    is hidden on the board (the rank-counter consumer catches a hide that races this, see moderation.reconcile)."""
    stored, hidden = _read(runtime, config, [(s.player_id, part) for _, part in current], _consistent(config, retry))
    if any(entry_store.is_fence(stored.get((s.player_id, part))) for _, part in current):
        raise entry_store.Erasing(s.player_id)  # nothing written; each write's condition refuses a fence too
    meta = json.dumps(s.metadata, separators=(",", ":")) if s.metadata is not None else None
    outcomes, names = [], []
    for period, part in current:
        old = stored.get((s.player_id, part))
        board_period = config.leaderboard_id(period.period_id)
        if old is not None and not config.better(s.score, old["score"]):
            names.append(old.get("player_name"))  # not better: nothing to write
            outcomes.append(PeriodOutcome(period, board_period, part, old["score"], False, entry_store.position(old)))
            continue
        entry = make_entry(
            config,
            period,
            s.player_id,
            s.player_name or s.player_id,
            s.score,
            reached_ms,
            meta,
            retention_days=runtime.settings.period_retention_days,
        )
        hide = entry_store.is_hidden(old) if old is not None else s.player_id in hidden
        kept = runtime.entries.keep_best(
            entry, descending=config.order == limits.DESC, name_given=s.player_name is not None, hidden=hide
        )
        changed, item = kept.changed, kept.item
        names.append(item.get("player_name"))
        outcomes.append(PeriodOutcome(period, board_period, part, item["score"], changed, entry_store.position(item)))
    return Outcome(config.board_id, s.player_id, s.player_name or next((n for n in names if n), s.player_id), outcomes)


def submit_many(
    runtime: Runtime, config: BoardConfig, submissions: list[Submission | BadRequest], now: datetime
) -> list[Outcome | BadRequest]:
    """Many submissions, in input order, in chunks that each take one read request and, if any of its entries
    changes, one transaction of the changed entries (a chunk that improves nothing writes nothing).

    A chunk holds each player at most once (a later submission of the same player goes to a later chunk, so
    they apply in order), and few enough players that its read (their entries, whether each is hidden, the
    board's item) is at most 100 keys and its transaction at most 100 entries: DynamoDB's limits. Returns one result or
    BadRequest per submission, in input order; a refused submission changes nothing and does not stop the others.
    """
    config.check_open(now)  # a whole bulk outside a tournament's window is refused, nothing written
    period_list = config.current_periods(now)
    # Each player: an entry per period, a hidden item and an erasure item (EntryStore.get_for_submission); one board
    # item.
    per_chunk = max(1, (100 - 1) // (len(period_list) + 2))
    results: list[Outcome | BadRequest | None] = [None] * len(submissions)
    chunk: list[int] = []
    players_in_chunk: set[str] = set()

    def flush() -> None:
        if chunk:
            chosen = [(i, cast(Submission, submissions[i])) for i in chunk]
            _apply_chunk(runtime, config, period_list, chosen, results, now)
            chunk.clear()
            players_in_chunk.clear()

    for i, s in enumerate(submissions):
        if isinstance(s, BadRequest):
            results[i] = s
            continue
        try:
            _check_range(config, s)
        except BadRequest as err:
            results[i] = err
            continue
        if s.player_id in players_in_chunk or len(chunk) == per_chunk:
            flush()
        chunk.append(i)
        players_in_chunk.add(s.player_id)
    flush()
    return cast("list[Outcome | BadRequest]", results)  # every slot is filled by now


def _apply_chunk(
    runtime: Runtime, config, period_list, items: list[tuple[int, Submission]], results: list, now: datetime
) -> None:
    currents = {
        s.player_id: [(p, config.player_partition(p.period_id, s.player_id)) for p in period_list] for _, s in items
    }

    def attempt(retry: bool) -> None:
        pairs = [(player, part) for player, cur in currents.items() for _, part in cur]
        stored, hidden = _read(runtime, config, pairs, _consistent(config, retry))
        writes: list[EntryWrite] = []
        planned: list[tuple[int, Submission, list[PeriodOutcome]]] = []
        for i, s in items:
            try:
                w, rows = _plan(runtime, config, currents[s.player_id], s, stored, ms(now), s.player_id in hidden)
            except (BadRequest, entry_store.Erasing) as err:
                results[i] = err
                continue
            writes += w
            planned.append((i, s, rows))
        if writes:
            runtime.entries.write(writes)
        runtime.metrics.count(metrics.SUBMISSIONS, len(planned), board=config.board_id)
        for i, s, rows in planned:
            results[i] = _result(config, s, stored, rows)

    _retry_on_change(runtime, config, attempt, "these entries")
