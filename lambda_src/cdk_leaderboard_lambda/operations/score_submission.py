"""Submitting a score, the use case: place it (domain/placement.py), read what is stored, plan the writes
(domain/score_writes.py: the rules), write them, and read and plan again when a concurrent writer got there first;
with its metrics (submissions, write retries).

One submission is 1 read request and a write only where it changes an entry: keep-best on a built-in or declared
board one conditional UpdateItem per improved period, otherwise one UpdateItem or one transaction (with other
stores' writes, `together`, one unit of work). A bulk is a read and at most one transaction per chunk.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar, cast

from ..domain import entry_store, periods
from ..domain.boards import BoardConfig
from ..domain.placement import Placed, Placement, own_standings
from ..domain.ports import EntryStore, StoreWrites, UnitOfWork
from ..domain.score_writes import (
    Outcome,
    PeriodOutcome,
    Submission,
    check_range,
    consistent,
    make_entry,
    plan,
    result,
)
from ..shared import item_keys, limits, metrics
from ..shared.clock import Clock, ms
from ..shared.errors import BadRequest, Conflict, NotFound
from ..shared.metrics import MetricsSink
from ..shared.model import EntryWrite

if TYPE_CHECKING:
    from ..domain.ports.runtime import BoardCache, Runtime

T = TypeVar("T")

WRITE_ATTEMPTS = 40  # one player's entries under many concurrent writers: each round one of them wins


@dataclass(frozen=True)
class Writer:
    """What a submission uses of its runtime: the entries, the unit of work, the board cache (a stale generation's
    config is forgotten), the clock (an Idempotency-Key's record is kept from the time of writing, not the
    submission's time, which an approval sets in the past), the metrics and the retention setting."""

    entries: EntryStore
    unit_of_work: UnitOfWork
    board_cache: BoardCache
    clock: Clock
    metrics: MetricsSink
    retention_days: int

    @classmethod
    def of(cls, runtime: Runtime) -> Writer:
        return cls(
            runtime.entries,
            runtime.unit_of_work,
            runtime.board_cache,
            runtime.clock,
            runtime.metrics,
            runtime.settings.period_retention_days,
        )

    def operation_expires(self) -> int:
        """Until when an idempotent request's operation id stays on the entries it changed (while a retry may come)."""
        return int(self.clock.now().timestamp()) + limits.IDEMPOTENCY_KEEP_SECONDS


def submit(
    writer: Writer,
    config: BoardConfig,
    s: Submission,
    now: datetime,
    together: tuple[StoreWrites, ...] = (),
    open_at: datetime | None = None,
    placement: Placement = own_standings,
) -> Outcome:
    """One submission on every period the board keeps (the standings `placement` places it in).

    `together`: other stores' writes committed with the entry writes in one unit of work, even when no entry
    changes (an approval: the pending submission it applies; TransactionBusy or their store's refusal, nothing
    written). `open_at`: only the periods still open at that time are written (an approval after some of its periods
    ended leaves those as they closed: docs/PROVING.md, "The closing rule")."""
    config.check_open(now)
    check_range(config, s)
    current = [p for p in config.current_periods(now) if open_at is None or not periods.ended(p, open_at)]
    placed = placement(config, current, s.player_id)
    writer.metrics.count(metrics.SUBMISSIONS, board=config.board_id)
    if config.operator == limits.BEST and not config.stored and not together:
        return _retry_on_change(
            writer, config, lambda retry: _keep_best(writer, config, s, placed, ms(now), retry), "this entry"
        )

    def attempt(retry: bool) -> Outcome:
        pairs = [(s.player_id, standing.index_partition) for _, standing in placed]
        stored, hidden = _read(writer, config, pairs, consistent(config, retry))
        writes, rows = plan(
            config,
            placed,
            s,
            stored,
            ms(now),
            retention_days=writer.retention_days,
            operation_expires=writer.operation_expires(),
            hidden=s.player_id in hidden,
        )
        if together:  # all in one commit (the other stores' writes first: their refusal is told first)
            writer.unit_of_work.commit(*together, writer.entries.write_ops(writes))
        elif writes:
            writer.entries.write(writes)
        return result(config, s, stored, rows)

    return _retry_on_change(writer, config, attempt, "this entry")


def _read(
    writer: Writer, config: BoardConfig, pairs: list[tuple[str, str]], consistent: bool = True
) -> tuple[dict, set[str]]:
    """The entries (fences in their place) and which of their players are hidden on the board, and for a board
    stored in the table its config (it may be being deleted): all in the same request."""
    read = writer.entries.get_for_submission(pairs, config.board_id, stored_board=config.stored, consistent=consistent)
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
        writer.board_cache.forget(config.board_id)
        raise Conflict(f"leaderboard {config.board_id} was deleted and created again: retry")
    return stored, hidden


def _retry_on_change(writer: Writer, config: BoardConfig, attempt: Callable[[bool], T], what: str) -> T:
    """attempt(retry) reads and writes; a concurrent writer that changed what it read makes it raise Changed."""
    for n in range(WRITE_ATTEMPTS):
        try:
            return attempt(n > 0)
        except entry_store.Changed:
            writer.metrics.count(metrics.WRITE_RETRIES, board=config.board_id)
            time.sleep(random.uniform(0, 0.01 * (n + 1)))  # jitter: let the other writer finish
    raise Conflict(f"too many concurrent writes to {what}; retry")


def _keep_best(
    writer: Writer, config: BoardConfig, s: Submission, placed: Placed, reached_ms: int, retry: bool
) -> Outcome:
    """Keep-best: read the entries (and whether the player is hidden on the board) in one request, then write only
    the periods the score beats, each with one conditional UpdateItem (see EntryStore.keep_best: a better score
    stored meanwhile refuses it, an equal one does not replace the one reached first). It is idempotent by nature,
    so an idempotent request needs no operation id. Boards stored in the table take the general path instead.

    A hidden player's entries stay hidden, and a created one is written hidden at once if the read says the player
    is hidden on the board (the rank-counter consumer catches a hide that races this, see moderation.reconcile)."""
    places = [(period, standing, standing.index_partition) for period, standing in placed]
    stored, hidden = _read(writer, config, [(s.player_id, part) for _, _, part in places], consistent(config, retry))
    if any(entry_store.is_fence(stored.get((s.player_id, part))) for _, _, part in places):
        raise entry_store.Erasing(s.player_id)  # nothing written; each write's condition refuses a fence too
    meta = json.dumps(s.metadata, separators=(",", ":")) if s.metadata is not None else None
    outcomes, names = [], []
    for period, standing, part in places:
        old = stored.get((s.player_id, part))
        board_period = standing.board_period
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
            retention_days=writer.retention_days,
            standing=standing,
        )
        hide = entry_store.is_hidden(old) if old is not None else s.player_id in hidden
        kept = writer.entries.keep_best(
            entry, descending=config.order == limits.DESC, name_given=s.player_name is not None, hidden=hide
        )
        changed, item = kept.changed, kept.item
        names.append(item.get("player_name"))
        outcomes.append(PeriodOutcome(period, board_period, part, item["score"], changed, entry_store.position(item)))
    return Outcome(config.board_id, s.player_id, s.player_name or next((n for n in names if n), s.player_id), outcomes)


