"""Count DynamoDB requests and consumed capacity on a boto3 client, through botocore's event hooks.

`attach(client, meter)` makes every data-plane call of that client ask for
ReturnConsumedCapacity=TOTAL and adds each response's ConsumedCapacity to the meter.
Nothing in the code under test changes: the hooks live on the client it already uses.

One correction: DynamoDB Local misreports TransactWriteItems (4 units per KB per item instead of the
documented 2, and items of equal size in one transaction are counted once), so for that operation
the write units are estimated from the request by the documented rules (`transaction_estimate`);
what DynamoDB Local said is kept in `write_units_reported`. See docs/PERFORMANCE.md.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field, fields

from cdk_leaderboard_lambda.shared import schema

# Operations that accept ReturnConsumedCapacity; split by the kind of unit they consume.
READ_OPS = frozenset({"GetItem", "Query", "Scan", "BatchGetItem", "TransactGetItems"})
WRITE_OPS = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})
METERED_OPS = READ_OPS | WRITE_OPS
# Error codes of writes DynamoDB refused on a condition: billed (at least 1 write unit per item) but the
# error response has no ConsumedCapacity field, on AWS as on DynamoDB Local.
REFUSALS = frozenset({"ConditionalCheckFailedException", "TransactionCanceledException"})
INDEX_KEYS = (schema.RANK_INDEX_PARTITION_KEY, schema.RANK_INDEX_SORT_KEY)
_CONTEXT_KEY = "bench_transaction_estimate"


@dataclass
class Usage:
    """What a stretch of work cost; every field adds up."""

    requests: int = 0  # API calls (a call botocore retried counts once; see attempts)
    attempts: int = 0  # HTTP requests sent, retries included
    read_units: float = 0.0
    write_units: float = 0.0  # as reported, except TransactWriteItems: estimated (see the module doc)
    write_units_reported: float = 0.0  # exactly what the responses said
    transaction_items: int = 0  # actions in TransactWriteItems calls
    errors: int = 0  # calls answered with an error (refused writes included)
    refused: int = 0  # refused conditional writes / cancelled transactions: billed, yet no capacity reported
    unreported: int = 0  # metered calls whose response carried no ConsumedCapacity
    by_operation: dict[str, int] = field(default_factory=dict)

    def __add__(self, other: Usage) -> Usage:
        out = Usage(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self) if f.name != "by_operation"}
        )
        out.by_operation = dict(self.by_operation)
        for k, v in other.by_operation.items():
            out.by_operation[k] = out.by_operation.get(k, 0) + v
        return out


class Meter:
    """A thread-safe running total; `take()` returns it and starts a new one."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._usage = Usage()

    def take(self) -> Usage:
        with self._lock:
            usage, self._usage = self._usage, Usage()
        return usage

    def reset(self) -> None:
        self.take()

    def _record_call(self, operation: str, parsed: dict, failed: bool, estimate: tuple[float, int] | None) -> None:
        read, write, reported = _capacity(operation, parsed.get("ConsumedCapacity"))
        refused = failed and (parsed.get("Error") or {}).get("Code") in REFUSALS
        with self._lock:
            u = self._usage
            u.requests += 1
            u.by_operation[operation] = u.by_operation.get(operation, 0) + 1
            u.read_units += read
            u.write_units_reported += write
            if estimate is not None and not failed:
                u.write_units += estimate[0]
                u.transaction_items += estimate[1]
            else:
                u.write_units += write
            u.errors += int(failed)
            u.refused += int(refused)
            u.unreported += int(operation in METERED_OPS and not reported)

    def _record_attempt(self) -> None:
        with self._lock:
            self._usage.attempts += 1


