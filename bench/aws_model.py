"""What DynamoDB does on AWS and DynamoDB Local does not, injected into boto3 clients for the load benchmark.

1. Item-level transaction conflicts, as the DynamoDB Developer Guide documents them ("Transaction conflict
   handling"): a TransactWriteItems holds each of its items for its call plus a commit time (the response comes
   back after the commit). While an item is held,
   - another TransactWriteItems that includes it is cancelled: TransactionCanceledException, the item's
     cancellation reason TransactionConflict;
   - a PutItem, UpdateItem or DeleteItem of it fails with TransactionConflictException.
   DynamoDB Local serializes transactions and reports neither.
2. Throughput per partition key value: 1,000 write units/s and 3,000 read units/s for each partition key value,
   on the table and on the rank index (token buckets holding one second's worth). A request that needs more
   gets ProvisionedThroughputExceededException, which boto3 retries with backoff, as on AWS. Write units by the
   documented rules: 1 per KB per item written (2 in a transaction); an index entry written costs 1 on the
   index, an entry that moves (its index sort key changes) 2 (a delete and a put). Reads are charged what the
   response reports (ReturnConsumedCapacity is asked for), so a large read drains the bucket for what follows.

3. Latency: what each request would take on AWS, summed per thread (`modelled_seconds()`): DynamoDB answers
   single-item and small batch requests in single-digit milliseconds; the figures below are assumptions of
   that order (not measurements), plus the commit time of transactions. A caller's modelled time is its own
   CPU time plus these: independent of how busy the machine running DynamoDB Local is.

Not modelled: adaptive capacity splitting hot partitions (on AWS a busy key range is split within minutes; a
single partition key value stays capped), table-level on-demand limits (40,000 units/s by default, far above
one board), network latency beyond DynamoDB Local's own.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from botocore.awsrequest import AWSResponse

from bench.metering import item_size
from cdk_leaderboard_lambda.shared import schema

# Assumed service latency per request (ms), and per item of batch and transaction requests.
LATENCY_MS = {"GetItem": 4.0, "Query": 6.0, "PutItem": 6.0, "UpdateItem": 6.0, "DeleteItem": 6.0}
LATENCY_MS |= {"BatchGetItem": 6.0, "BatchWriteItem": 8.0, "TransactWriteItems": 10.0}
LATENCY_PER_ITEM_MS = {"BatchGetItem": 0.1, "BatchWriteItem": 0.2, "TransactWriteItems": 0.5}
WRITE_UNITS_PER_KEY = 1000.0
READ_UNITS_PER_KEY = 3000.0
_INDEX = "rank-index"


@dataclass
class ModelStats:
    transactions: int = 0
    transactions_cancelled: int = 0  # by a conflict with another transaction
    writes_conflicted: int = 0  # single-item writes refused: their item was in a transaction
    throttled: int = 0  # requests refused for a partition key's throughput (boto3 retries them)
    hottest: dict[str, float] = field(default_factory=dict)  # write units per key value, for the report


class _Bucket:
    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.tokens = rate
        self.at = time.monotonic()

    def take(self, units: float, now: float) -> bool:
        self.tokens = min(self.rate, self.tokens + (now - self.at) * self.rate)
        self.at = now
        # A request larger than a second's worth waits for a full bucket.
        if self.tokens < units and self.tokens < self.rate:
            return False
        self.tokens -= units
        return True

    def charge(self, units: float, now: float) -> None:
        self.tokens = min(self.rate, self.tokens + (now - self.at) * self.rate) - units
        self.at = now


class AwsModel:
    def __init__(self, commit_ms: float = 20.0, throughput: bool = True) -> None:
        self.commit_seconds = commit_ms / 1000
        self.throughput = throughput
        self.stats = ModelStats()
        self._lock = threading.Lock()
        self._held: dict[tuple, int] = {}  # item key -> transactions holding it (one, or a cancelled racer's 0)
        self._buckets: dict[tuple[str, str, str], _Bucket] = {}
        self._written: dict[str, float] = {}
        self._modelled = threading.local()

    # --- wiring ---------------------------------------------------------------------------------

    def attach(self, client) -> None:
        events = client.meta.events
        uid = f"aws-model-{id(self)}"
        events.register("provide-client-params.dynamodb.*", self._ask_capacity, unique_id=uid + "-params")
        events.register("before-call.dynamodb.*", self._before_call, unique_id=uid + "-call")
        events.register("before-send.dynamodb.*", self._before_send, unique_id=uid + "-send")
        events.register("after-call.dynamodb.*", self._after_call, unique_id=uid + "-after")

    def detach(self, client) -> None:
        uid = f"aws-model-{id(self)}"
        for event, suffix in (
            ("provide-client-params", "-params"),
            ("before-call", "-call"),
            ("before-send", "-send"),
            ("after-call", "-after"),
        ):
            client.meta.events.unregister(f"{event}.dynamodb.*", unique_id=uid + suffix)

    @staticmethod
    def _ask_capacity(params, model, **kwargs):
        if model.name in ("GetItem", "BatchGetItem", "Query"):
            params.setdefault("ReturnConsumedCapacity", "INDEXES")

    # --- 1. transaction conflicts ---------------------------------------------------------------

    def _before_call(self, model, params, context, **kwargs):
        op = model.name
        body = _body(params.get("body"))
        context["aws_model_items"] = len(body.get("TransactItems", [])) + sum(
            len(r) if isinstance(r, list) else len(r.get("Keys", [])) for r in body.get("RequestItems", {}).values()
        )
        if op in ("GetItem", "BatchGetItem", "Query"):
            context["aws_model_read_keys"] = _read_keys(op, body)
        if op == "TransactWriteItems":
            items = [_action_key(a) for a in body.get("TransactItems", [])]
            with self._lock:
                self.stats.transactions += 1
                busy = [key in self._held for key in items]
                if any(busy):
                    self.stats.transactions_cancelled += 1
                    reasons = [
                        {"Code": "TransactionConflict", "Message": "Transaction is ongoing for the item"}
                        if b
                        else {"Code": "None"}
                        for b in busy
                    ]
                    return _error_response(
                        "TransactionCanceledException",
                        "Transaction cancelled, please refer cancellation reasons for specific reasons "
                        f"[{', '.join(r['Code'] for r in reasons)}]",
                        CancellationReasons=reasons,
                    )
                for key in items:
                    self._held[key] = 1
            context["aws_model_held"] = items
        elif op in ("PutItem", "UpdateItem", "DeleteItem"):
            key = _item_key(body["TableName"], body.get("Key") or _key_of(body.get("Item", {})))
            with self._lock:
                if key in self._held:
                    self.stats.writes_conflicted += 1
                    return _error_response("TransactionConflictException", "Transaction is ongoing for the item")
        return None

    def modelled_seconds(self, reset: bool = False) -> float:
        """The modelled DynamoDB time of the calling thread's requests so far (see the module doc)."""
        seconds = getattr(self._modelled, "seconds", 0.0)
        if reset:
            self._modelled.seconds = 0.0
        return seconds

    def _after_call(self, http_response, parsed, model, context, **kwargs):
        items = context.get("aws_model_items", 0)
        ms = LATENCY_MS.get(model.name, 6.0) + LATENCY_PER_ITEM_MS.get(model.name, 0.0) * items
        if model.name == "TransactWriteItems":
            ms += self.commit_seconds * 1000
        self._modelled.seconds = getattr(self._modelled, "seconds", 0.0) + ms / 1000
        held = context.get("aws_model_held")
        if held:
            time.sleep(self.commit_seconds)  # the commit: the caller waits for it, the items stay held
            with self._lock:
                for key in held:
                    self._held.pop(key, None)
        if self.throughput and model.name in ("GetItem", "BatchGetItem", "Query"):
            self._charge_reads(parsed or {}, context)

    # --- 2. throughput per partition key value --------------------------------------------------

    def _before_send(self, request, **kwargs):
        if not self.throughput:
            return None
        target = request.headers.get("X-Amz-Target", b"")
        op = (target.decode() if isinstance(target, bytes) else target).rsplit(".", 1)[-1]
        body = _body(request.body)
        units = _write_units(op, body)
        if op in ("GetItem", "BatchGetItem", "Query"):
            keys = _read_keys(op, body)
            units = {k: 0.0 for k in keys}  # charged after the call; refused now only if already overdrawn
        if not units:
            return None
        now = time.monotonic()
        with self._lock:
            for k, u in units.items():
                rate = READ_UNITS_PER_KEY if op in ("GetItem", "BatchGetItem", "Query") else WRITE_UNITS_PER_KEY
                bucket = self._buckets.setdefault((k[0], k[1], "r" if u == 0.0 else "w"), _Bucket(rate))
                if not bucket.take(max(u, 0.001), now):
                    self.stats.throttled += 1
                    return _http_error(
                        "ProvisionedThroughputExceededException",
                        "The level of configured provisioned throughput for the table was exceeded.",
                    )
            for k, u in units.items():
                if u:
                    self._written[f"{k[0]}:{k[1]}"] = self._written.get(f"{k[0]}:{k[1]}", 0.0) + u
        return None

    def _charge_reads(self, parsed: dict, context: dict) -> None:
        """What the response says the read consumed, spread over the key values it read."""
        keys = context.get("aws_model_read_keys") or []
        consumed = parsed.get("ConsumedCapacity")
        total = sum(
            float(c.get("CapacityUnits", 0.0))
            for c in (consumed if isinstance(consumed, list) else [consumed] if consumed else [])
        )
        if not keys or not total:
            return
        now = time.monotonic()
        with self._lock:
            for key in keys:
                self._buckets.setdefault((key[0], key[1], "r"), _Bucket(READ_UNITS_PER_KEY)).charge(
                    total / len(keys), now
                )

    def hottest_keys(self, n: int = 5) -> list[tuple[str, float]]:
        with self._lock:
            return sorted(self._written.items(), key=lambda kv: -kv[1])[:n]


