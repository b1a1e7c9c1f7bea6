"""Keeping the rank counters in step with the entries, off the request path (the `rank-counter` function).

The scores table's stream delivers every change of an entry, with its old and new image. For each batch we
RECOUNT, from the rank index, every bucket that one of the changed keys falls in, then the segments holding
those buckets. A recount does not depend on which records it was told about, only on what the index holds, so
batches that are replayed, redelivered or reordered across stream shards leave the counters exact once the
last write into each range has been recounted. No submission waits for it and no item is touched by every
submission: a board takes what its rank index partitions take.

Recount of a bucket [lo, hi):
 1. claim: `ADD gen 1` on its counter item, the recount's place in line (None if the bucket was split).
 2. read the bucket's keys from the rank index, and check that this batch's writes are visible there (the
    entries as the table holds them now, read strongly consistent): a global secondary index lags its table by
    a fraction of a second, so wait and read again until they are (then the batch is retried by Lambda).
 3. store the count, or split the bucket into pieces of at most half its capacity if it passed its capacity,
    unless a recount claimed after ours stored first. That one may have read the index before our writes were
    visible, so we claim once more (after our check) and recount again: a recount claimed after our check
    cannot miss them. Splits are counted from the same read as the rest of the count, so they cannot be
    starved by writers: the bucket grows at most by what one batch adds before it is split.
Segments are recounted from their bucket items, read strongly consistent, under the same claim rule.
"""

from __future__ import annotations

import bisect
import math
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ..shared import item_keys, schema
from ..shared.model import Counter
from .ports import CounterStore, EntryStore
from .rank_counters import containing

if TYPE_CHECKING:
    from ..shared.settings import Settings

VISIBILITY_WAIT_SECONDS = 5.0  # how long a recount waits for the index to show the batch's writes
MAX_PIECES = 25  # a split is one transaction (at most 100 items): a bucket far past its capacity splits in rounds
_RELOCATE = "relocate"  # the bucket was split meanwhile: find the keys' buckets again


class IndexLag(Exception):
    """The rank index has not caught up with the batch's writes yet: the batch is retried."""


@dataclass
class _Partition:
    keys: set[str] = field(default_factory=set)  # rank keys the batch's records held (old and new)
    players: set[str] = field(default_factory=set)
    expires_at: int | None = None


@dataclass(frozen=True)
class _Upkeep:
    """What a recount works with: the stores (handed to every worker thread) and the capacities it splits at."""

    counters: CounterStore
    entries: EntryStore
    bucket_capacity: int
    segment_capacity: int


@dataclass
class Stats:
    records: int = 0
    partitions: int = 0
    recounts: int = 0
    splits: int = 0
    oldest_record_age_seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, recounts: int = 0, splits: int = 0) -> None:
        with self._lock:
            self.recounts += recounts
            self.splits += splits

    def summary(self) -> dict[str, float]:
        return {k: getattr(self, k) for k in ("records", "partitions", "recounts", "splits")} | {
            "oldest_record_age_seconds": round(self.oldest_record_age_seconds, 3)
        }


