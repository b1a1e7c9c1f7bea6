"""The scores table's stream -> the rank counters (counter_upkeep.py). Lambda polls the stream and calls this with
batches of records, which the runtime's change feed decodes into entries' changes; an exception makes Lambda retry
the batch, which a recount makes harmless. Entries that a hide or show raced are put on the right side of the rank
index first (moderation.reconcile). The batch's changes are appended to their board periods' logs before the recount
(chain_appending.py: each once, however often the batch is retried), so the log's lag does not include the
recount's wait for the index."""

from __future__ import annotations

import logging

from ..composition import Handler, Runtime, entry_point
from ..operations import chain_appending, counter_upkeep, moderation
from ..shared import metrics

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


def count(runtime: Runtime, event: dict, context: object = None) -> dict:
    changes = runtime.changes.entry_changes(event.get("Records") or [])
    reconciled = moderation.reconcile(runtime, changes)
    logged = chain_appending.append(runtime, changes)
    stats = counter_upkeep.apply(runtime.counters, runtime.entries, runtime.clock, runtime.settings, changes)
    runtime.metrics.count(metrics.COUNTER_RECOUNTS, stats.recounts)
    runtime.metrics.measure(metrics.COUNTER_LAG, stats.oldest_record_age_seconds, metrics.SECONDS)
    logger.info(
        "rank counters refreshed", extra=stats.summary() | logged.summary() | {"reconciled_entries": reconciled}
    )
    return {}


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""

    def serve(event: dict, context: object = None) -> dict:
        return count(runtime, event, context)

    return entry_point(runtime, serve)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
