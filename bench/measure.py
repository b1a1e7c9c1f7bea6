"""Samples of one operation, and their summary: requests, capacity units, wall time."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from bench.metering import Usage


@dataclass(frozen=True)
class Sample:
    usage: Usage
    seconds: float


def nearest_rank(values: list[float], q: float) -> float:
    """The q-quantile by the nearest-rank method (p99 of 50 samples is their maximum)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def _spread(values: list[float]) -> dict[str, float]:
    return {"mean": statistics.fmean(values), "min": min(values), "max": max(values)}


def summarize(samples: list[Sample]) -> dict[str, Any]:
    if not samples:
        return {"samples": 0}
    ms = [s.seconds * 1000 for s in samples]
    ops: dict[str, int] = {}
    for s in samples:
        for k, v in s.usage.by_operation.items():
            ops[k] = ops.get(k, 0) + v
    n = len(samples)
    return {
        "samples": n,
        "requests": _spread([s.usage.requests for s in samples]),
        "read_units": _spread([s.usage.read_units for s in samples]),
        "write_units": _spread([s.usage.write_units for s in samples]),
        # What DynamoDB Local reported; differs from write_units only where transactions were estimated.
        "write_units_reported": _spread([s.usage.write_units_reported for s in samples]),
        "transaction_items_per_call": sum(s.usage.transaction_items for s in samples) / n,
        # Refused conditional writes and cancelled transactions are billed on AWS, but no response
        # reports their capacity (see docs/PERFORMANCE.md): counted here instead.
        "refused_writes_per_call": sum(s.usage.refused for s in samples) / n,
        "error_responses_per_call": sum(s.usage.errors for s in samples) / n,
        "unreported_capacity_per_call": sum(s.usage.unreported for s in samples) / n,
        "retried_attempts": sum(s.usage.attempts - s.usage.requests for s in samples),
        "requests_by_operation_per_call": {k: v / n for k, v in sorted(ops.items())},
        "ms": {
            "p50": nearest_rank(ms, 0.50),
            "p99": nearest_rank(ms, 0.99),
            "mean": statistics.fmean(ms),
            "min": min(ms),
            "max": max(ms),
        },
    }


def ratio(original: float, now: float) -> float | None:
    """How many times the original costs what the current code does (None when both are zero)."""
    if now == 0:
        return None if original == 0 else math.inf
    return original / now
