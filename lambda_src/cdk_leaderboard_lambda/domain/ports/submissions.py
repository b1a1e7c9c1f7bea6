"""What a submission meets on its way: the per-minute limit, runs, the review queue, hidden players, and
Idempotency-Key's records."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from .unit_of_work import StoreWrites

RecordKey = tuple[str, str]  # an Idempotency-Key record's (partition, sort key) in the scores table


@dataclass(frozen=True)
class Approval:
    """A pending submission that an entry write applies: removed with the write in one unit of work
    (PendingStore.approval_ops), all or nothing, only while the decision that claimed it (`claim`: its token) still
    holds it."""

    board_id: str
    pending_id: str
    player_id: str
    claim: str


class RateLimitStore(Protocol):
    """Where the per-minute counts live (data/rate_limits.py: DynamoDB, or in memory)."""

    def take(self, player_id: str, board_id: str, minute: int, count: int, most: int, expires_at: int) -> bool:
        """Count `count` more in this minute unless the count would pass `most` (then change nothing): atomic."""
        ...

    def give_back(self, player_id: str, board_id: str, minute: int, count: int) -> None:
        """Uncount `count` of this minute's (nothing if fewer are counted, or the minute's count is gone)."""
        ...

    def forget_player(self, player_id: str) -> None:
        """Drop every count of the player, on every board and minute (erasure)."""
        ...


class RunStore(Protocol):
    """The runs, each {board_id, seed, started_ms, ends_at, expires_at, used_ms once used} (data/runs.py: DynamoDB,
    or in memory)."""

    def start(
        self,
        run_id: str,
        player_id: str,
        board_id: str,
        seed: int,
        started_ms: int,
        ends_at: int,
        *,
        now_s: int,
        most_open: int,
        baseline: dict[str, Any] | None = None,
    ) -> str | None:
        """Store a new run (with `baseline`, the standing its relative rules judge against) in one of the player's
        `most_open` places on the board: a place without an open run, else the oldest open run's, which is ended.
        The id of the run ended (None: none); TransactionBusy when racing starts kept it from taking a place; Taken
        (nothing stored) if a run of this id is stored already."""
        ...

    def use(self, run_id: str, player_id: str, board_id: str, now_s: int, used_ms: int) -> dict[str, Any] | None:
        """Mark the run used at `used_ms`, atomically, only if it is this player's on this board, unused and not
        over at `now_s`: the run, or None (nothing changed; get() tells why)."""
        ...

    def release(self, run_id: str, player_id: str, used_ms: int) -> None:
        """Undo the use at `used_ms` (not a later one)."""
        ...

    def get(self, player_id: str, run_id: str) -> dict[str, Any] | None:
        """The run (read strongly consistent), or None."""
        ...

    def forget_player(self, player_id: str) -> None:
        """Delete every run of the player (an erasure)."""
        ...


class PendingStore(Protocol):
    """The pending submissions, each with a pointer under its player (data/pending.py: DynamoDB, or in memory)."""

    def put(self, board_id: str, pending_id: str, player_id: str, values: dict[str, Any]) -> None:
        """Store a submission (`values`: its fields, score, rule and submitted_at among them) and its pointer
        (TransactionBusy: nothing stored, try again)."""
        ...

    def get(self, board_id: str, pending_id: str) -> dict[str, Any] | None:
        """The submission's item ({pending_player, its values, deciding while claimed}), strongly consistent."""
        ...

    def page_of_board(self, board_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` of the board's items in pending-id order (leaderboard_id: the pending id) after `after`,
        and whether more follow."""
        ...

    def of_player_on(self, player_id: str, board_id: str) -> list[dict[str, Any]]:
        """The player's submissions on the board as {pending_id, score, rule, submitted_at}, in pending-id order."""
        ...

    def of_player(self, player_id: str) -> list[dict[str, Any]]:
        """The player's submissions on every board as {board_id, pending_id, score, rule, submitted_at}, by board
        id, then in pending-id order."""
        ...

    def claim(self, board_id: str, pending_id: str, token: str) -> bool:
        """Claim the submission for one decision, atomically: False if it is gone or claimed (get() tells which)."""
        ...

    def unclaim(self, board_id: str, pending_id: str, token: str) -> None:
        """Give back the claim `token` took (not another's)."""
        ...

    def drop(self, board_id: str, pending_id: str, player_id: str) -> None:
        """Delete the submission and its pointer (a reject; an approval removes them with its entry writes:
        approval_ops). TransactionBusy: nothing deleted, try again."""
        ...

    def approval_ops(self, approval: Approval) -> StoreWrites:
        """The removal of an approved submission and its pointer, for the unit of work that commits it with the
        entry writes applying it: refused (Conflict) unless the approval's claim still holds the submission."""
        ...

    def forget_player(self, player_id: str) -> None:
        """Delete the player's submissions on every board (an erasure)."""
        ...

    def forget_board(self, board_id: str) -> None:
        """Delete a board's submissions (the board is deleted)."""
        ...


class ModerationStore(Protocol):
    """The decisions, one item per hidden (board, player) (data/moderation.py: DynamoDB, or in memory)."""

    def hide(self, board_id: str, player_id: str, at: str) -> None:
        """Record the player as hidden on the board since `at` (again: the new time)."""
        ...

    def show(self, board_id: str, player_id: str) -> None:
        """Forget the decision (nothing if the player is not hidden)."""
        ...

    def forget(self, player_id: str, board_ids: Iterable[str]) -> None:
        """Forget the player's decisions on these boards (erasure)."""
        ...

    def players_of_board(self, board_id: str) -> list[str]:
        """Every player hidden on the board, in player-id order."""
        ...

    def forget_board(self, board_id: str, player_ids: Iterable[str]) -> None:
        """Forget these players' decisions on the board (it is deleted)."""
        ...

    def hidden_among(self, pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
        """Those of these (board id, player id) pairs that are hidden (read strongly consistent)."""
        ...

    def page_of_board(self, board_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` items ({player_id: the board's hidden partition, leaderboard_id: the player id,
        hidden_at}) of the board's hidden players in player-id order after `after`, and whether more follow."""
        ...


class IdempotencyStore(Protocol):
    """Where the records live (data/idempotency.py: DynamoDB, or in memory), each behind a Powertools layer."""

    def persistence(self) -> Any:
        """Powertools' persistence layer on these records (a BasePersistenceLayer), made on first use."""
        ...

    def records_holding(self, text: str, start: dict | None, limit: int) -> tuple[list[RecordKey], dict | None]:
        """Keys of the records among `limit` more (after the cursor `start`) whose stored response holds `text`,
        and the cursor to the next page (None after the last)."""
        ...

    def forget(self, records: Iterable[RecordKey]) -> int:
        """Delete these records; returns how many."""
        ...