class ThreadMeter(Meter):
    """A Meter that counts only calls made on some threads: those named with one of `only` (if given), minus
    those named with one of `but` (e.g. the request threads, not the stream consumer's)."""

    def __init__(self, only: tuple[str, ...] = (), but: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.only, self.but = only, but

    def _mine(self) -> bool:
        name = threading.current_thread().name
        return (not self.only or name.startswith(self.only)) and not (self.but and name.startswith(self.but))

    def _record_call(self, *args, **kwargs) -> None:
        if self._mine():
            super()._record_call(*args, **kwargs)

    def _record_attempt(self) -> None:
        if self._mine():
            super()._record_attempt()


CONSUMER_THREADS = ("stream-poller", "rank-counter", "live-", "schedule-")  # off the request path: the stream
# consumers' threads (local/streams.py, counter_upkeep.py, broadcasting.py) and the scheduled functions'
# (local/schedules.py)


def _capacity(operation: str, consumed) -> tuple[float, float, bool]:
    """(read units, write units, whether the response reported any) from ConsumedCapacity.

    It is one dict (single-item calls, Query) or a list of dicts, one per table (batch and
    transaction calls). Each dict has CapacityUnits and, on current DynamoDB, the split into
    ReadCapacityUnits/WriteCapacityUnits; without the split the operation's kind decides.
    """
    if not consumed:
        return 0.0, 0.0, False
    read = write = 0.0
    for c in consumed if isinstance(consumed, list) else [consumed]:
        if "ReadCapacityUnits" in c or "WriteCapacityUnits" in c:
            read += float(c.get("ReadCapacityUnits", 0.0))
            write += float(c.get("WriteCapacityUnits", 0.0))
        elif operation in WRITE_OPS:
            write += float(c.get("CapacityUnits", 0.0))
        else:
            read += float(c.get("CapacityUnits", 0.0))
    return read, write, True


# --- the documented cost of a TransactWriteItems call ---------------------------------------------


def _value_size(v: dict) -> int:
    ((kind, x),) = v.items()
    if kind in ("S", "B"):
        return len(x.encode() if isinstance(x, str) else x)
    if kind == "N":
        digits = len(x.lstrip("-").replace(".", "").lstrip("0")) or 1
        return (digits + 1) // 2 + 1
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "M":
        return 3 + sum(len(k.encode()) + _value_size(w) + 1 for k, w in x.items())
    if kind == "L":
        return 3 + sum(_value_size(w) + 1 for w in x)
    return sum(len(e.encode() if isinstance(e, str) else e) for e in x)  # SS, NS, BS (roughly)


def item_size(item: dict) -> int:
    """Bytes DynamoDB bills an item by: attribute names plus values."""
    return sum(len(name.encode()) + _value_size(value) for name, value in item.items())


def transaction_estimate(params: dict) -> tuple[float, int]:
    """(write units, actions) of a TransactWriteItems request by the documented rules.

    Each action: 2 units per KB of the item written (Update: its key plus the values the request
    carries, a lower bound of the item's size; Delete and ConditionCheck: 2 per KB of the key, a lower
    bound). Plus the rank index: 1 unit per index entry written, since DynamoDB propagates a
    transaction to global secondary indexes after it commits, like any write: a Put of an item with
    both index keys writes one entry; an Update that sets the index sort key writes one (a new item,
    as its condition attribute_not_exists(...) says) or two (an existing entry moves: delete + put).
    """
    units, actions = 0.0, 0
    for action in params.get("TransactItems", []):
        ((kind, a),) = action.items()
        actions += 1
        if kind == "Put":
            item = a.get("Item", {})
            units += 2 * max(1, math.ceil(item_size(item) / 1024))
            if all(k in item for k in INDEX_KEYS):
                units += 1
        elif kind == "Update":
            size = item_size(a.get("Key", {})) + sum(
                _value_size(v) for v in a.get("ExpressionAttributeValues", {}).values()
            )
            units += 2 * max(1, math.ceil(size / 1024))
            if _sets(a, schema.RANK_INDEX_SORT_KEY):
                units += 1 if "attribute_not_exists" in a.get("ConditionExpression", "") else 2
        else:  # Delete, ConditionCheck
            units += 2 * max(1, math.ceil(item_size(a.get("Key", {})) / 1024))
    return units, actions


def _sets(update: dict, attribute: str) -> bool:
    expression = update.get("UpdateExpression", "")
    names = {alias for alias, name in update.get("ExpressionAttributeNames", {}).items() if name == attribute}
    sets = expression.split("SET", 1)[1] if "SET" in expression else ""
    targets = {part.split("=", 1)[0].strip() for part in sets.split(",") if "=" in part}
    return attribute in targets or bool(names & targets)


def detach(client, meter: Meter) -> None:
    """Stop metering `client` for `meter`."""
    unique = f"bench-meter-{id(meter)}"
    for event, suffix in (("provide-client-params", "-params"), ("after-call", "-after"), ("before-send", "-send")):
        client.meta.events.unregister(f"{event}.dynamodb.*", unique_id=unique + suffix)


def attach(client, meter: Meter) -> None:
    """Meter every call of `client` from now on (idempotent per client and meter)."""
    events = client.meta.events
    unique = f"bench-meter-{id(meter)}"

    def add_return_consumed_capacity(params, model, context=None, **kwargs):
        if model.name in METERED_OPS:
            params.setdefault("ReturnConsumedCapacity", "TOTAL")
        if model.name == "TransactWriteItems" and context is not None:
            context[_CONTEXT_KEY] = transaction_estimate(params)

    def after_call(http_response, parsed, model, context=None, **kwargs):
        estimate = (context or {}).get(_CONTEXT_KEY)
        meter._record_call(model.name, parsed or {}, failed=http_response.status_code >= 300, estimate=estimate)

    def before_send(request, **kwargs):
        meter._record_attempt()  # returning None lets the request go

    events.register("provide-client-params.dynamodb.*", add_return_consumed_capacity, unique_id=unique + "-params")
    events.register("after-call.dynamodb.*", after_call, unique_id=unique + "-after")
    events.register("before-send.dynamodb.*", before_send, unique_id=unique + "-send")
