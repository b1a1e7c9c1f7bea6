"""Shared DynamoDB plumbing: the client, keys, paging, batches and transactions; item (de)serialization is
shared/attribute_values.py's."""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import boto3
from botocore.config import Config

from ..shared import schema
from ..shared.attribute_values import from_item, to_item

BATCH_WRITE_SIZE = 25  # BatchWriteItem's limit
BATCH_GET_SIZE = 100  # BatchGetItem's limit


def new_client(**client_args: Any) -> Any:
    """A DynamoDB client (the composition root makes one per runtime; the local stack gives DynamoDB Local's
    endpoint and fake credentials in `client_args`)."""
    return boto3.client("dynamodb", config=Config(retries={"mode": "standard", "max_attempts": 5}), **client_args)


def key(partition: str, sort: str) -> dict:
    return to_item({schema.SCORES_PARTITION_KEY: partition, schema.SCORES_SORT_KEY: sort})


class Cancelled(Exception):
    """A transaction was cancelled: a condition failed or another transaction held one of its items."""

    def __init__(self, reasons: list[str]):
        super().__init__(", ".join(reasons))
        self.reasons = reasons  # one code per action, "None" for the ones that were fine

    @property
    def conflict(self) -> bool:
        """Cancelled only because another transaction (or write) was in progress on one of its items
        (TransactionConflict), no condition failing: the same transaction may simply be tried again."""
        return "TransactionConflict" in self.reasons and "ConditionalCheckFailed" not in self.reasons


def transact(actions: list[dict], *, on: Any) -> None:
    """One TransactWriteItems on client `on` (the store's own)."""
    db = on
    try:
        db.transact_write_items(TransactItems=actions)
    except db.exceptions.TransactionCanceledException as err:
        reasons = [r.get("Code", "None") for r in err.response.get("CancellationReasons", [])]
        raise Cancelled(reasons or ["Unknown"]) from err


def query_pages(on: Any, **kwargs: Any) -> Iterator[dict]:
    """Every page of a Query on client `on` (the store's own)."""
    db = on
    while True:
        page = db.query(**kwargs)
        yield page
        if "LastEvaluatedKey" not in page:
            return
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]


def query_items(on: Any, **kwargs: Any) -> list[dict[str, Any]]:
    return [from_item(i) for page in query_pages(on, **kwargs) for i in page.get("Items", [])]


def page_after(
    partition: str, after: str | None, limit: int, *, on: tuple[Any, str]
) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` items of one partition in sort-key order after sort key `after` (None: from the first), and
    whether more follow: one strongly consistent Query of limit + 1 items. `on` as for batch_get."""
    db, table = on
    condition = f"{schema.SCORES_PARTITION_KEY} = :p"
    values: dict[str, Any] = {":p": partition}
    if after is not None:
        condition += f" AND {schema.SCORES_SORT_KEY} > :after"
        values[":after"] = after
    found = db.query(
        TableName=table,
        KeyConditionExpression=condition,
        ExpressionAttributeValues=to_item(values),
        Limit=limit + 1,
        ConsistentRead=True,
    )
    items = [from_item(i) for i in found.get("Items", [])]
    return items[:limit], len(items) > limit


def batch_get(keys: list[dict], consistent: bool = True, *, on: tuple[Any, str]) -> list[dict[str, Any]]:
    """Items of a scores-keyed table by key (absent ones left out), in chunks of 100, retrying unprocessed keys.
    `on`: the (client, table) of the store asking."""
    db, table = on
    found: list[dict[str, Any]] = []
    for start in range(0, len(keys), BATCH_GET_SIZE):
        pending = {table: {"Keys": keys[start : start + BATCH_GET_SIZE], "ConsistentRead": consistent}}
        for attempt in range(8):
            resp = db.batch_get_item(RequestItems=pending)
            found += [from_item(i) for i in resp["Responses"].get(table, [])]
            pending = resp.get("UnprocessedKeys") or {}
            if not pending:
                break
            time.sleep(min(0.05 * 2**attempt, 1.0))  # throttled: back off
        else:
            raise RuntimeError("batch read left unprocessed keys after retries")
    return found


def keys_in_partition(partition: str, on: tuple[Any, str]) -> list[tuple[str, str]]:
    """The keys of every item under one partition key of a scores-keyed table: a Query of the keys only."""
    db, table = on
    return [
        (partition, item[schema.SCORES_SORT_KEY])
        for item in query_items(
            on=db,
            TableName=table,
            KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
            ExpressionAttributeValues=to_item({":p": partition}),
            ProjectionExpression=f"{schema.SCORES_PARTITION_KEY}, {schema.SCORES_SORT_KEY}",
        )
    ]


def delete_keys(pairs: Iterable[tuple[str, str]], on: tuple[Any, str]) -> int:
    """Delete items by (partition key, sort key): BatchWriteItem, 25 keys a request; how many."""
    return batch_write(({"DeleteRequest": {"Key": key(p, s)}} for p, s in pairs), on=on)


def batch_write(requests: Iterable[dict], writers: int = 1, *, on: tuple[Any, str]) -> int:
    """PutRequest/DeleteRequest items in chunks of 25, retrying unprocessed ones; returns how many. With `writers`
    above 1, that many chunks are in flight at once (bulk loads: the round trips, not the units, take the time).
    `on`: the (client, table) of the store asking."""
    db, table = on
    if writers <= 1:
        written = 0
        batch: list[dict] = []
        for request in requests:
            batch.append(request)
            if len(batch) == BATCH_WRITE_SIZE:
                written += _write_batch(db, table, batch)
                batch = []
        if batch:
            written += _write_batch(db, table, batch)
        return written
    items = list(requests)
    batches = [items[i : i + BATCH_WRITE_SIZE] for i in range(0, len(items), BATCH_WRITE_SIZE)]
    with ThreadPoolExecutor(writers) as pool:  # the workers get the client and table through the closure
        return sum(pool.map(lambda batch: _write_batch(db, table, batch), batches))


def _write_batch(db: Any, table: str, requests: list[dict]) -> int:
    pending = {table: requests}
    for attempt in range(8):
        resp = db.batch_write_item(RequestItems=pending)
        pending = resp.get("UnprocessedItems") or {}
        if not pending:
            return len(requests)
        time.sleep(min(0.05 * 2**attempt, 1.0))  # throttled: back off
    raise RuntimeError("batch write left unprocessed items after retries")
