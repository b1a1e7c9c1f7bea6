"""A least-recently-used map bounded by its entries and by their weight: the one home of every per-instance cache a
request can grow (docs/SECURITY.md, "Bounded memory"), so that a public route cannot grow a function instance's
memory without limit.

Each cache states its budget as constants next to it (entries, and the weight's unit with its approximate bytes).
The entry just put is never evicted, even alone over the weight budget: a cache that could not hold the one value
its request needs would redo that work on every request (a big period's replay would never finish).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


def _one(_: object) -> int:
    return 1


class LRU(Generic[K, V]):
    """At most `max_entries` values and at most `max_weight` of `weigh(value)` in all (default: by entries only).
    A value that changes after it is put (a replay read on) is weighed again by putting it again."""

    def __init__(self, max_entries: int, max_weight: int | None = None, weigh: Callable[[V], int] = _one) -> None:
        if max_entries < 1:
            raise ValueError("an LRU holds at least one entry")
        self.max_entries, self.max_weight, self._weigh = max_entries, max_weight, weigh
        self._held: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value, now the most recently used; None if not held."""
        with self._lock:
            hit = self._held.get(key)
            if hit is None:
                return None
            self._held.move_to_end(key)
            return hit[0]

    def put(self, key: K, value: V) -> None:
        """Hold the value (weighed now) as the most recently used, evicting the least recently used others while
        over a budget."""
        weight = self._weigh(value)
        with self._lock:
            old = self._held.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._held[key] = (value, weight)
            self._weight += weight
            while len(self._held) > 1 and (
                len(self._held) > self.max_entries or (self.max_weight is not None and self._weight > self.max_weight)
            ):
                _, (_, dropped) = self._held.popitem(last=False)
                self._weight -= dropped

    def pop(self, key: K) -> V | None:
        with self._lock:
            hit = self._held.pop(key, None)
            if hit is None:
                return None
            self._weight -= hit[1]
            return hit[0]

    def __len__(self) -> int:
        return len(self._held)

    def __contains__(self, key: object) -> bool:
        return key in self._held

    @property
    def weight(self) -> int:
        """The held values' weight, as last weighed."""
        return self._weight
