"""Rank and total at nearly flat cost: counters over the rank-key order, in two levels.

Each index partition (a board period, or one shard of it) is cut into buckets, contiguous ranges [lo, hi) of
rank keys, each with a counter item; runs of consecutive buckets form segments, with a counter of their own.
Then

    rank  = 1 + (entries in segments wholly ahead)
              + (entries in the buckets of the player's segment wholly ahead)
              + COUNT(entries ahead within the player's bucket)
    total = sum of the segment counters

i.e. three small reads whatever the board's size: a few segment items, at most `segment_capacity` bucket items,
and a COUNT over at most about `bucket_capacity` index entries.

Writes never touch the counters: the stream consumer (rank_counter_upkeep.py) recounts the buckets that changed, a
moment after the write, and splits them as they fill. So the COUNT part of a rank is live while the counters may lag the
newest writes by the consumer's delay; ranks and totals are exact once writes settle.

Write sharding: a board with `shards` > 1 spreads its entries over index partitions `<board period>!<k>`;
each shard has its own counters, and reads scatter-gather over the shards, merged by rank key, so the order is
the unsharded order.
"""

from __future__ import annotations

import bisect
import heapq
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from ..shared import item_keys
from ..shared.errors import ServiceUnavailable
from ..shared.model import Counter

if TYPE_CHECKING:
    from .ports.runtime import Runtime


def containing(found: list[Counter], key: str) -> Counter | None:
    return next((c for c in found if c.holds(key)), None)


def rank_and_total(runtime: Runtime, parts: Iterable[str], key: str, listed: bool = True) -> tuple[int, int]:
    """1-based rank of the entry with rank key `key`, and the board period's total. An entry not `listed` in the
    index (a hidden player's) gets the rank it would have and a total that counts it.

    Per partition: the segments (a handful of items), the buckets of the key's segment up to the key
    (at most segment_capacity items), and a COUNT inside the key's bucket (about bucket_capacity entries at most).
    """
    ahead = total = 0
    for part in parts:
        segments = runtime.counters.read(part, item_keys.SEGMENTS)
        if not segments:  # a partition the consumer has not seen yet: it is new, hence small
            part_ahead, part_total = _count_uncounted(runtime, part, key)
            ahead, total = ahead + part_ahead, total + part_total
            continue
        total += sum(s.count for s in segments)
        ahead += sum(s.count for s in segments if s.hi <= key)
        segment = containing(segments, key)
        if segment is None:
            continue
        buckets = runtime.counters.read(part, item_keys.BUCKETS, lo=segment.lo, hi=key)
        ahead += sum(b.count for b in buckets if b.hi <= key)
        bucket = containing(buckets, key)
        if bucket is not None:
            ahead += runtime.entries.count_range(part, bucket.lo, item_keys.before(key))
    rank, total = 1 + ahead, total + (0 if listed else 1)
    # The counters may lag the live COUNT by the consumer's delay: never show a rank past the total.
    return rank, max(total, rank)


def total(runtime: Runtime, parts: Iterable[str]) -> int:
    """A board period's entries: the sum of its segment counters (a handful of items per shard)."""
    counted = 0
    for part in parts:
        segments = runtime.counters.read(part, item_keys.SEGMENTS)
        counted += sum(s.count for s in segments) if segments else _count_uncounted(runtime, part, item_keys.LAST_HI)[1]
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

    Per partition: the segments once, the buckets of each segment a key falls in once, and one COUNT per key
    inside its bucket; so the cost grows with the number of keys (and shards), never with the board's size.
    """
    ahead = dict.fromkeys(wanted, 0)
    total = 0
    for part in parts:
        segments = runtime.counters.read(part, item_keys.SEGMENTS)
        if not segments:
            for key in wanted:
                part_ahead, part_total = _count_uncounted(runtime, part, key)
                ahead[key] += part_ahead
            total += part_total if wanted else 0
            continue
        total += sum(s.count for s in segments)
        buckets_of: dict[str, list[Counter]] = {}
        for key in wanted:
            ahead[key] += sum(s.count for s in segments if s.hi <= key)
            segment = containing(segments, key)
            if segment is None:
                continue
            if segment.lo not in buckets_of:
                buckets_of[segment.lo] = runtime.counters.read(
                    part, item_keys.BUCKETS, lo=segment.lo, hi=item_keys.before(segment.hi)
                )
            buckets = buckets_of[segment.lo]
            ahead[key] += sum(b.count for b in buckets if b.hi <= key)
            bucket = containing(buckets, key)
            if bucket is not None:
                ahead[key] += runtime.entries.count_range(part, bucket.lo, item_keys.before(key))
    ranks = {key: 1 + n for key, n in ahead.items()}
    # As in rank_and_total: the counters may lag the live COUNTs; never show a rank past the total.
    return ranks, max([total, *ranks.values()])


class ShardRanks:
    """Ranks of many keys within one index partition, reading each counter range at most once.

    The segments on creation (one Query); then per key, the buckets of its segment (one Query per segment, the
    first time) and the rank keys of its bucket (one key-only Query per bucket, the first time), so that every
    further key in the same bucket costs nothing. `requests` counts what it read."""

    def __init__(self, runtime: Runtime, part: str) -> None:
        self.runtime, self.part = runtime, part
        self.requests = 1
        self.segments = runtime.counters.read(part, item_keys.SEGMENTS)
        self.total = sum(s.count for s in self.segments)
        self.buckets_of: dict[str, list[Counter]] = {}
        self.keys_of: dict[str, list[str] | None] = {}  # a bucket's rank keys; None: too many, COUNT instead
        self.uncounted: list[str] | None = None
        if not self.segments:  # a partition the consumer has not seen yet: new, hence small (see _count_uncounted)
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
        ahead = sum(s.count for s in self.segments if s.hi <= key)
        segment = containing(self.segments, key)
        if segment is None:
            return ahead
        if segment.lo not in self.buckets_of:
            upto = item_keys.before(segment.hi)
            self.buckets_of[segment.lo] = self.runtime.counters.read(
                self.part, item_keys.BUCKETS, lo=segment.lo, hi=upto
            )
            self.requests += 1
        buckets = self.buckets_of[segment.lo]
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


# At most 2 reads per key and shard (its segment's buckets, its bucket's keys): what a key may cost, at worst.
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
