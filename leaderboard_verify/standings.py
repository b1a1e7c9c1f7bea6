"""The standings a log's first records give, replayed as docs/PROVING.md describes: `score` and `approve` set the
commitment's entry to (score, at); `remove` and `erase` delete it; `hide` takes it out of the standings until a
`show`. Ranks follow the board's order with ties by `at`, earlier first; entries equal on both score and `at` may be
in either order (the server breaks that tie by player id, which the log does not carry)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

ORDERS = ("desc", "asc")


@dataclass(frozen=True)
class Entry:
    player: str  # the commitment
    score: float
    at: str


@dataclass(frozen=True)
class Standings:
    order: str
    entries: tuple[Entry, ...]  # best first; equal (score, at) entries in an arbitrary order

    @property
    def total(self) -> int:
        return len(self.entries)

    def entry_of(self, player: str) -> Entry | None:
        return next((e for e in self.entries if e.player == player), None)

    def ranks_allowed(self, entry: Entry) -> range:
        """The ranks the entry may hold: after every entry strictly ahead, anywhere among its exact ties."""
        ahead = sum(1 for e in self.entries if self._ahead(e, entry))
        tied = sum(1 for e in self.entries if e is not entry and (e.score, e.at) == (entry.score, entry.at))
        return range(ahead + 1, ahead + tied + 2)

    def _ahead(self, a: Entry, b: Entry) -> bool:
        if a.score != b.score:
            return a.score > b.score if self.order == "desc" else a.score < b.score
        return a.at < b.at  # the fixed-width `at` sorts as text


def replay(records: Iterable[dict[str, Any]], order: str) -> Standings:
    """The standings after the given records (already checked by chain.check_chain)."""
    if order not in ORDERS:
        raise ValueError(f"order must be one of {', '.join(ORDERS)}, not {order!r}")
    entries: dict[str, Entry] = {}
    hidden: set[str] = set()
    for r in records:
        player, kind = r["player"], r["kind"]
        if kind in ("score", "approve"):
            entries[player] = Entry(player, r["score"], r["at"])
        elif kind == "remove":
            entries.pop(player, None)  # a hidden player stays hidden: moderation is the player's, not the entry's
        elif kind == "erase":
            entries.pop(player, None)
            hidden.discard(player)
        elif kind == "hide":
            hidden.add(player)
        elif kind == "show":
            hidden.discard(player)
    sign = -1 if order == "desc" else 1
    shown = sorted((e for p, e in entries.items() if p not in hidden), key=lambda e: (sign * e.score, e.at))
    return Standings(order, tuple(shown))
