"""Small rank-counter capacities for tests, so that splits happen on boards of a few dozen players."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from local import invocation


@contextmanager
def counter_capacities(stack: Any, bucket: int, band: int) -> Iterator[int]:
    """Buckets of at most `bucket` entries and counter bands of at most `band` buckets, inside the block: for the
    local stack's functions (`stack`, integration tests) or, with None, for the runtime serving a unit test."""
    changes = {"bucket_capacity": bucket, "band_capacity": band}
    if stack is None:
        with invocation.serving(invocation.runtime().with_settings(**changes)):
            yield bucket
    else:
        with stack.reconfigured(**changes):
            yield bucket
