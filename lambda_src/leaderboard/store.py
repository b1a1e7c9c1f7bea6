"""All DynamoDB access. Nothing else in lambda_src imports boto3."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator

import boto3
from . import schema
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.config import Config

from .settings import get_settings

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()
BATCH_SIZE = 25  # BatchWriteItem's limit
BOARDS_PARTITION = "#boards"  # board configs share the scores table; '#' never starts a player id
_INT_FIELDS = {"score", "reached_at", "expires_at", "min_score", "max_score"}


@lru_cache(maxsize=1)
def client():
    """Created lazily so tests can start moto (or point AWS_ENDPOINT_URL_DYNAMODB) before the first call."""
    return boto3.client("dynamodb", config=Config(retries={"mode": "standard", "max_attempts": 5}))


def _to_item(values: dict[str, Any]) -> dict:
    return {k: _serializer.serialize(v) for k, v in values.items() if v is not None}


def _from_item(item: dict) -> dict[str, Any]:
    out = {k: _deserializer.deserialize(v) for k, v in item.items()}
    return {k: int(v) if k in _INT_FIELDS else v for k, v in out.items()}


def _key(player_id: str, leaderboard_id: str) -> dict:
    return _to_item({schema.SCORES_PARTITION_KEY: player_id, schema.SCORES_SORT_KEY: leaderboard_id})


@dataclass(frozen=True)
class Entry:
    """What one write stores for one (player, board period)."""

    leaderboard_id: str
    player_id: str
    player_name: str
    score: int
    rank_key: str
    reached_at: int  # ms; ties go to the earlier
    expires_at: int | None
    metadata: str | None  # JSON text, as given

    def attributes(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "rank_key": self.rank_key,
            "player_name": self.player_name,
            "reached_at": self.reached_at,
            "expires_at": self.expires_at,
            "metadata": self.metadata,
        }

    def item(self) -> dict[str, Any]:
        return {
            schema.SCORES_PARTITION_KEY: self.player_id,
            schema.SCORES_SORT_KEY: self.leaderboard_id,
            **self.attributes(),
        }


def _update_args(entry: Entry) -> dict[str, Any]:
    values = {f":{k}": v for k, v in entry.attributes().items() if v is not None}
    sets = [f"{k} = :{k}" for k, v in entry.attributes().items() if v is not None]
    return {
        "TableName": get_settings().scores_table,
        "Key": _key(entry.player_id, entry.leaderboard_id),
        "UpdateExpression": "SET " + ", ".join(sets),
        "ExpressionAttributeValues": _to_item(values),
    }


class Conflict(Exception):
    """Another writer changed an entry between our read and our write."""


# --- rank counters (see ranking.py) ---------------------------------------------------------

# Counter items: player_id = prefix + index partition, leaderboard_id = the range's first key.
# Level 0 ("buckets") counts the entries of a key range; level 1 ("segments") those of a run of buckets.
COUNTER_PREFIXES = ("#buckets#", "#segments#")
HISTORY_PREFIX = "#history#"  # replaced versions of entries: player_id = prefix + partition, leaderboard_id = old key


def counters(partition: str, level: int, consistent: bool = False, lo: str | None = None, hi: str | None = None):
    """The counters of one level of an index partition, in key order: all, or those starting in [lo, hi]."""
    from .ranking import Bucket

    condition, values = "player_id = :p", {":p": COUNTER_PREFIXES[level] + partition}
    if lo is not None:
        condition += " AND leaderboard_id BETWEEN :lo AND :hi"
        values.update({":lo": lo, ":hi": hi})
    items = [
        _from_item(i)
        for p in _pages(
            TableName=get_settings().scores_table,
            KeyConditionExpression=condition,
            ExpressionAttributeValues=_to_item(values),
            ConsistentRead=consistent,
        )
        for i in p.get("Items", [])
    ]
    return [Bucket(i["leaderboard_id"], i["hi"], int(i["entries"]), int(i["rev"])) for i in items]


def count_range(partition: str, lo: str, hi_inclusive: str) -> int:
    """COUNT of index entries with lo <= rank_key <= hi_inclusive (bounded by one bucket)."""
    return sum(
        p["Count"]
        for p in _pages(
            TableName=get_settings().scores_table,
            IndexName=get_settings().rank_index,
            KeyConditionExpression="leaderboard_id = :b AND rank_key BETWEEN :lo AND :hi",
            ExpressionAttributeValues=_to_item({":b": partition, ":lo": lo, ":hi": hi_inclusive}),
            Select="COUNT",
        )
    )


def _counter_update(partition: str, level: int, counter, delta: int) -> dict:
    """A counter change inside a transaction; it fails if the range was split since it was read."""
    return {
        "Update": {
            "TableName": get_settings().scores_table,
            "Key": _key(COUNTER_PREFIXES[level] + partition, counter.lo),
            "UpdateExpression": "ADD entries :d, rev :one",
            "ConditionExpression": "hi = :hi",
            "ExpressionAttributeValues": _to_item({":d": delta, ":one": 1, ":hi": counter.hi}),
        }
    }


def _counter_item(partition: str, level: int, lo: str, hi: str, entries: int) -> dict:
    return {
        "player_id": COUNTER_PREFIXES[level] + partition,
        "leaderboard_id": lo,
        "hi": hi,
        "entries": entries,
        "rev": 1,
    }


def _first_counter(partition: str, level: int, lo: str, hi: str) -> dict:
    return {
        "Put": {
            "TableName": get_settings().scores_table,
            "Item": _to_item(_counter_item(partition, level, lo, hi, 1)),
            "ConditionExpression": "attribute_not_exists(leaderboard_id)",
        }
    }


@dataclass(frozen=True)
class Change:
    """One entry's new state, the stored score it replaces (None: new entry), and its counters per level
    before (None: new entry) and after (None: the partition has no counter yet)."""

    entry: Entry
    previous_score: int | None
    old: tuple | None  # (bucket, segment) holding the old key
    new: tuple | None  # (bucket, segment) holding the new key
    replaced: dict | None = None  # the stored entry this change replaces (kept a while for consistent pages)


def _history_put(replaced: dict, replaced_at: int, keep_until: int) -> dict:
    """The replaced version of an entry, so that pages walked from an earlier moment still see it there."""
    return {
        "Put": {
            "TableName": get_settings().scores_table,
            "Item": _to_item(
                {
                    "player_id": HISTORY_PREFIX + replaced["leaderboard_id"],
                    "leaderboard_id": replaced["rank_key"],
                    "player": replaced["player_id"],
                    "score": replaced["score"],
                    "player_name": replaced.get("player_name"),
                    "metadata": replaced.get("metadata"),
                    "valid_from": replaced["reached_at"],
                    "valid_to": replaced_at,
                    "expires_at": keep_until,
                }
            ),
        }
    }


def apply_changes(changes: list[Change], first_lo: str, last_hi: str, history_seconds: int = 0) -> None:
    """Entries and their counters in ONE transaction, each entry only if unchanged since read.

    Raises Conflict when another writer got there first (or a range split): the caller re-reads and retries.
    """
    items = []
    for ch in changes:
        args = _update_args(ch.entry)
        if ch.previous_score is None:
            args["ConditionExpression"] = "attribute_not_exists(score)"
        else:
            args["ConditionExpression"] = "score = :old"
            args["ExpressionAttributeValues"][":old"] = _serializer.serialize(ch.previous_score)
        items.append({"Update": args})
        if ch.replaced is not None and history_seconds:
            replaced_at = ch.entry.reached_at  # the old version was live until the new one was written
            items.append(_history_put(ch.replaced, replaced_at, int(time.time()) + history_seconds + 3600))
        part = ch.entry.leaderboard_id
        for level in (0, 1):
            old = ch.old[level] if ch.old else None
            new = ch.new[level] if ch.new else None
            if new is None:
                items.append(_first_counter(part, level, first_lo, last_hi))
            elif old is not None and old.lo == new.lo:
                items.append(_counter_update(part, level, new, 0))  # same range: same count, but a new rev
            else:
                if old is not None:
                    items.append(_counter_update(part, level, old, -1))
                items.append(_counter_update(part, level, new, 1))
    try:
        client().transact_write_items(TransactItems=items)
    except client().exceptions.TransactionCanceledException as err:
        raise Conflict() from err


def insert_counted(partition: str, entries: list[Entry], deltas: list, first_lo: str, last_hi: str) -> None:
    """New entries (each only if absent) and their counters' increments in ONE transaction.

    deltas: [((level, lo), (counter, n))]; none at all means the partition has no counters yet,
    and the first bucket and segment are created holding all the entries.
    """
    items = [
        {
            "Put": {
                "TableName": get_settings().scores_table,
                "Item": _to_item(e.item()),
                "ConditionExpression": "attribute_not_exists(score)",
            }
        }
        for e in entries
    ]
    if deltas:
        items += [_counter_update(partition, level, counter, n) for (level, _), (counter, n) in deltas]
    else:
        for level in (0, 1):
            first = _first_counter(partition, level, first_lo, last_hi)
            first["Put"]["Item"]["entries"] = _serializer.serialize(len(entries))
            items.append(first)
    try:
        client().transact_write_items(TransactItems=items)
    except client().exceptions.TransactionCanceledException as err:
        reasons = [r.get("Code") for r in err.response.get("CancellationReasons", [])]
        if any(code == "ConditionalCheckFailed" for code in reasons[: len(entries)]):
            raise ValueError("bulk loads insert new entries only: one of them exists already") from err
        raise Conflict() from err


def split_counter(partition: str, level: int, counter, mid: str, left: int) -> bool:
    """Cut [lo, hi) at mid: the lo item keeps `left` entries, a new item [mid, hi) the rest.

    Only if nothing in the range changed since `counter` was read (its rev); False otherwise.
    """
    table = get_settings().scores_table
    try:
        client().transact_write_items(
            TransactItems=[
                {
                    "Update": {
                        "TableName": table,
                        "Key": _key(COUNTER_PREFIXES[level] + partition, counter.lo),
                        "UpdateExpression": "SET hi = :mid, entries = :left ADD rev :one",
                        "ConditionExpression": "rev = :rev AND hi = :hi",
                        "ExpressionAttributeValues": _to_item(
                            {":mid": mid, ":left": left, ":one": 1, ":rev": counter.rev, ":hi": counter.hi}
                        ),
                    }
                },
                {
                    "Put": {
                        "TableName": table,
                        "Item": _to_item(_counter_item(partition, level, mid, counter.hi, counter.count - left)),
                        "ConditionExpression": "attribute_not_exists(leaderboard_id)",
                    }
                },
            ]
        )
        return True
    except client().exceptions.TransactionCanceledException:
        return False


def put_counters(partition: str, level: int, bounds: list[tuple[str, str, int]]) -> None:
    """Replace one level of a partition's counters wholesale (bulk loads and purges: no concurrent writers)."""
    old = [c.lo for c in counters(partition, level, consistent=True)]
    _batch({"DeleteRequest": {"Key": _key(COUNTER_PREFIXES[level] + partition, lo)}} for lo in old)
    _batch({"PutRequest": {"Item": _to_item(_counter_item(partition, level, *b))}} for b in bounds)


