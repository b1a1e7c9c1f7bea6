"""Rank and total at nearly flat cost: adaptive counters over the rank-key order, in two levels.

Each index partition (a board period, or one shard of it) is cut into buckets, contiguous ranges
[lo, hi) of rank keys, each with a counter item; runs of consecutive buckets form segments, with a
counter item of their own. Both are kept in step with every entry change inside the same DynamoDB
transaction. Then

    rank  = 1 + (entries in segments wholly ahead)
              + (entries in the buckets of the player's segment wholly ahead)
              + COUNT(entries ahead within the player's bucket)
    total = sum of the segment counters

i.e. three small reads whatever the board's size: a few segment items, at most `segment_capacity`
bucket items, and a COUNT over at most `bucket_capacity` index entries. A bucket splits in two when it
passes its capacity, and a segment when it holds too many buckets, so no read grows with the score
distribution (ties and long tails included) and the top level grows only with N / (512 × 64).

Write sharding: a board with `shards` > 1 spreads its entries over index partitions
`<leaderboard_id>!<k>` (k from a hash of the player id); each shard has its own counters, and
reads scatter-gather over the shards, merged by rank key, so the order is the unsharded order.
"""

from __future__ import annotations

import hashlib
import heapq
from dataclasses import dataclass
from typing import Iterable

from . import keys, store
from .boards import BoardConfig
from .periods import Period
from .settings import get_settings

FIRST_LO = "0"  # below every rank key (they start with 16 digits)
LAST_HI = "~"  # above every rank key


def shard_of(config: BoardConfig, player_id: str) -> int:
    if config.shards == 1:
        return 0
    return int(hashlib.sha256(player_id.encode()).hexdigest()[:8], 16) % config.shards


def partition(config: BoardConfig, period: Period, shard: int) -> str:
    """The rank index partition (the entry's leaderboard_id attribute) of one shard of a board period."""
    base = config.leaderboard_id(period.period_id)
    return base if config.shards == 1 else f"{base}!{shard}"


def partitions(config: BoardConfig, period: Period) -> list[str]:
    return [partition(config, period, k) for k in range(config.shards)]


def player_partition(config: BoardConfig, period: Period, player_id: str) -> str:
    return partition(config, period, shard_of(config, player_id))


@dataclass(frozen=True)
class Bucket:
    """One counter: the entries whose rank key is in [lo, hi)."""

    lo: str
    hi: str
    count: int
    rev: int  # bumped by every change inside the range: a split proceeds only if it is unchanged


BUCKETS, SEGMENTS = 0, 1


def containing(counters: list[Bucket], key: str) -> Bucket | None:
    return next((c for c in counters if c.lo <= key < c.hi), None)


def locate(part: str, keys_: list[str]) -> dict[str, tuple[Bucket | None, Bucket | None]]:
    """For writers: the (bucket, segment) holding each key, read strongly consistent.

    One Query over the segments, then one over the buckets of each segment involved.
    """
    segments = store.counters(part, SEGMENTS, consistent=True)
    found: dict[str, tuple[Bucket | None, Bucket | None]] = {}
    by_segment: dict[str, list[Bucket]] = {}
    for key in keys_:
        segment = containing(segments, key)
        if segment is None:
            found[key] = (None, None)
            continue
        if segment.lo not in by_segment:
            by_segment[segment.lo] = store.counters(part, BUCKETS, True, segment.lo, keys.before(segment.hi))
        found[key] = (containing(by_segment[segment.lo], key), segment)
    return found


def rank_and_total(parts: Iterable[str], key: str) -> tuple[int, int]:
    """1-based rank of the entry with rank key `key`, and the board period's total.

    Per partition: the segments (a handful of items), the buckets of the key's segment up to the key
    (at most segment_capacity items), and a COUNT inside the key's bucket (at most bucket_capacity entries).
    """
    ahead = total = 0
    for part in parts:
        segments = store.counters(part, SEGMENTS)
        total += sum(s.count for s in segments)
        ahead += sum(s.count for s in segments if s.hi <= key)
        segment = containing(segments, key)
        if segment is None or not segment.count:
            continue
        buckets = store.counters(part, BUCKETS, lo=segment.lo, hi=key)
        ahead += sum(b.count for b in buckets if b.hi <= key)
        bucket = containing(buckets, key)
        if bucket is not None and bucket.count and bucket.lo < key:  # a bucket's first key has none ahead in it
            ahead += store.count_range(part, bucket.lo, keys.before(key))
    return 1 + ahead, total


def merged_page(parts: list[str], limit: int, with_history: bool = False, **query) -> list[dict]:
    """Scatter-gather: the first `limit` entries over all shards, in rank-key order (or reverse with before=).

    with_history (and as_of=ms): the ranking as it stood at as_of, replaced versions included, so a walk
    through pages sees every entry exactly once however scores change meanwhile.
    """
    sources = [(p, False) for p in parts] + ([(p, True) for p in parts] if with_history else [])
    if len(sources) == 1:
        return store.page(parts[0], limit, **query)
    pages = [store.page(p, limit, history=h, **query) for p, h in sources]
    reverse = query.get("before") is not None
    return list(heapq.merge(*pages, key=lambda e: e["rank_key"], reverse=reverse))[:limit]


def split_if_full(part: str, key: str) -> None:
    """Split the bucket holding `key` in two halves if it is past capacity; then its segment, likewise.

    A bucket's halves are counted from the index; the split commits only if nothing in the bucket changed
    meanwhile (its rev) and the index agrees with the counter (a global secondary index lags its table
    slightly: if it has not caught up, a later write splits instead). A segment's halves are counted from
    its buckets, read strongly consistent, under the same rev condition.
    """
    bucket, segment = locate(part, [key])[key]
    if bucket is None or segment is None:
        return
    settings = get_settings()
    if bucket.count > settings.bucket_capacity:
        entries = store.page(part, bucket.count + 1, between=(bucket.lo, keys.before(bucket.hi)))
        if len(entries) != bucket.count:
            return
        half = len(entries) // 2
        if not store.split_counter(part, BUCKETS, bucket, entries[half]["rank_key"], half):
            return
    segment = containing(store.counters(part, SEGMENTS, consistent=True), key)
    buckets = store.counters(part, BUCKETS, True, segment.lo, keys.before(segment.hi))
    if len(buckets) > settings.segment_capacity:
        half = len(buckets) // 2
        left = sum(b.count for b in buckets[:half])
        if left + sum(b.count for b in buckets[half:]) == segment.count:
            store.split_counter(part, SEGMENTS, segment, buckets[half].lo, left)
