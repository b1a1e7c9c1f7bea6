"""Boards and what is kept of their periods: stored configs, snapshots, closings, the live broadcaster's state."""

from __future__ import annotations

from typing import Any, Protocol


class Taken(Exception):  # noqa: N818  (an outcome, as the domain names it)
    """A store's new item whose key is taken already (a snapshot's, a run's): nothing was stored."""


# BoardStore's outcomes (put_counted, delete_counted)
CREATED, EXISTS, FULL, BUSY, DELETED, MISSING = "created", "exists", "full", "busy", "deleted", "missing"


class BoardStore(Protocol):
    """Stored boards' configs (their to_item() dicts) and how many there are (data/boards.py: DynamoDB, or in
    memory)."""

    def put_counted(self, config: dict[str, Any], cap: int) -> str:
        """Store a new board and count it, atomically, unless its id is taken (EXISTS) or `cap` boards are counted
        (FULL); CREATED, or BUSY (other writes on the count kept cancelling this one: nothing stored)."""
        ...

    def delete_counted(self, board_id: str) -> str:
        """Delete a board and uncount it, atomically: DELETED, MISSING (no such board) or BUSY (nothing deleted)."""
        ...

    def counted(self) -> int | None:
        """The count the cap is checked against; None until a create or delete first counted the boards."""
        ...

    def replace(self, config: dict[str, Any]) -> bool:
        """Put a changed config over the board's, unless the board is missing or being deleted (then False)."""
        ...

    def get(self, board_id: str) -> dict[str, Any] | None:
        """A board's item (its config, and `status: deleting` while it is deleted), or None."""
        ...

    def count(self) -> int:
        """The stored boards, those being deleted included (strongly consistent)."""
        ...

    def page(self, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
        """Up to `limit` items in board-id order after `after` (None: from the first), and whether more may follow
        (True whenever the page is full)."""
        ...

    def all(self) -> list[dict[str, Any]]:
        """Every board's item in board-id order."""
        ...

    def set_status(self, board_id: str, status: str) -> None:
        """Set the board item's status (`deleting`: a tombstone while its entries go)."""
        ...

    def archive(self, record: dict[str, Any], expires_s: int) -> None:
        """Keep a deleted board generation's record (its config, generation, deleted_at, keep_until) until
        `expires_s` (epoch seconds; DynamoDB's TTL removes it some time after)."""
        ...

    def archived(self, board_id: str | None = None) -> list[dict[str, Any]]:
        """Every archived generation's record of this board id (None: of every board), in key order, expired ones
        the TTL has not removed yet included."""
        ...


class SnapshotStore(Protocol):
    """The append-only snapshot archive (data/snapshots.py: DynamoDB, or in memory). A snapshot is keyed by its
    `leaderboard_id` (its board period) and `taken_at` (its time, ordered)."""

    def put(self, snapshot: dict[str, Any]) -> None:
        """Store a new snapshot; Taken (nothing stored) if one with the same key exists already."""
        ...

    def put_once(self, snapshot: dict[str, Any]) -> bool:
        """put(), or False (nothing changed) if that snapshot exists already."""
        ...

    def newest(self, leaderboard_id: str, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` snapshots of a board period, the latest `taken_at` first."""
        ...

    def scan_page(self, start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
        """Up to `limit` snapshots of the whole archive after the cursor `start` (None: from the first), and the
        cursor to the next page (None once every snapshot was on a page): each snapshot is on one page."""
        ...

    def replace_entries(self, snapshot: dict[str, Any], new_entries: list[dict[str, Any]]) -> None:
        """Set an existing snapshot's entries (nothing else of it changes)."""
        ...


class ClosingStore(Protocol):
    """Closed periods' summaries, one per (board, sort key: item_keys.closing_sort_key, in end order) (data/closings.py:
    DynamoDB, or in memory)."""

    def put_new(self, board_id: str, sort_key: str, summary: dict[str, Any]) -> bool:
        """Store a summary unless there is one (the first closing wins): False, nothing changed, if there was."""
        ...

    def get(self, board_id: str, sort_key: str) -> dict[str, Any] | None:
        """The summary as stored (read strongly consistent), None if there is none."""
        ...

    def newest(self, board_id: str, limit: int) -> list[dict[str, Any]]:
        """Up to `limit` of the board's summaries, the latest sort key first, with only the listed fields
        (period_id, kind, starts_at, ends_at, closed_at, total_players)."""
        ...

    def claim_event(self, board_id: str, sort_key: str, now_s: int, lease_s: int) -> bool:
        """Claim the sending of the summary's event until now_s + lease_s, only if it is stored, not sent
        (event_sent False) and nobody's claim runs past now_s. Atomic: of concurrent claims one wins."""
        ...

    def mark_event_sent(self, board_id: str, sort_key: str) -> None:
        """Record that the event went out (event_sent True): claims are refused from now on."""
        ...

    def page_of_board(self, board_id: str, start: dict | None, limit: int) -> tuple[list[dict[str, Any]], dict | None]:
        """Up to `limit` whole stored items of the board (summary fields and keys) after the cursor `start`, and
        the cursor to the next page (None once every item was on a page)."""
        ...

    def replace_players(
        self,
        item: dict[str, Any],
        top: list[dict[str, Any]],
        rewards: list[dict[str, Any]],
        signature: str | None = None,
    ) -> None:
        """Set a stored item's (one from page_of_board) `top` and `rewards`, and `signature` when given: nothing
        else of it changes."""
        ...


class LiveState(Protocol):
    """What was last published for each board period (data/live_state.py: DynamoDB, or in memory). Every write is
    conditional on the publish time read, so that of broadcasters racing for a board period one wins."""

    def last_sent(self, board_id: str, period_id: str) -> dict[str, Any] | None:
        """The last publish ({"sent_at_ms", "digest", ...}), read strongly consistent; None before the first."""
        ...

    def claim_send(
        self, board_id: str, period_id: str, previous_ms: int | None, sent_at_ms: int, digest: str, expires_at: int
    ) -> bool:
        """Record a publish at sent_at_ms of `digest`, only if the last publish is still at previous_ms (None: there
        was none); False, nothing changed, otherwise."""
        ...

    def finish_send(self, board_id: str, period_id: str, claimed_ms: int, done_ms: int) -> None:
        """Move the publish time from claimed_ms to done_ms; nothing if it is no longer claimed_ms."""
        ...

    def release(self, board_id: str, period_id: str, claimed_ms: int) -> None:
        """Forget the digest (the time stays) if the publish time is still claimed_ms; else nothing."""
        ...

    def switched_off(self) -> bool:
        """Whether the live kill switch is off (`make live-off`): no subscribe is authorized, nothing published."""
        ...

    def set_switch(self, *, off: bool, at: int) -> None:
        """Turn the kill switch off (True) or on again (False) at `at` (epoch s)."""
        ...
