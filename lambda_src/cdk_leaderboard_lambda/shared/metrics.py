"""The service's own metrics, printed as CloudWatch embedded metric format (EMF): CloudWatch Logs turns them into
metrics, with no API call on the request path and no permission beyond writing the function's own logs.

Usage: `runtime.metrics.count(metrics.SUBMISSIONS, board=...)` wherever something happens (the runtime's sink,
handed down like its stores); the handler wrapper (`composition.entry_point`) flushes it once per invocation, one
JSON line per set of properties.

A printer of our own rather than Powertools Metrics: Powertools is in the runtime (AWS's layer), but importing
`aws_lambda_powertools.metrics` pulls in the Powertools logger and jmespath, which cost 75 to 90 ms here on every
cold start of every function (Python 3.11; `import cdk_leaderboard_lambda.handlers.score_submit` itself is about 800 ms,
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

import json
import threading
import time
from typing import Any

NAMESPACE = "Leaderboard"
# The function's generated name: unique per stack, so two stages in one account never mix their figures.
FUNCTION_DIMENSION = "FunctionName"

# Metric names (unit Count).
SUBMISSIONS = "Submissions"  # scores submitted and accepted, changed or not; each entry of a bulk request counts
RANK_READS = "RankReads"  # rank-and-total computations: the counters query plus one bucket COUNT each
WRITE_RETRIES = "WriteRetries"  # writes refused because another one changed the entries first, re-read and retried
COUNTER_RECOUNTS = "CounterRecounts"  # buckets and counter bands the rank-counter function recounted
COUNTER_LAG = "CounterLagSeconds"  # how old (since written) the oldest record of a batch was when it was counted
LIVE_KEY_DAYS_LEFT = "LiveKeyDaysLeft"  # days the live API key is valid for after a successful renewal

COUNT = "Count"
MILLISECONDS = "Milliseconds"
SECONDS = "Seconds"
NO_UNIT = "None"

MAX_VALUES_PER_METRIC = 100  # EMF: a metric holds at most 100 values in one document
MAX_METRICS_PER_DOCUMENT = 100  # EMF: a directive defines at most 100 metrics


class MetricsSink:
    """What one runtime recorded since its last flush: properties (sorted items) -> metric name -> (unit, values);
    counts keep one running total. Recording is a no-op outside Lambda (function_name None): local runs, tests and
    benchmarks call the same handlers and print nothing."""

    def __init__(self, function_name: str | None) -> None:
        self.function_name = function_name
        self._lock = threading.Lock()
        self._pending: dict[tuple[tuple[str, str], ...], dict[str, tuple[str, list[float]]]] = {}

    @property
    def enabled(self) -> bool:
        return self.function_name is not None

    def count(self, name: str, value: int = 1, **properties: str) -> None:
        if not self.enabled:
            return
        with self._lock:
            metrics = self._pending.setdefault(_key(properties), {})
            _, values = metrics.get(name, (COUNT, [0]))
            metrics[name] = (COUNT, [values[0] + value])

    def measure(self, name: str, value: float, unit: str = MILLISECONDS, **properties: str) -> None:
        if not self.enabled:
            return
        with self._lock:
            metrics = self._pending.setdefault(_key(properties), {})
            metrics.setdefault(name, (unit, []))[1].append(value)

    def documents(self, function_name: str, request_id: str | None = None) -> list[dict[str, Any]]:
        """Take everything recorded so far as EMF documents (and forget it)."""
        with self._lock:
            pending = dict(self._pending)
            self._pending.clear()
        return _documents(pending, function_name, request_id)

    def flush(self, context: Any = None) -> None:
        """Print the metrics recorded so far, one line per document (Lambda sends stdout to the log group)."""
        if not self.enabled:
            return
        for doc in self.documents(self.function_name or "", getattr(context, "aws_request_id", None)):
            print(json.dumps(doc, separators=(",", ":")), flush=True)


def _key(properties: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((k, str(v)) for k, v in properties.items()))


def _documents(
    pending: dict[tuple[tuple[str, str], ...], dict[str, tuple[str, list[float]]]],
    function_name: str,
    request_id: str | None,
) -> list[dict[str, Any]]:
    timestamp = int(time.time() * 1000)  # the real time: CloudWatch files the metrics under it
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
