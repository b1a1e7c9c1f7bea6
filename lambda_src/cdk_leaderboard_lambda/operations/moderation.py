"""Hiding a player on a board: gone from every list, rank and total others see, on every period; back in place
when shown again.

A hidden player's entries keep their rank key in another attribute (schema.HIDDEN_RANK_KEY), so they are out
of the sparse rank index: pages, ranks, totals, snapshots and closings read the index and never see them, and
the rank-counter consumer recounts the ranges they left as for any other change, so counters stay exact.
Showing moves the key back: the player is where their score and time put them.

The decision is an item per (board, player) (domain/ports: ModerationStore). Writers follow it: the read-then-write path
reads it with the entries; the no-read keep-best path follows the state of the entry it updates and asks once
when it creates one. A hide or show racing a submission can leave an entry on the wrong side for a moment; the
rank-counter consumer reconciles every entry written hidden, and every entry created, with the decision
(reconcile below), so it converges within the counters' usual delay.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import suppress
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..domain import cursors, entry_store
from ..domain.boards import BoardConfig
from ..domain.changes import EntryChange
from ..shared import item_keys, schema
from ..shared.clock import iso
from ..shared.errors import Conflict

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

ATTEMPTS = 8  # an entry changed by a submission between our read and our move: read it again


def hide(runtime: Runtime, config: BoardConfig, player_id: str) -> dict[str, Any]:
    """Record the decision first, then move the player's entries aside: a submission that reads the decision
    after this point writes hidden, one that read it before meets a changed entry and reads again."""
    runtime.moderation.hide(config.board_id, player_id, iso(runtime.clock.now()))
    return _view(config, player_id, True, _move_all(runtime, config, player_id, hidden=True))


def show(runtime: Runtime, config: BoardConfig, player_id: str) -> dict[str, Any]:
    runtime.moderation.show(config.board_id, player_id)
    return _view(config, player_id, False, _move_all(runtime, config, player_id, hidden=False))


def listing(runtime: Runtime, config: BoardConfig, limit: int, cursor: str | None) -> dict[str, Any]:
    """A page of the board's hidden players in player-id order, with a cursor to the next (signed and bound to the
    board's hidden list, like the rankings' cursors to their board period)."""
    binding = item_keys.hidden_partition(config.board_id)
    position = cursors.read(runtime, cursor, binding) if cursor is not None else None
    items, more = runtime.moderation.page_of_board(config.board_id, position.last_key if position else None, limit)
    players = [{"player_id": i[schema.SCORES_SORT_KEY], "hidden_at": i["hidden_at"]} for i in items]
    answer: dict[str, Any] = {"board_id": config.board_id, "players": players}
    if more:
        listed = (position.last_rank if position else 0) + len(players)
        answer["next_cursor"] = cursors.issue(
            runtime, binding, players[-1]["player_id"], listed, position.issued_ms if position else None
        )
    return answer


def _view(config: BoardConfig, player_id: str, hidden: bool, moved: int) -> dict[str, Any]:
    return {"board_id": config.board_id, "player_id": player_id, "hidden": hidden, "moved_entries": moved}


def _move_all(runtime: Runtime, config: BoardConfig, player_id: str, hidden: bool) -> int:
    """Move every entry of the player on the board (every open period and shard) to the wanted side; the count
    moved. Entries of ended periods stay as they closed (docs/PROVING.md, "The closing rule")."""
    entries, moved = runtime.entries, 0
    for _ in range(ATTEMPTS):
        now = runtime.clock.now()  # each round: a period may end while the player's entries move
        pending = [
            item
            for item in entries.of_player_on(player_id, config.board_id)
            if entry_store.is_hidden(item) != hidden and not _ended(config, item[schema.SCORES_SORT_KEY], now)
        ]
        if not pending:
            return moved
        for item in pending:
            with suppress(entry_store.Changed):  # a submission got there first: the next round reads it again
                entries.set_hidden(player_id, item[schema.SCORES_SORT_KEY], item, hidden=hidden)
                moved += 1
    raise Conflict(f"player {player_id} keeps changing on {config.board_id}; retry")


def _ended(config: BoardConfig, partition: str, now: datetime) -> bool:
    return config.ended(item_keys.board_and_period(partition)[1], now)


def reconcile(runtime: Runtime, changes: Iterable[EntryChange]) -> int:
    """Bring entries in line with the decisions after a race (called by the rank-counter consumer with each
    stream batch). Suspects: entries written hidden, and entries created listed. One BatchGetItem reads the
    decisions and one the entries as they are now; only entries on the wrong side are moved. Returns how many."""
    suspects = {change.key for change in changes if change.new and (change.new.hidden or change.old is None)}
    if not suspects:
        return 0
    entries = runtime.entries
    decided = runtime.moderation.hidden_among((item_keys.board_and_period(part)[0], p) for p, part in suspects)
    moved = 0
    for _ in range(ATTEMPTS):
        changed: set[tuple[str, str]] = set()
        for (player, partition), item in entries.get(suspects).items():
            wanted = (item_keys.board_and_period(partition)[0], player) in decided
            if entry_store.is_hidden(item) != wanted:
                try:
                    entries.set_hidden(player, partition, item, hidden=wanted)
                    moved += 1
                except entry_store.Changed:  # a submission got there first: read it again
                    changed.add((player, partition))
        if not changed:
            return moved
        suspects = changed
    raise Conflict("entries kept changing while being reconciled with moderation; the batch is retried")
