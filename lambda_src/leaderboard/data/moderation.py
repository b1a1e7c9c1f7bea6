"""Hidden players: one item per (board, player) under the partition keys.hidden_partition(board).

The item is the moderation decision; the entries carry its effect (their rank key moved out of the rank index,
see entries.set_hidden). Kept under the board, so a board's hidden players are one Query and deleting the board
drops them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import keys, schema
from . import dynamo, entries


def item_key(board_id: str, player_id: str) -> tuple[str, str]:
    """The (partition, sort) key of a player's item, to read it along with entries in one request."""
    return keys.hidden_partition(board_id), player_id


def hide(board_id: str, player_id: str, at: str) -> None:
    item = {schema.SCORES_PARTITION_KEY: keys.hidden_partition(board_id), schema.SCORES_SORT_KEY: player_id}
    dynamo.client().put_item(TableName=dynamo.scores_table(), Item=dynamo.to_item({**item, "hidden_at": at}))


def show(board_id: str, player_id: str) -> None:
    dynamo.client().delete_item(TableName=dynamo.scores_table(), Key=dynamo.key(*item_key(board_id, player_id)))


def hidden_among(pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The (board id, player id) pairs that are hidden: one strongly consistent BatchGetItem per 100 pairs."""
    wanted = list(dict.fromkeys(pairs))
    found = dynamo.batch_get([dynamo.key(*item_key(b, p)) for b, p in wanted]) if wanted else []
    by_key = {(i[schema.SCORES_PARTITION_KEY], i[schema.SCORES_SORT_KEY]) for i in found}
    return {(b, p) for b, p in wanted if item_key(b, p) in by_key}


def page_of_board(board_id: str, after: str | None, limit: int) -> tuple[list[dict[str, Any]], bool]:
    """Up to `limit` hidden-player items of a board in player-id order, after player `after` (None: from the
    first); and whether more follow. One strongly consistent Query (limit + 1 items of ~100 bytes: one page)."""
    condition = f"{schema.SCORES_PARTITION_KEY} = :p"
    values: dict[str, Any] = {":p": keys.hidden_partition(board_id)}
    if after is not None:
        condition += f" AND {schema.SCORES_SORT_KEY} > :after"
        values[":after"] = after
    found = dynamo.client().query(
        TableName=dynamo.scores_table(),
        KeyConditionExpression=condition,
        ExpressionAttributeValues=dynamo.to_item(values),
        Limit=limit + 1,
        ConsistentRead=True,
    )
    items = [dynamo.from_item(i) for i in found.get("Items", [])]
    return items[:limit], len(items) > limit


def keys_of_board(board_id: str) -> list[tuple[str, str]]:
    """Every hidden-player item of a board (to delete them with the board)."""
    return entries.keys_in_partition(keys.hidden_partition(board_id))
