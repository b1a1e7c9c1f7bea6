"""All DynamoDB access. Nothing else in lambda_src imports boto3."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator

import boto3
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.config import Config

import schema

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
        return {schema.SCORES_PARTITION_KEY: self.player_id, schema.SCORES_SORT_KEY: self.leaderboard_id,
                **self.attributes()}


@dataclass(frozen=True)
class WriteResult:
    score: int  # what is stored now
    rank_key: str
    changed: bool


def _update_args(entry: Entry) -> dict[str, Any]:
    values = {f":{k}": v for k, v in entry.attributes().items() if v is not None}
    sets = [f"{k} = :{k}" for k, v in entry.attributes().items() if v is not None]
    return {
        "TableName": get_settings().scores_table,
        "Key": _key(entry.player_id, entry.leaderboard_id),
        "UpdateExpression": "SET " + ", ".join(sets),
        "ExpressionAttributeValues": _to_item(values),
    }


def write_if_better(entry: Entry, descending: bool) -> WriteResult:
    """Keep-best in ONE conditional write: stored only if absent or worse.

    DynamoDB evaluates the condition and the write atomically, so concurrent
    submissions can never replace a stored best with a worse score.
    """
    worse = "score < :score" if descending else "score > :score"
    try:
        client().update_item(
            **_update_args(entry),
            ConditionExpression=f"attribute_not_exists(score) OR {worse}",
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        return WriteResult(entry.score, entry.rank_key, True)
    except client().exceptions.ConditionalCheckFailedException as err:
        old = _from_item(err.response.get("Item") or {})
        return WriteResult(old.get("score", entry.score), old.get("rank_key", entry.rank_key), False)


def write_latest(entry: Entry) -> WriteResult:
    """Overwrite: the latest submission is the entry."""
    resp = client().update_item(**_update_args(entry), ReturnValues="ALL_OLD")
    old = _from_item(resp.get("Attributes") or {})
    return WriteResult(entry.score, entry.rank_key, old.get("score") != entry.score)


def current_scores(player_id: str, leaderboard_ids: list[str]) -> dict[str, int]:
    """Strongly consistent stored scores of one player on some boards (absent boards are left out)."""
    resp = client().batch_get_item(
        RequestItems={
            get_settings().scores_table: {
                "Keys": [_key(player_id, lb) for lb in leaderboard_ids],
                "ConsistentRead": True,
                "ProjectionExpression": "leaderboard_id, score",
            }
        }
    )
    items = resp["Responses"][get_settings().scores_table]
    return {i["leaderboard_id"]["S"]: int(i["score"]["N"]) for i in items}


class Conflict(Exception):
    """Another writer changed an entry between our read and our write."""


def write_all_if_unchanged(entries: list[Entry], previous: dict[str, int]) -> None:
    """All entries in one transaction, each only if its stored score is still `previous` (or still absent).

    Increment uses this: read, add, write back atomically across every period, or nothing.
    """
    items = []
    for entry in entries:
        args = _update_args(entry)
        if entry.leaderboard_id in previous:
            args["ConditionExpression"] = "score = :old"
            args["ExpressionAttributeValues"][":old"] = _serializer.serialize(previous[entry.leaderboard_id])
        else:
            args["ConditionExpression"] = "attribute_not_exists(score)"
        items.append({"Update": args})
    try:
        client().transact_write_items(TransactItems=items)
    except client().exceptions.TransactionCanceledException as err:
        raise Conflict() from err


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


def page(leaderboard_id: str, limit: int, after: str | None = None, before: str | None = None,
         between: tuple[str, str] | None = None) -> list[dict]:
    """Up to `limit` entries of a board in rank order, after a rank key and/or within a key range,
    or the nearest `limit` before a rank key (closest first).

    Index queries only (more than one just when a 1 MB page ends early); nothing is sorted here.
    """
    kwargs: dict[str, Any] = {}
    if between is not None:
        low = max(between[0], after + "\x00") if after is not None else between[0]  # keys > after
        condition, values = "rank_key BETWEEN :lo AND :hi", {":lo": low, ":hi": between[1]}
    elif after is not None:
        condition, values = "rank_key > :k", {":k": after}
    elif before is not None:
        condition, values = "rank_key < :k", {":k": before}
        kwargs["ScanIndexForward"] = False
    else:
        condition, values = "", {}
    items: list[dict] = []
    while len(items) < limit:
        resp = _index_query(leaderboard_id, condition, values, Limit=limit - len(items), **kwargs)
        items += [_from_item(i) for i in resp.get("Items", [])]
        if "LastEvaluatedKey" not in resp:
            break
        kwargs["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
    return items


def top(leaderboard_id: str, limit: int) -> list[dict]:
    """The first `limit` entries of a board, best first."""
    return page(leaderboard_id, limit)


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


def count_ahead(leaderboard_id: str, rank_key: str) -> int:
    """Entries that rank before `rank_key` on a board (COUNT pages through all of them)."""
    s = get_settings()
    return sum(
        p["Count"]
        for p in _pages(
            TableName=s.scores_table,
            IndexName=s.rank_index,
            KeyConditionExpression="leaderboard_id = :b AND rank_key < :k",
            ExpressionAttributeValues=_to_item({":b": leaderboard_id, ":k": rank_key}),
            Select="COUNT",
        )
    )


def count_board(leaderboard_id: str) -> int:
    s = get_settings()
    return sum(
        p["Count"]
        for p in _pages(
            TableName=s.scores_table,
            IndexName=s.rank_index,
            KeyConditionExpression="leaderboard_id = :b",
            ExpressionAttributeValues=_to_item({":b": leaderboard_id}),
            Select="COUNT",
        )
    )


# --- batched writes -----------------------------------------------------------------------


def put_entries(entries: Iterable[Entry]) -> int:
    """Unconditional batched puts (the simulator's fresh players); returns how many were written."""
    return _batch(({"PutRequest": {"Item": _to_item(e.item())}} for e in entries))


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
