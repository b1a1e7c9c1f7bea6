"""The service's own metrics, printed as CloudWatch embedded metric format (EMF): CloudWatch Logs turns them into
metrics, with no API call on the request path and no permission beyond writing the function's own logs.

Usage: `metrics.count(metrics.SUBMISSIONS, board=...)` wherever something happens; the handler wrapper
(`http.api_handler`) flushes once per invocation, one JSON line per set of properties.

A printer of our own rather than Powertools Metrics: Powertools is in the runtime (AWS's layer), but importing
`aws_lambda_powertools.metrics` pulls in the Powertools logger and jmespath, which cost 75 to 90 ms here on every
cold start of every function (Python 3.11; `import leaderboard.handlers.score_submit` itself is about 800 ms,
so that is 10 % more); idempotency.py already imports Powertools only when a request needs it, for the same reason.
What we need of EMF is one small documented JSON structure (Specification: Embedded metric format), which this
module writes and tests/unit/test_metrics.py validates, limits included.

The namespace, the dimension and the metric names are constants that the CDK dashboard imports
(stacks/leaderboard/monitoring.py), so what the code emits and what operators read cannot drift apart.

Cost: every metric name x dimension value is a billed custom metric (0.30 USD/month while it is being sent, nothing
when idle). The only dimension is the function's name, a handful of values per stack; board ids are properties of
the log line, not dimensions: boards are created at run time, and a dimension per board would make every new board
a new set of billed metrics. Break a figure down per board with Logs Insights on the functions' log groups instead.
"""

from __future__ import annotations

import functools
import json
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from .settings import get_settings

NAMESPACE = "Leaderboard"
# The function's generated name: unique per stack, so two stages in one account never mix their figures.
FUNCTION_DIMENSION = "FunctionName"

# Metric names (unit Count).
SUBMISSIONS = "Submissions"  # scores submitted and accepted, changed or not; each entry of a bulk request counts
RANK_READS = "RankReads"  # rank-and-total computations: the counters query plus one bucket COUNT each
WRITE_RETRIES = "WriteRetries"  # writes refused because another one changed the entries first, re-read and retried
COUNTER_RECOUNTS = "CounterRecounts"  # buckets and segments the rank-counter function recounted
COUNTER_LAG = "CounterLagSeconds"  # how old (since written) the oldest record of a batch was when it was counted

COUNT = "Count"
MILLISECONDS = "Milliseconds"
SECONDS = "Seconds"

MAX_VALUES_PER_METRIC = 100  # EMF: a metric holds at most 100 values in one document
MAX_METRICS_PER_DOCUMENT = 100  # EMF: a directive defines at most 100 metrics

F = TypeVar("F", bound=Callable[..., Any])

_lock = threading.Lock()
# properties (sorted items) -> metric name -> (unit, values); counts keep one running total
_pending: dict[tuple[tuple[str, str], ...], dict[str, tuple[str, list[float]]]] = {}


def _enabled() -> bool:
    # Only inside Lambda: local runs, tests and benchmarks call the same handlers and print nothing.
    return get_settings().function_name is not None


def count(name: str, value: int = 1, **properties: str) -> None:
    """Add `value` to a Count metric of this invocation."""
    if not _enabled():
        return
    with _lock:
        metrics = _pending.setdefault(_key(properties), {})
        _, values = metrics.get(name, (COUNT, [0]))
        metrics[name] = (COUNT, [values[0] + value])


def measure(name: str, value: float, unit: str = MILLISECONDS, **properties: str) -> None:
    """Record one sample (a latency, a lag): each sample is kept, so percentiles work on the dashboard."""
    if not _enabled():
        return
    with _lock:
        metrics = _pending.setdefault(_key(properties), {})
        metrics.setdefault(name, (unit, []))[1].append(value)


def _key(properties: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, str(v)) for k, v in properties.items()))


def documents(function_name: str, request_id: str | None = None) -> list[dict[str, Any]]:
    """Take everything recorded so far as EMF documents (and forget it)."""
    with _lock:
        pending = dict(_pending)
        _pending.clear()
    timestamp = int(time.time() * 1000)
    out = []
    for properties, metrics in pending.items():
        names = sorted(metrics)
        for first in range(0, len(names), MAX_METRICS_PER_DOCUMENT):
            chunk = names[first : first + MAX_METRICS_PER_DOCUMENT]
            longest = max(len(metrics[n][1]) for n in chunk)
            for start in range(0, longest, MAX_VALUES_PER_METRIC):
                doc: dict[str, Any] = {**dict(properties), FUNCTION_DIMENSION: function_name}
                if request_id:
                    doc["request_id"] = request_id
                defined = []
                for name in chunk:
                    unit, values = metrics[name]
                    part = values[start : start + MAX_VALUES_PER_METRIC]
                    if part:
                        doc[name] = part[0] if len(part) == 1 else part
                        defined.append({"Name": name, "Unit": unit})
                doc["_aws"] = {
                    "Timestamp": timestamp,
                    "CloudWatchMetrics": [
                        {"Namespace": NAMESPACE, "Dimensions": [[FUNCTION_DIMENSION]], "Metrics": defined}
                    ],
                }
                out.append(doc)
    return out


def flush(context: Any = None) -> None:
    """Print this invocation's metrics, one line per document (Lambda sends stdout to the function's log group)."""
    if not _enabled():
        return
    for doc in documents(get_settings().function_name or "", getattr(context, "aws_request_id", None)):
        print(json.dumps(doc, separators=(",", ":")), flush=True)


def flushed(handler: F) -> F:
    """Decorates a Lambda handler `(event, context)`: flushes after every invocation, failed or not."""

    @functools.wraps(handler)
    def wrapper(event: Any, context: Any = None, *args: Any, **kwargs: Any) -> Any:
        try:
            return handler(event, context, *args, **kwargs)
        finally:
            flush(context)

    return wrapper  # type: ignore[return-value]
