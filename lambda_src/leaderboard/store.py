"""All DynamoDB access. Nothing else in lambda_src imports boto3."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterable, Iterator

import boto3
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.config import Config

from .settings import get_settings

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()
BATCH_SIZE = 25  # BatchWriteItem's limit


@lru_cache(maxsize=1)
def client():
    """Created lazily so tests can start moto (or point AWS_ENDPOINT_URL_DYNAMODB) before the first call."""
    return boto3.client("dynamodb", config=Config(retries={"mode": "standard", "max_attempts": 5}))


def _to_item(values: dict[str, Any]) -> dict:
    return {k: _serializer.serialize(v) for k, v in values.items() if v is not None}


def _from_item(item: dict) -> dict[str, Any]:
    out = {k: _deserializer.deserialize(v) for k, v in item.items()}
    return {k: int(v) if k in _INT_FIELDS else v for k, v in out.items()}


_INT_FIELDS = {"score", "reached_at", "expires_at"}


@dataclass(frozen=True)
class WriteResult:
    best_score: int
    improved: bool


def put_if_better(
    leaderboard_id: str,
    player_id: str,
    player_name: str,
    score: int,
    rank_key: str,
    reached_at_ms: int,
    expires_at: int | None,
) -> WriteResult:
    """High-score-wins in ONE conditional write: stored only if absent or lower.

    DynamoDB evaluates the condition and the write atomically, so concurrent
    submissions can never lower a stored best (a get-then-put can).
    """
    s = get_settings()
    values = {":s": score, ":k": rank_key, ":n": player_name, ":t": reached_at_ms}
    update = "SET score = :s, rank_key = :k, player_name = :n, reached_at = :t"
    if expires_at is not None:
        values[":e"] = expires_at
        update += ", expires_at = :e"
    try:
        client().update_item(
            TableName=s.scores_table,
            Key=_to_item({"player_id": player_id, "leaderboard_id": leaderboard_id}),
            UpdateExpression=update,
            ConditionExpression="attribute_not_exists(score) OR score < :s",
            ExpressionAttributeValues=_to_item(values),
            ReturnValuesOnConditionCheckFailure="ALL_OLD",
        )
        return WriteResult(score, True)
    except client().exceptions.ConditionalCheckFailedException as err:
        old = err.response.get("Item")
        return WriteResult(int(_from_item(old)["score"]) if old else score, False)


def top(leaderboard_id: str, limit: int) -> list[dict]:
    """The first `limit` entries of a board, best first: one index query, no sorting here."""
    s = get_settings()
    resp = client().query(
        TableName=s.scores_table,
        IndexName=s.rank_index,
        KeyConditionExpression="leaderboard_id = :b",
        ExpressionAttributeValues=_to_item({":b": leaderboard_id}),
        Limit=limit,
    )
    return [_from_item(i) for i in resp.get("Items", [])]


def player_entries(player_id: str) -> list[dict]:
    """Every board entry of one player (a Query on the table's partition key)."""
    s = get_settings()
    return [
        _from_item(i)
        for page in _pages(
            TableName=s.scores_table,
            KeyConditionExpression="player_id = :p",
            ExpressionAttributeValues=_to_item({":p": player_id}),
        )
        for i in page.get("Items", [])
    ]


def count_ahead(leaderboard_id: str, rank_key: str) -> int:
    """Entries that rank before `rank_key` on a board (COUNT pages through all of them)."""
    s = get_settings()
    return sum(
        page["Count"]
        for page in _pages(
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
        page["Count"]
        for page in _pages(
            TableName=s.scores_table,
            IndexName=s.rank_index,
            KeyConditionExpression="leaderboard_id = :b",
            ExpressionAttributeValues=_to_item({":b": leaderboard_id}),
            Select="COUNT",
        )
    )


def put_entries(entries: Iterable[dict]) -> int:
    """Unconditional batched puts (the simulator's fresh players); returns how many were written."""
    table = get_settings().scores_table
    written = 0
    batch: list[dict] = []
    for entry in entries:
        batch.append({"PutRequest": {"Item": _to_item(entry)}})
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
        page = client().query(**kwargs)
        yield page
        if "LastEvaluatedKey" not in page:
            return
        kwargs["ExclusiveStartKey"] = page["LastEvaluatedKey"]
