"""Small rank-counter capacities for tests, so that splits happen on boards of a few dozen players."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from leaderboard.settings import get_settings


@contextmanager
def counter_capacities(monkeypatch, bucket: int, segment: int) -> Iterator[int]:
    """Buckets of at most `bucket` entries and segments of at most `segment` buckets, inside the block."""
    monkeypatch.setenv("BUCKET_CAPACITY", str(bucket))
    monkeypatch.setenv("SEGMENT_CAPACITY", str(segment))
    get_settings.cache_clear()
    try:
        yield bucket
    finally:
        get_settings.cache_clear()