def index_keys(partition: str) -> Iterator[str]:
    """Every rank key of an index partition, in order (for checks of the counters against the index)."""
    s = get_settings()
    for p in _pages(
        TableName=s.scores_table,
        IndexName=s.rank_index,
        KeyConditionExpression="leaderboard_id = :b",
        ExpressionAttributeValues=_to_item({":b": partition}),
        ProjectionExpression="rank_key",
    ):
        for i in p.get("Items", []):
            yield i["rank_key"]["S"]


def get_entries(player_id: str, partitions: list[str]) -> dict[str, dict]:
    """Strongly consistent entries of one player in some index partitions (absent ones left out)."""
    table = get_settings().scores_table
    resp = client().batch_get_item(
        RequestItems={table: {"Keys": [_key(player_id, p) for p in partitions], "ConsistentRead": True}}
    )
    return {i["leaderboard_id"]: i for i in (_from_item(x) for x in resp["Responses"][table])}


# --- reads of the rank index -------------------------------------------------------------


def _index_query(leaderboard_id: str, condition: str = "", values: dict | None = None, **kwargs: Any) -> dict:
    s = get_settings()
    return client().query(
        TableName=s.scores_table,
        IndexName=s.rank_index,
        KeyConditionExpression="leaderboard_id = :b" + (f" AND {condition}" if condition else ""),
        ExpressionAttributeValues=_to_item({":b": leaderboard_id, **(values or {})}),
        **kwargs,
    )