# --- request parsing ------------------------------------------------------------------------------


def _body(raw: Any) -> dict:
    if isinstance(raw, dict):
        return raw
    try:
        return json.loads(raw or b"{}")
    except (TypeError, ValueError):
        return {}


def _key_of(item: dict) -> dict:
    return {k: item[k] for k in (schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY) if k in item}


def _item_key(table: str, key: dict) -> tuple:
    return (table, *sorted((k, json.dumps(v, sort_keys=True)) for k, v in key.items()))


def _action_key(action: dict) -> tuple:
    ((kind, a),) = action.items()
    return _item_key(a["TableName"], a.get("Key") or _key_of(a.get("Item", {})))


def _partition_value(key: dict) -> str | None:
    value = key.get(schema.SCORES_PARTITION_KEY)
    return next(iter(value.values())) if value else None


def _sets_index_key(update: dict) -> bool:
    return schema.RANK_INDEX_SORT_KEY in update.get("UpdateExpression", "").split("REMOVE")[0]


def _write_units(op: str, body: dict) -> dict[tuple[str, str], float]:
    """Write units per (table or index, partition key value) one request needs."""
    units: dict[tuple[str, str], float] = {}

    def add(space: str, value: str | None, u: float) -> None:
        if value is not None:
            units[(space, value)] = units.get((space, value), 0.0) + u

    def one(kind: str, a: dict, per_kb: float) -> None:
        key = a.get("Key") or _key_of(a.get("Item", {}))
        size = item_size(a.get("Item", {})) or item_size(key) + sum(
            len(json.dumps(v)) for v in a.get("ExpressionAttributeValues", {}).values()
        )
        add(a.get("TableName", "table"), _partition_value(key), per_kb * max(1, math.ceil(size / 1024)))
        sort_key = key.get(schema.SCORES_SORT_KEY, {}).get("S")
        if kind == "Put" and schema.RANK_INDEX_SORT_KEY in a.get("Item", {}):
            add(_INDEX, sort_key, 1.0)
        elif kind == "Update" and _sets_index_key(a):
            add(_INDEX, sort_key, 1.0 if "attribute_not_exists" in a.get("ConditionExpression", "") else 2.0)
        elif kind == "Delete":
            add(_INDEX, sort_key, 1.0)  # at most one index entry goes

    if op in ("PutItem", "UpdateItem", "DeleteItem"):
        one({"PutItem": "Put", "UpdateItem": "Update", "DeleteItem": "Delete"}[op], body, 1.0)
    elif op == "TransactWriteItems":
        for action in body.get("TransactItems", []):
            ((kind, a),) = action.items()
            if kind != "ConditionCheck":
                one(kind, a, 2.0)
    elif op == "BatchWriteItem":
        for table, requests in body.get("RequestItems", {}).items():
            for r in requests:
                if "PutRequest" in r:
                    one("Put", {"TableName": table, **r["PutRequest"]}, 1.0)
                else:
                    one("Delete", {"TableName": table, **r["DeleteRequest"]}, 1.0)
    return units