def submit_many(
    writer: Writer,
    config: BoardConfig,
    submissions: list[Submission | BadRequest],
    now: datetime,
    placement: Placement = own_standings,
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
    # item. (A placement into more standings than the periods needs smaller chunks: one entry per standing.)
    per_chunk = max(1, (100 - 1) // (len(period_list) + 2))
    results: list[Outcome | BadRequest | None] = [None] * len(submissions)
    chunk: list[int] = []
    players_in_chunk: set[str] = set()

    def flush() -> None:
        if chunk:
            chosen = [(i, cast(Submission, submissions[i])) for i in chunk]
            _apply_chunk(writer, config, period_list, chosen, results, now, placement)
            chunk.clear()
            players_in_chunk.clear()

    for i, s in enumerate(submissions):
        if isinstance(s, BadRequest):
            results[i] = s
            continue
        try:
            check_range(config, s)
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
    writer: Writer,
    config: BoardConfig,
    period_list: list[periods.Period],
    items: list[tuple[int, Submission]],
    results: list,
    now: datetime,
    placement: Placement,
) -> None:
    placed = {s.player_id: placement(config, period_list, s.player_id) for _, s in items}

    def attempt(retry: bool) -> None:
        pairs = [(player, standing.index_partition) for player, places in placed.items() for _, standing in places]
        stored, hidden = _read(writer, config, pairs, consistent(config, retry))
        writes: list[EntryWrite] = []
        planned: list[tuple[int, Submission, list[PeriodOutcome]]] = []
        expires = writer.operation_expires()
        for i, s in items:
            try:
                w, rows = plan(
                    config,
                    placed[s.player_id],
                    s,
                    stored,
                    ms(now),
                    retention_days=writer.retention_days,
                    operation_expires=expires,
                    hidden=s.player_id in hidden,
                )
            except (BadRequest, entry_store.Erasing) as err:
                results[i] = err
                continue
            writes += w
            planned.append((i, s, rows))
        if writes:
            writer.entries.write(writes)
        writer.metrics.count(metrics.SUBMISSIONS, len(planned), board=config.board_id)
        for i, s, rows in planned:
            results[i] = result(config, s, stored, rows)

    _retry_on_change(writer, config, attempt, "these entries")