def page(
    partition: str,
    limit: int,
    after: str | None = None,
    before: str | None = None,
    between: tuple[str, str] | None = None,
    as_of: int | None = None,
    history: bool = False,
) -> list[dict]:
    """Up to `limit` entries of an index partition in rank order, after a rank key and/or within a key
    range, or the nearest `limit` before a rank key (closest first).

    as_of (ms): only entries as they stood then: live entries written no later, or (history=True) the
    replaced versions that were live at that moment. Queries only; nothing is sorted here.
    """
    s = get_settings()
    kwargs: dict[str, Any] = {"TableName": s.scores_table, "ExpressionAttributeNames": {"#k": "rank_key"}}
    values: dict[str, Any] = {":b": partition}
    if history:
        kwargs["ExpressionAttributeNames"] = {"#k": "leaderboard_id", "#p": "player_id"}
        values[":b"] = HISTORY_PREFIX + partition
        kwargs["FilterExpression"] = "valid_from <= :t AND valid_to > :t"
        partition_condition = "#p = :b"
    else:
        kwargs["IndexName"] = s.rank_index
        partition_condition = "leaderboard_id = :b"
        if as_of is not None:
            kwargs["FilterExpression"] = "reached_at <= :t"
    if as_of is not None:
        values[":t"] = as_of
    if between is not None:
        low = max(between[0], after + "\x00") if after is not None else between[0]  # keys > after
        condition = " AND #k BETWEEN :lo AND :hi"
        values.update({":lo": low, ":hi": between[1]})
    elif after is not None:
        condition, values[":k"] = " AND #k > :k", after
    elif before is not None:
        condition, values[":k"] = " AND #k < :k", before
        kwargs["ScanIndexForward"] = False
    else:
        condition = ""
        del kwargs["ExpressionAttributeNames"]["#k"]
    kwargs["KeyConditionExpression"] = partition_condition + condition
    kwargs["ExpressionAttributeValues"] = _to_item(values)
    if not kwargs["ExpressionAttributeNames"]:
        del kwargs["ExpressionAttributeNames"]
    items: list[dict] = []
    while len(items) < limit:
        resp = client().query(Limit=limit - len(items), **kwargs)
        items += [_from_item(i) for i in resp.get("Items", [])]
        if "LastEvaluatedKey" not in resp:
            break
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    if history:  # present a replaced version like the index entry it was
        items = [{**i, "player_id": i["player"], "rank_key": i["leaderboard_id"]} for i in items]
    return items