_EQ = re.compile(r"([#\w]+)\s*=\s*(:\w+)")


def _read_keys(op: str, body: dict) -> list[tuple[str, str]]:
    if op == "GetItem":
        return [(body["TableName"], _partition_value(body["Key"]))]
    if op == "BatchGetItem":
        return [(t, _partition_value(k)) for t, r in body["RequestItems"].items() for k in r["Keys"]]
    values = body.get("ExpressionAttributeValues", {})
    for _name, placeholder in _EQ.findall(body.get("KeyConditionExpression", "")):
        value = values.get(placeholder, {})
        space = _INDEX if body.get("IndexName") else body.get("TableName", "table")
        return [(space, next(iter(value.values())))] if value else []
    return []


def _error_response(code: str, message: str, **extra: Any):
    """A (http response, parsed) pair that botocore raises as the named error (from a before-call hook)."""
    parsed = {"Error": {"Code": code, "Message": message}, "ResponseMetadata": {"HTTPStatusCode": 400}, **extra}
    return AWSResponse("https://dynamodb.model", 400, {}, None), parsed


def _http_error(code: str, message: str) -> AWSResponse:
    """A raw HTTP 400 that botocore parses (and retries, for throttling) like the real service's."""
    body = json.dumps({"__type": f"com.amazonaws.dynamodb.v20120810#{code}", "message": message}).encode()
    return AWSResponse("https://dynamodb.model", 400, {"Content-Type": "application/x-amz-json-1.0"}, _Raw(body))


class _Raw:
    def __init__(self, body: bytes) -> None:
        self.body = body

    def stream(self, **kwargs):
        yield self.body

    def read(self, *args) -> bytes:
        return self.body