def apply(
    counters: CounterStore,
    entries: EntryStore,
    settings: Settings,
    records: list[dict[str, Any]],
    stats: Stats | None = None,
) -> Stats:
    """Bring the counters of every index partition these stream records touched up to date (the capacities and
    threads from `settings`)."""
    stats = stats or Stats()
    touched: dict[str, _Partition] = {}
    now = time.time()
    for record in records:
        change = record.get("dynamodb") or {}
        entry = item_keys.entry_of_record(record)
        if entry is None:
            continue  # counters, boards, idempotency records: not entries
        player, partition = entry
        stats.records += 1
        created = change.get("ApproximateCreationDateTime")
        if isinstance(created, (int, float)):
            stats.oldest_record_age_seconds = max(stats.oldest_record_age_seconds, now - created)
        p = touched.setdefault(partition, _Partition())
        p.players.add(player)
        for image in (change.get("OldImage"), change.get("NewImage")):
            if not image:
                continue
            if schema.RANK_INDEX_SORT_KEY in image:
                p.keys.add(image[schema.RANK_INDEX_SORT_KEY]["S"])
            if schema.TTL_ATTRIBUTE in image:
                p.expires_at = int(image[schema.TTL_ATTRIBUTE]["N"])
    stats.partitions = len(touched)
    # Recounts are a few small requests each: side by side. Two pools: a partition's refresh waits for its
    # recounts, so they must not queue behind refreshes.
    threads = settings.recount_threads
    upkeep = _Upkeep(counters, entries, settings.bucket_capacity, settings.segment_capacity)
    with (
        ThreadPoolExecutor(max(1, threads // 2), thread_name_prefix="rank-counter") as outer,
        ThreadPoolExecutor(threads, thread_name_prefix="rank-counter") as inner,
    ):
        list(outer.map(lambda item: refresh(upkeep, item[0], item[1], stats, inner), touched.items()))
    return stats


def refresh(
    upkeep: _Upkeep, partition: str, touched: _Partition, stats: Stats, pool: ThreadPoolExecutor | None = None
) -> None:
    """Recount the buckets holding the touched keys, then their segments (side by side on `pool` if given)."""
    counters = upkeep.counters
    run = (lambda fn, items: list(pool.map(fn, items))) if pool else (lambda fn, items: [fn(i) for i in items])

    current: dict[str, set[str]] = {}

    def expected(refresh: bool = False) -> tuple[set[str], set[str]]:
        """(keys that must be in the index, keys that must not), from the entries as they are now."""
        if refresh or not current:
            now = upkeep.entries.get((p, partition) for p in touched.players)
            current["present"] = {
                item[schema.RANK_INDEX_SORT_KEY] for item in now.values() if schema.RANK_INDEX_SORT_KEY in item
            }
        return current["present"], touched.keys - current["present"]

    present, _ = expected()
    if not counters.read(partition, item_keys.SEGMENTS, consistent=True):
        if not present:
            return  # a purged or expired partition: nothing to count, no counters to make
        counters.create_first(partition, touched.expires_at)
    pending = set(touched.keys)
    segment_keys: set[str] = set()
    for _ in range(20):  # each round re-locates only keys whose bucket was split meanwhile
        if not pending:
            break
        groups = _buckets_of(counters, partition, pending)
        outcomes = run(lambda group: _recount_bucket(upkeep, partition, group[0], expected, stats), groups)
        pending = set()
        for (bucket, held), outcome in zip(groups, outcomes, strict=True):
            if outcome == _RELOCATE:
                pending |= held
            else:
                segment_keys.add(bucket.lo)
    segments = counters.read(partition, item_keys.SEGMENTS, consistent=True)
    touched_segments = {seg.lo: key for key in segment_keys if (seg := containing(segments, key))}
    run(lambda key: _recount_segment(upkeep, partition, key, stats), list(touched_segments.values()))


def _buckets_of(counters: CounterStore, partition: str, wanted: set[str]) -> list[tuple[Counter, set[str]]]:
    segments = counters.read(partition, item_keys.SEGMENTS, consistent=True)
    by_lo: dict[str, tuple[Counter, set[str]]] = {}
    buckets_by_segment: dict[str, list[Counter]] = {}
    for key in sorted(wanted):
        segment = containing(segments, key)
        if segment is None:
            continue
        if segment.lo not in buckets_by_segment:
            buckets_by_segment[segment.lo] = counters.read(
                partition, item_keys.BUCKETS, consistent=True, lo=segment.lo, hi=item_keys.before(segment.hi)
            )
        bucket = containing(buckets_by_segment[segment.lo], key)
        if bucket is not None:
            by_lo.setdefault(bucket.lo, (bucket, set()))[1].add(key)
    return list(by_lo.values())


def _recount_bucket(upkeep: _Upkeep, partition: str, bucket: Counter, expected: Callable, stats: Stats) -> str | bool:
    counters, capacity = upkeep.counters, upkeep.bucket_capacity
    for _ in range(2):
        gen = counters.claim(partition, item_keys.BUCKETS, bucket)
        if gen is None:
            return _RELOCATE
        found = _visible_keys(upkeep.entries, partition, bucket, expected)
        pieces = _cut(bucket.lo, found, capacity) if len(found) > capacity else []
        if len(pieces) > 1:
            stored = counters.split(partition, item_keys.BUCKETS, bucket, gen, pieces)
            stats.add(recounts=1, splits=int(stored))
        else:
            stats.add(recounts=1)
            stored = counters.store(partition, item_keys.BUCKETS, bucket, gen, len(found))
        if stored:
            return True
        now = counters.read(partition, item_keys.BUCKETS, consistent=True, lo=bucket.lo, hi=bucket.lo)
        if not now or now[0].hi != bucket.hi:
            return _RELOCATE
    return True  # a recount claimed after our check stored: it saw our writes


def _visible_keys(entries: EntryStore, partition: str, bucket: Counter, expected: Callable) -> list[str]:
    """The bucket's keys in the index, once the index shows the entries as the table held them.

    A key missing from the index because its player wrote again after the table was read is not lag: the table,
    read again, no longer holds it, and the record of that newer write recounts this bucket (requiring the key
    gone). Without that excuse, players who keep writing would hold a recount back forever."""
    deadline = time.monotonic() + VISIBILITY_WAIT_SECONDS
    delay = 0.02
    present, absent = expected()
    while True:
        found = entries.index_keys(partition, bucket.lo, item_keys.before(bucket.hi))
        held = set(found)
        missing = {k for k in present if bucket.holds(k)} - held
        stale = {k for k in absent if bucket.holds(k)} & held
        if not missing and not stale:
            return found
        present, absent = expected(refresh=True)  # the players may have written again since
        if not (missing & present) and not stale:
            return found
        if time.monotonic() > deadline:
            raise IndexLag(f"{partition}: the rank index lags its table by more than {VISIBILITY_WAIT_SECONDS} s")
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def _cut(lo: str, found: list[str], capacity: int, most: int = MAX_PIECES) -> list[tuple[str, int]]:
    """Pieces of at most half the capacity (or `most` equal pieces): [(start, count)], the first starting at lo.

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


def _recount_segment(upkeep: _Upkeep, partition: str, key: str, stats: Stats) -> None:
    counters, capacity = upkeep.counters, upkeep.segment_capacity
    for _ in range(20):
        segment = containing(counters.read(partition, item_keys.SEGMENTS, consistent=True), key)
        if segment is None:
            return
        gen = counters.claim(partition, item_keys.SEGMENTS, segment)
        if gen is None:
            continue  # split meanwhile: find it again
        buckets = counters.read(
            partition, item_keys.BUCKETS, consistent=True, lo=segment.lo, hi=item_keys.before(segment.hi)
        )
        stats.add(recounts=1)
        if len(buckets) > capacity:
            n = min(MAX_PIECES, max(2, math.ceil(2 * len(buckets) / max(capacity, 1))))
            bounds = [round(i * len(buckets) / n) for i in range(n + 1)]
            pieces = [
                (
                    segment.lo if i == 0 else buckets[bounds[i]].lo,
                    sum(b.count for b in buckets[bounds[i] : bounds[i + 1]]),
                )
                for i in range(n)
            ]
            stored = counters.split(partition, item_keys.SEGMENTS, segment, gen, pieces)
            stats.add(splits=int(stored))
        else:
            stored = counters.store(partition, item_keys.SEGMENTS, segment, gen, sum(b.count for b in buckets))
        if stored:
            return
        now = counters.read(partition, item_keys.SEGMENTS, consistent=True, lo=segment.lo, hi=segment.lo)
        if now and now[0].hi == segment.hi:
            return  # a recount claimed after ours stored: it read our bucket writes, which came before our claim


def rebuild(
    counters: CounterStore,
    entries: EntryStore,
    settings: Settings,
    partition: str,
    expires_at: int | None = None,
) -> int:
    """Recount a whole index partition from the index in one pass, into buckets at half capacity.

    For bulk loads (benchmarks) and repairs, while no consumer is working on the partition. Returns the total.
    """
    found = entries.index_keys(partition, item_keys.FIRST_LO, item_keys.LAST_HI)
    pieces = _cut(item_keys.FIRST_LO, found, settings.bucket_capacity, most=len(found) + 2) if found else []
    buckets = [Counter(lo, "", n, expires_at=expires_at) for lo, n in pieces or [(item_keys.FIRST_LO, 0)]]
    buckets = [
        Counter(
            b.lo, (buckets[i + 1].lo if i + 1 < len(buckets) else item_keys.LAST_HI), b.count, expires_at=expires_at
        )
        for i, b in enumerate(buckets)
    ]
    per_segment = max(1, settings.segment_capacity // 2)
    segments = [
        Counter(
            buckets[i].lo,
            buckets[i + per_segment].lo if i + per_segment < len(buckets) else item_keys.LAST_HI,
            sum(b.count for b in buckets[i : i + per_segment]),
            expires_at=expires_at,
        )
        for i in range(0, len(buckets), per_segment)
    ]
    counters.replace_all(partition, item_keys.BUCKETS, buckets)
    counters.replace_all(partition, item_keys.SEGMENTS, segments)
    return len(found)