def player_entries(player_id: str) -> list[dict]:
    """Every board entry of one player (a Query on the table's partition key)."""
    s = get_settings()
    return [
        _from_item(i)
        for p in _pages(
            TableName=s.scores_table,
            KeyConditionExpression="player_id = :p",
            ExpressionAttributeValues=_to_item({":p": player_id}),
        )
        for i in p.get("Items", [])
    ]


def player_entry(player_id: str, leaderboard_id: str) -> dict | None:
    resp = client().get_item(TableName=get_settings().scores_table, Key=_key(player_id, leaderboard_id))
    return _from_item(resp["Item"]) if "Item" in resp else None


# --- batched writes -----------------------------------------------------------------------


def delete_board_entries(leaderboard_id: str, budget: int) -> tuple[int, bool]:
    """Delete up to `budget` entries of one board period; returns (deleted, done)."""
    deleted = 0
    while deleted < budget:
        resp = _index_query(leaderboard_id, Limit=min(BATCH_SIZE * 4, budget - deleted))
        keys = [_key(i["player_id"]["S"], leaderboard_id) for i in resp.get("Items", [])]
        if not keys:
            return deleted, True
        deleted += _batch({"DeleteRequest": {"Key": k}} for k in keys)
    return deleted, False


def _batch(requests: Iterable[dict]) -> int:
    table = get_settings().scores_table
    written = 0
    batch: list[dict] = []
    for request in requests:
        batch.append(request)
        if len(batch) == BATCH_SIZE:
            written += _write_batch(table, batch)
            batch = []
    if batch:
        written += _write_batch(table, batch)
    return written


