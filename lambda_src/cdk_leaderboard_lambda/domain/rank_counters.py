"""Rank and total at nearly flat cost: counters over the rank-key order, in two levels.

Each index partition (a board period, or one shard of it) is cut into buckets, contiguous ranges [lo, hi) of
rank keys, each with a counter item; runs of consecutive buckets form counter bands, with a counter of their own
(stored under the older name "segments": item_keys.BANDS).
Then

    rank  = 1 + (entries in bands wholly ahead)
              + (entries in the buckets of the player's band wholly ahead)
              + COUNT(entries ahead within the player's bucket)
    total = sum of the band counters

i.e. three small reads whatever the board's size: a few band items, at most `band_capacity` bucket items,
and a COUNT over at most about `bucket_capacity` index entries.

Writes never touch the counters: the stream consumer (operations/counter_upkeep.py) recounts the buckets that changed, a
moment after the write, and splits them as they fill. So the COUNT part of a rank is live while the counters may lag the
newest writes by the consumer's delay; ranks and totals are exact once writes settle.

Write sharding: a board with `shards` > 1 spreads its entries over index partitions `<board period>!<k>`;
each shard has its own counters, and reads scatter-gather over the shards, merged by rank key, so the order is
the unsharded order.
"""

from __future__ import annotations

import bisect
import heapq
import math
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, cast

from ..shared import item_keys
from ..shared.errors import ServiceUnavailable
from ..shared.model import Counter

if TYPE_CHECKING:
    from .ports.runtime import Runtime


MAX_PIECES = 25  # a split is one transaction (at most 100 items): a bucket far past its capacity splits in rounds


def containing(found: list[Counter], key: str) -> Counter | None:
    return next((c for c in found if c.holds(key)), None)


def bucket_pieces(lo: str, found: list[str], capacity: int, most: int = MAX_PIECES) -> list[tuple[str, int]]:
    """How a bucket starting at `lo` holding the rank keys `found` splits: pieces of at most half the capacity (or
    `most` equal pieces), [(start, count)], the first starting at lo.

    Each later piece starts at the shortest string between its first key and the one before, cut in the score and
    time only (item_keys.separator): no player id. Keys that tie on score and millisecond are never parted, so each
    cut moves to the nearest place between two that do not tie; a run of ties larger than a piece stays whole
    (its bucket counts it exactly, past its capacity). One piece back: there is nowhere to cut."""
    n = min(most, max(2, math.ceil(2 * len(found) / max(capacity, 1))))
    # the places where a range may start: between two keys that differ in score or millisecond
    allowed = [i for i in range(1, len(found)) if item_keys.separator(found[i - 1], found[i]) is not None]
    positions = [0]
    for ideal in (round(i * len(found) / n) for i in range(1, n)):
        at = bisect.bisect_left(allowed, ideal)
        near = [allowed[j] for j in (at - 1, at) if 0 <= j < len(allowed) and allowed[j] > positions[-1]]
        if near:
            positions.append(min(near, key=lambda pos: (abs(pos - ideal), pos)))
    ends = positions[1:] + [len(found)]
    return [
        (lo if begin == 0 else cast(str, item_keys.separator(found[begin - 1], found[begin])), end - begin)  # allowed
        for begin, end in zip(positions, ends, strict=True)
    ]


def band_pieces(lo: str, buckets: list[Counter], capacity: int) -> list[tuple[str, int]]:
    """How a band starting at `lo` over these buckets (more than `capacity`) splits: [(start, count)], pieces of
    about half the capacity (at most MAX_PIECES), each starting at a bucket's start."""
    n = min(MAX_PIECES, max(2, math.ceil(2 * len(buckets) / max(capacity, 1))))
    bounds = [round(i * len(buckets) / n) for i in range(n + 1)]
    return [
        (lo if i == 0 else buckets[bounds[i]].lo, sum(b.count for b in buckets[bounds[i] : bounds[i + 1]]))
        for i in range(n)
    ]


