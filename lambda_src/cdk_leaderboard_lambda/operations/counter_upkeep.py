"""Keeping the rank counters in step with the entries, off the request path (the `rank-counter` function).

The scores table's change feed delivers every change of an entry, before and after (domain/changes.py). For each
batch we RECOUNT, from the rank index, every bucket that one of the changed keys falls in, then the bands holding
those buckets (the counting rules: domain/rank_counters.py). A recount does not depend on which changes it was told
about, only on what the index holds, so batches that are replayed, redelivered or reordered across stream shards
leave the counters exact once the last write into each range has been recounted. No submission waits for it and no
item is touched by every submission: a board takes what its rank index partitions take.

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
Bands are recounted from their bucket items, read strongly consistent, under the same claim rule.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..domain.changes import EntryChange
from ..domain.ports import CounterStore, EntryStore
from ..domain.rank_counters import band_pieces, bucket_pieces, containing, rebuilt_levels
from ..shared import item_keys, schema
from ..shared.clock import Clock
from ..shared.model import Counter

if TYPE_CHECKING:
    from ..shared.settings import Settings

VISIBILITY_WAIT_SECONDS = 5.0  # how long a recount waits for the index to show the batch's writes
_RELOCATE = "relocate"  # the bucket was split meanwhile: find the keys' buckets again


class IndexLag(Exception):
    """The rank index has not caught up with the batch's writes yet: the batch is retried."""


@dataclass
class _Partition:
    keys: set[str] = field(default_factory=set)  # rank keys the batch's changes held (before and after)
    players: set[str] = field(default_factory=set)
    expires_at: int | None = None


@dataclass(frozen=True)
class _Upkeep:
    """What a recount works with: the stores (handed to every worker thread) and the capacities it splits at."""

    counters: CounterStore
    entries: EntryStore
    bucket_capacity: int
    band_capacity: int


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
    clock: Clock,
    settings: Settings,
    changes: Iterable[EntryChange],
    stats: Stats | None = None,
) -> Stats:
    """Bring the counters of every index partition these changes of entries touched up to date (the capacities and
    threads from `settings`; the changes' age measured by `clock`)."""
    stats = stats or Stats()
    touched: dict[str, _Partition] = {}
    now = clock.now().timestamp()
    for change in changes:
        stats.records += 1
        if change.written_at is not None:
            stats.oldest_record_age_seconds = max(stats.oldest_record_age_seconds, now - change.written_at)
        p = touched.setdefault(change.index_partition, _Partition())
        p.players.add(change.player_id)
        for standing in (change.old, change.new):
            if standing is None:
                continue
            if standing.rank_key is not None:
                p.keys.add(standing.rank_key)
            if standing.expires_at is not None:
                p.expires_at = standing.expires_at
    stats.partitions = len(touched)
    # Recounts are a few small requests each: side by side. Two pools: a partition's refresh waits for its
    # recounts, so they must not queue behind refreshes.
    threads = settings.recount_threads
    upkeep = _Upkeep(counters, entries, settings.bucket_capacity, settings.band_capacity)
    with (
        ThreadPoolExecutor(max(1, threads // 2), thread_name_prefix="rank-counter") as outer,
        ThreadPoolExecutor(threads, thread_name_prefix="rank-counter") as inner,
    ):
        list(outer.map(lambda item: refresh(upkeep, item[0], item[1], stats, inner), touched.items()))
    return stats


def refresh(
    upkeep: _Upkeep, partition: str, touched: _Partition, stats: Stats, pool: ThreadPoolExecutor | None = None
) -> None:
    """Recount the buckets holding the touched keys, then their bands (side by side on `pool` if given)."""
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
    if not counters.read(partition, item_keys.BANDS, consistent=True):
        if not present:
            return  # a purged or expired partition: nothing to count, no counters to make
        counters.create_first(partition, touched.expires_at)
    pending = set(touched.keys)
    band_keys: set[str] = set()
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
                band_keys.add(bucket.lo)
    bands = counters.read(partition, item_keys.BANDS, consistent=True)
    touched_bands = {band.lo: key for key in band_keys if (band := containing(bands, key))}
    run(lambda key: _recount_band(upkeep, partition, key, stats), list(touched_bands.values()))


def _buckets_of(counters: CounterStore, partition: str, wanted: set[str]) -> list[tuple[Counter, set[str]]]:
    bands = counters.read(partition, item_keys.BANDS, consistent=True)
    by_lo: dict[str, tuple[Counter, set[str]]] = {}
    buckets_by_band: dict[str, list[Counter]] = {}
    for key in sorted(wanted):
        band = containing(bands, key)
        if band is None:
            continue
        if band.lo not in buckets_by_band:
            buckets_by_band[band.lo] = counters.read(
                partition, item_keys.BUCKETS, consistent=True, lo=band.lo, hi=item_keys.before(band.hi)
            )
        bucket = containing(buckets_by_band[band.lo], key)
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
        pieces = bucket_pieces(bucket.lo, found, capacity) if len(found) > capacity else []
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


def _recount_band(upkeep: _Upkeep, partition: str, key: str, stats: Stats) -> None:
    counters, capacity = upkeep.counters, upkeep.band_capacity
    for _ in range(20):
        band = containing(counters.read(partition, item_keys.BANDS, consistent=True), key)
        if band is None:
            return
        gen = counters.claim(partition, item_keys.BANDS, band)
        if gen is None:
            continue  # split meanwhile: find it again
        buckets = counters.read(partition, item_keys.BUCKETS, consistent=True, lo=band.lo, hi=item_keys.before(band.hi))
        stats.add(recounts=1)
        if len(buckets) > capacity:
            stored = counters.split(partition, item_keys.BANDS, band, gen, band_pieces(band.lo, buckets, capacity))
            stats.add(splits=int(stored))
        else:
            stored = counters.store(partition, item_keys.BANDS, band, gen, sum(b.count for b in buckets))
        if stored:
            return
        now = counters.read(partition, item_keys.BANDS, consistent=True, lo=band.lo, hi=band.lo)
        if now and now[0].hi == band.hi:
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
    buckets, bands = rebuilt_levels(found, settings.bucket_capacity, settings.band_capacity, expires_at)
    counters.replace_all(partition, item_keys.BUCKETS, buckets)
    counters.replace_all(partition, item_keys.BANDS, bands)
    return len(found)