def _write_batch(table: str, requests: list[dict]) -> int:
    pending = {table: requests}
    for attempt in range(8):
        resp = client().batch_write_item(RequestItems=pending)
        pending = resp.get("UnprocessedItems") or {}
        if not pending:
            return len(requests)
        time.sleep(min(0.05 * 2**attempt, 1.0))  # back off on throttling
    raise RuntimeError("batch write left unprocessed items after retries")


# --- board configs ------------------------------------------------------------------------


def put_board(config: dict[str, Any]) -> bool:
    """Create a board config; False if one with that id exists."""
    item = {"player_id": BOARDS_PARTITION, "leaderboard_id": config["board_id"], **config}
    try:
        client().put_item(
            TableName=get_settings().scores_table,
            Item=_to_item(item),
            ConditionExpression="attribute_not_exists(leaderboard_id)",
        )
        return True
    except client().exceptions.ConditionalCheckFailedException:
        return False


def get_board(board_id: str) -> dict | None:
    return player_entry(BOARDS_PARTITION, board_id)


def list_boards() -> list[dict]:
    return player_entries(BOARDS_PARTITION)


def put_board_status(board_id: str, status: str) -> None:
    client().update_item(
        TableName=get_settings().scores_table,
        Key=_key(BOARDS_PARTITION, board_id),
        UpdateExpression="SET #s = :s",
        ExpressionAttributeNames={"#s": "status"},  # a DynamoDB reserved word
        ExpressionAttributeValues=_to_item({":s": status}),
    )


def delete_board(board_id: str) -> bool:
    try:
        client().delete_item(
            TableName=get_settings().scores_table,
            Key=_key(BOARDS_PARTITION, board_id),
            ConditionExpression="attribute_exists(leaderboard_id)",
        )
        return True
    except client().exceptions.ConditionalCheckFailedException:
        return False


# --- snapshots ----------------------------------------------------------------------------


def put_snapshot(snapshot: dict) -> None:
    """Append-only: the condition refuses to overwrite an existing snapshot."""
    client().put_item(
        TableName=get_settings().snapshots_table,
        Item=_to_item(snapshot),
        ConditionExpression="attribute_not_exists(taken_at)",
    )


def list_snapshots(leaderboard_id: str, limit: int) -> list[dict]:
    """A board's snapshots, newest first: a Query on the partition, sort key descending."""
    resp = client().query(
        TableName=get_settings().snapshots_table,
        KeyConditionExpression="leaderboard_id = :b",
        ExpressionAttributeValues=_to_item({":b": leaderboard_id}),
        ScanIndexForward=False,
        Limit=limit,
    )
    return [_from_item(i) for i in resp.get("Items", [])]


def _pages(**kwargs: Any) -> Iterator[dict]:
    while True:
        p = client().query(**kwargs)
        yield p
        if "LastEvaluatedKey" not in p:
            return
        kwargs["ExclusiveStartKey"] = p["LastEvaluatedKey"]
