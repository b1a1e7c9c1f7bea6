"""Rank and total at nearly flat cost: adaptive bucket counters over the rank-key order.

Each index partition (a board period, or one shard of it) is cut into buckets, contiguous
ranges [lo, hi) of rank keys, each with a counter item kept in step with every entry change
inside the same DynamoDB transaction. Then

    rank  = 1 + (entries in buckets wholly ahead) + COUNT(entries ahead within the player's bucket)
    total = sum of the counters

i.e. one Query over the (few hundred) counter items and one COUNT over at most one bucket.
A bucket splits in two when it grows past the capacity, so no bucket holds more than
`bucket_capacity` entries whatever the score distribution (ties and long tails included):
the COUNT stays bounded and the counter Query grows with N / capacity, a few KB at 100k players.

Write sharding: a board with `shards` > 1 spreads its entries over index partitions
`<leaderboard_id>!<k>` (k from a hash of the player id); each shard has its own buckets, and
reads scatter-gather over the shards, merged by rank key, so the order is the unsharded order.
"""

from __future__ import annotations

import hashlib
import heapq
from dataclasses import dataclass
from typing import Iterable

from . import keys, store
from .settings import get_settings
from .boards import BoardConfig
from .periods import Period

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
    lo: str  # inclusive
    hi: str  # exclusive
    count: int
    rev: int  # bumped by every change inside the bucket: a split proceeds only if it is unchanged


def bucket_containing(buckets: list[Bucket], key: str) -> Bucket | None:
    return next((b for b in buckets if b.lo <= key < b.hi), None)


def rank_and_total(parts: Iterable[str], key: str) -> tuple[int, int]:
    """1-based rank of the entry with rank key `key`, and the board period's total."""
    ahead = total = 0
    for part in parts:
        buckets = store.buckets(part)
        total += sum(b.count for b in buckets)
        ahead += sum(b.count for b in buckets if b.hi <= key)
        home = bucket_containing(buckets, key)
        if home is not None and home.count:
            ahead += store.count_range(part, home.lo, keys.before(key))
    return 1 + ahead, total


def total(parts: Iterable[str]) -> int:
    return sum(b.count for part in parts for b in store.buckets(part))


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


def split_if_full(part: str, lo: str) -> None:
    """Split the bucket starting at `lo` in two halves if it is past capacity.

    The halves are counted from the index; the split commits only if the bucket did not
    change meanwhile (its rev) and the index agrees with the counter (a global secondary
    index lags its table slightly: if it has not caught up, a later write splits instead).
    """

    bucket = next((b for b in store.buckets(part, consistent=True) if b.lo == lo), None)
    if bucket is None or bucket.count <= get_settings().bucket_capacity:
        return
    entries = store.page(part, bucket.count + 1, between=(bucket.lo, keys.before(bucket.hi)))
    if len(entries) != bucket.count:
        return
    half = len(entries) // 2
    store.split_bucket(part, bucket, entries[half]["rank_key"], half)


def rebuild(part: str) -> None:
    """Recount a partition's buckets from the index (bulk loads only: no concurrent writers)."""

    size = max(1, get_settings().bucket_capacity // 2)
    all_keys = list(store.index_keys(part))
    bounds = []
    for start in range(0, len(all_keys), size):
        lo = FIRST_LO if start == 0 else all_keys[start]
        hi = LAST_HI if start + size >= len(all_keys) else all_keys[start + size]
        bounds.append((lo, hi, len(all_keys[start : start + size])))
    store.put_buckets(part, bounds)
