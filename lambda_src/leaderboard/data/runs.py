"""Runs (runs.py): one item per run in the scores table, under keys.run_key (a keyed hash of the player's id, then
the run id), removed by TTL a day after it ends, or with the player's other items by an erasure.

A run is used by ONE conditional UpdateItem that sets used_at only where it is not set yet and the run is on this
board and not over: two submissions racing with one run token cannot both pass it.
"""

from __future__ import annotations

from typing import Any

from .. import keys, schema
from . import dynamo

USED, ALREADY_USED, MISSING, ENDED = "used", "already-used", "missing", "ended"
KEEP_SECONDS = 24 * 3600  # a run's item outlives the run by this (TTL deletes within days, not at once)


def put(run_id: str, player_id: str, board_id: str, seed: int, started_ms: int, ends_at: int) -> None:
    """Store a new run (never over another: run ids are random, 128 bits)."""
    partition, sort = keys.run_key(player_id, run_id)
    item = {
        schema.SCORES_PARTITION_KEY: partition,
        schema.SCORES_SORT_KEY: sort,
        "board_id": board_id,
        "seed": seed,
        "started_ms": started_ms,
        "ends_at": ends_at,
        schema.TTL_ATTRIBUTE: ends_at + KEEP_SECONDS,
    }
    dynamo.client().put_item(
        TableName=dynamo.scores_table(),
        Item=dynamo.to_item(item),
        ConditionExpression=f"attribute_not_exists({schema.SCORES_PARTITION_KEY})",
    )


def use(run_id: str, player_id: str, board_id: str, now_s: int, used_ms: int) -> tuple[str, dict[str, Any] | None]:
    """Mark the run used by a submission at `used_ms`: (USED, the run), or why not (ALREADY_USED, MISSING, ENDED);
    a run of another board is MISSING (the caller checks the token's claims first, so this is a forgery)."""
    try:
        resp = dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(*keys.run_key(player_id, run_id)),
            UpdateExpression="SET used_ms = :used",
            ConditionExpression="attribute_exists(started_ms) AND attribute_not_exists(used_ms) "
            "AND board_id = :board AND ends_at > :now",
            ExpressionAttributeValues=dynamo.to_item({":used": used_ms, ":board": board_id, ":now": now_s}),
            ReturnValues="ALL_NEW",
        )
        return USED, dynamo.from_item(resp["Attributes"])
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass
    run = get(player_id, run_id)
    if run is None or run.get("board_id") != board_id:
        return MISSING, None
    return (ALREADY_USED if "used_ms" in run else ENDED), run


def release(run_id: str, player_id: str, used_ms: int) -> None:
    """Undo use() of a submission that was then refused (4xx, nothing written): only this use, not a later one."""
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=dynamo.key(*keys.run_key(player_id, run_id)),
            UpdateExpression="REMOVE used_ms",
            ConditionExpression="used_ms = :used",
            ExpressionAttributeValues=dynamo.to_item({":used": used_ms}),
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass


def get(player_id: str, run_id: str) -> dict[str, Any] | None:
    resp = dynamo.client().get_item(
        TableName=dynamo.scores_table(), Key=dynamo.key(*keys.run_key(player_id, run_id)), ConsistentRead=True
    )
    return dynamo.from_item(resp["Item"]) if "Item" in resp else None


def keys_of_player(player_id: str) -> list[tuple[str, str]]:
    """Every run item of the player (an erasure deletes them)."""
    return [
        (keys.runs_partition(player_id), item[schema.SCORES_SORT_KEY])
        for item in dynamo.query_items(
            TableName=dynamo.scores_table(),
            KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
            ExpressionAttributeValues=dynamo.to_item({":p": keys.runs_partition(player_id)}),
            ProjectionExpression=f"{schema.SCORES_SORT_KEY}",
        )
    ]