def rebuilt_levels(
    found: list[str], bucket_capacity: int, band_capacity: int, expires_at: int | None = None
) -> tuple[list[Counter], list[Counter]]:
    """(buckets, bands) counting the sorted rank keys `found` from scratch: buckets at half capacity, bands of half
    the band capacity, together tiling the whole key space."""
    pieces = bucket_pieces(item_keys.FIRST_LO, found, bucket_capacity, most=len(found) + 2) if found else []
    starts = pieces or [(item_keys.FIRST_LO, 0)]
    buckets = [
        Counter(lo, starts[i + 1][0] if i + 1 < len(starts) else item_keys.LAST_HI, n, expires_at=expires_at)
        for i, (lo, n) in enumerate(starts)
    ]
    per_band = max(1, band_capacity // 2)
    bands = [
        Counter(
            buckets[i].lo,
            buckets[i + per_band].lo if i + per_band < len(buckets) else item_keys.LAST_HI,
            sum(b.count for b in buckets[i : i + per_band]),
            expires_at=expires_at,
        )
        for i in range(0, len(buckets), per_band)
    ]
    return buckets, bands


def rank_and_total(runtime: Runtime, parts: Iterable[str], key: str, listed: bool = True) -> tuple[int, int]:
    """1-based rank of the entry with rank key `key`, and the board period's total. An entry not `listed` in the
    index (a hidden player's) gets the rank it would have and a total that counts it.

    Per partition: the bands (a handful of items), the buckets of the key's band up to the key
    (at most band_capacity items), and a COUNT inside the key's bucket (about bucket_capacity entries at most).
    """
    ahead = total = 0
    for part in parts:
        bands = runtime.counters.read(part, item_keys.BANDS)
        if not bands:  # a partition the consumer has not seen yet: it is new, hence small
            part_ahead, part_total = _count_uncounted(runtime, part, key)
            ahead, total = ahead + part_ahead, total + part_total
            continue
        total += sum(s.count for s in bands)
        ahead += sum(s.count for s in bands if s.hi <= key)
        band = containing(bands, key)
        if band is None:
            continue
        buckets = runtime.counters.read(part, item_keys.BUCKETS, lo=band.lo, hi=key)
        ahead += sum(b.count for b in buckets if b.hi <= key)
        bucket = containing(buckets, key)
        if bucket is not None:
            ahead += runtime.entries.count_range(part, bucket.lo, item_keys.before(key))
    rank, total = 1 + ahead, total + (0 if listed else 1)
    # The counters may lag the live COUNT by the consumer's delay: never show a rank past the total.
    return rank, max(total, rank)


def total(runtime: Runtime, parts: Iterable[str]) -> int:
    """A board period's entries: the sum of its band counters (a handful of items per shard)."""
    counted = 0
    for part in parts:
        bands = runtime.counters.read(part, item_keys.BANDS)
        counted += sum(s.count for s in bands) if bands else _count_uncounted(runtime, part, item_keys.LAST_HI)[1]
    return counted


def score_at_rank(runtime: Runtime, parts: list[str], rank: int, low: int, high: int, descending: bool) -> int | None:
    """The score of the entry at a 1-based (unique) rank, or None past the last entry.

    A binary search over the board's score range [low, high]: each probe is one rank read (the three small reads
    per shard of rank_and_total) of the first key of a score, so at most about 53 probes whatever the board's size,
    sharded or not. It looks for the worst score s with fewer than `rank` entries strictly better: the entry at
    `rank` has that score."""

    def better_than(score: int) -> int:  # entries strictly better than `score`
        return rank_and_total(runtime, parts, item_keys.first_key_of_score(score, descending))[0] - 1

    best, worst = (high, low) if descending else (low, high)
    step = -1 if descending else 1  # from best toward worst
    if better_than(worst) >= rank:
        found_lo, found_hi = best, worst  # the answer lies in [best, worst]: search by position along the order
    else:
        # fewer than `rank` entries better than the worst score: the entry at `rank`, if any, has the worst score
        return worst if total(runtime, parts) >= rank else None
    lo, hi = 0, abs(found_hi - found_lo)  # positions along the order: best = 0
    while lo < hi:  # the last position p with better_than(score at p) < rank
        mid = (lo + hi + 1) // 2
        if better_than(found_lo + step * mid) < rank:
            lo = mid
        else:
            hi = mid - 1
    return found_lo + step * lo


MAX_PARALLEL_READS = 16  # threads reading side by side in one request (one per shard at most)
UNCOUNTED_LIMIT = 10  # bucket capacities: what a partition can gather before the consumer first counts it


def _count_uncounted(runtime: Runtime, part: str, key: str) -> tuple[int, int]:
    """Rank and total from the index alone: for the second or two before a new period's first counters exist.
    Bounded: a partition that big without counters means the consumer is failing, which its alarm reports."""
    cap = UNCOUNTED_LIMIT * runtime.settings.bucket_capacity
    total = runtime.entries.count_range(part, item_keys.FIRST_LO, item_keys.LAST_HI, at_most=cap + 1)
    if total > cap:
        raise ServiceUnavailable("this board's rank counters are being built; retry in a few seconds")
    return runtime.entries.count_range(part, item_keys.FIRST_LO, item_keys.before(key)), total


def merged_page(runtime: Runtime, parts: list[str], limit: int, **query) -> list[dict]:
    """Scatter-gather: the first `limit` entries over all shards, in rank-key order (or reverse with before=).

    One Query per shard."""
    if len(parts) == 1:
        return runtime.entries.page(parts[0], limit, **query)
    pages = [runtime.entries.page(p, limit, **query) for p in parts]
    reverse = query.get("before") is not None
    return list(heapq.merge(*pages, key=lambda e: e["rank_key"], reverse=reverse))[:limit]


def ranks_and_total(runtime: Runtime, parts: Iterable[str], wanted: list[str]) -> tuple[dict[str, int], int]:
    """rank_and_total for many rank keys of one board period at once, sharing the counter reads.

    Per partition: the bands once, the buckets of each band a key falls in once, and one COUNT per key
    inside its bucket; so the cost grows with the number of keys (and shards), never with the board's size.
    """
    ahead = dict.fromkeys(wanted, 0)
    total = 0
    for part in parts:
        bands = runtime.counters.read(part, item_keys.BANDS)
        if not bands:
            for key in wanted:
                part_ahead, part_total = _count_uncounted(runtime, part, key)
                ahead[key] += part_ahead
            total += part_total if wanted else 0
            continue
        total += sum(s.count for s in bands)
        buckets_of: dict[str, list[Counter]] = {}
        for key in wanted:
            ahead[key] += sum(s.count for s in bands if s.hi <= key)
            band = containing(bands, key)
            if band is None:
                continue
            if band.lo not in buckets_of:
                buckets_of[band.lo] = runtime.counters.read(
                    part, item_keys.BUCKETS, lo=band.lo, hi=item_keys.before(band.hi)
                )
            buckets = buckets_of[band.lo]
            ahead[key] += sum(b.count for b in buckets if b.hi <= key)
            bucket = containing(buckets, key)
            if bucket is not None:
                ahead[key] += runtime.entries.count_range(part, bucket.lo, item_keys.before(key))
    ranks = {key: 1 + n for key, n in ahead.items()}
    # As in rank_and_total: the counters may lag the live COUNTs; never show a rank past the total.
    return ranks, max([total, *ranks.values()])


class ShardRanks:
    """Ranks of many keys within one index partition, reading each counter range at most once.

    The bands on creation (one Query); then per key, the buckets of its band (one Query per band, the
    first time) and the rank keys of its bucket (one key-only Query per bucket, the first time), so that every
    further key in the same bucket costs nothing. `requests` counts what it read."""

    def __init__(self, runtime: Runtime, part: str) -> None:
        self.runtime, self.part = runtime, part
        self.requests = 1
        self.bands = runtime.counters.read(part, item_keys.BANDS)
        self.total = sum(s.count for s in self.bands)
        self.buckets_of: dict[str, list[Counter]] = {}
        self.keys_of: dict[str, list[str] | None] = {}  # a bucket's rank keys; None: too many, COUNT instead
        self.uncounted: list[str] | None = None
        if not self.bands:  # a partition the consumer has not seen yet: new, hence small (see _count_uncounted)
            cap = UNCOUNTED_LIMIT * runtime.settings.bucket_capacity
            self.uncounted = runtime.entries.index_keys(part, item_keys.FIRST_LO, item_keys.LAST_HI, at_most=cap + 1)
            self.requests += 1
            if len(self.uncounted) > cap:
                raise ServiceUnavailable("this board's rank counters are being built; retry in a few seconds")
            self.total = len(self.uncounted)

    def ahead(self, key: str) -> int:
        """Entries of this partition before `key`."""
        if self.uncounted is not None:
            return bisect.bisect_left(self.uncounted, key)
        ahead = sum(s.count for s in self.bands if s.hi <= key)
        band = containing(self.bands, key)
        if band is None:
            return ahead
        if band.lo not in self.buckets_of:
            upto = item_keys.before(band.hi)
            self.buckets_of[band.lo] = self.runtime.counters.read(self.part, item_keys.BUCKETS, lo=band.lo, hi=upto)
            self.requests += 1
        buckets = self.buckets_of[band.lo]
        ahead += sum(b.count for b in buckets if b.hi <= key)
        bucket = containing(buckets, key)
        if bucket is None:
            return ahead
        if bucket.lo not in self.keys_of:
            cap = UNCOUNTED_LIMIT * self.runtime.settings.bucket_capacity  # a bucket past this: the consumer is behind
            found = self.runtime.entries.index_keys(self.part, bucket.lo, item_keys.before(bucket.hi), at_most=cap + 1)
            self.keys_of[bucket.lo] = found if len(found) <= cap else None
            self.requests += 1
        in_bucket = self.keys_of[bucket.lo]
        if in_bucket is None:
            self.requests += 1
            return ahead + self.runtime.entries.count_range(self.part, bucket.lo, item_keys.before(key))
        return ahead + bisect.bisect_left(in_bucket, key)


# At most 2 reads per key and shard (its band's buckets, its bucket's keys): what a key may cost, at worst.
READS_PER_KEY_AND_SHARD = 2  # limits.FRIENDS_BUDGET is sized by it


def ranks_within_budget(
    runtime: Runtime, parts: list[str], wanted: list[str], budget: int
) -> tuple[dict[str, int], int, int]:
    """Ranks of the first of `wanted` (sorted rank keys) that fit `budget` DynamoDB requests, and the total.

    Returns (ranks, total, requests made). The shards are read side by side (one thread each); keys are taken in
    rounds of as many as the remaining budget covers at their worst cost (2 reads per shard), so the budget holds
    whatever the board; on a board whose keys share buckets, later rounds cost nothing and all keys fit.
    At least one key is ranked when any is wanted (a budget below one key's worst cost is the caller's error).
    """
    # The workers reach the stores through the shards, each holding `runtime`: nothing is looked up in a thread.
    with ThreadPoolExecutor(max_workers=min(len(parts), MAX_PARALLEL_READS)) as pool:
        shards = list(pool.map(lambda part: ShardRanks(runtime, part), parts))
        spent = sum(s.requests for s in shards)
        ranks: dict[str, int] = {}
        todo = list(wanted)
        while todo:
            n = max(0, budget - spent) // (READS_PER_KEY_AND_SHARD * len(parts))
            if n == 0 and ranks:
                break
            batch, todo = todo[: max(n, 1)], todo[max(n, 1) :]
            before = sum(s.requests for s in shards)
            aheads = list(pool.map(lambda s, b=batch: [s.ahead(k) for k in b], shards))
            spent += sum(s.requests for s in shards) - before
            for i, key in enumerate(batch):
                ranks[key] = 1 + sum(a[i] for a in aheads)
    total = sum(s.total for s in shards)
    # As in rank_and_total: the counters may lag the live key reads; never show a rank past the total.
    return ranks, max([total, *ranks.values()]), spent
