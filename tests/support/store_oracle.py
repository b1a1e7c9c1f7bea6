"""The "scan every store" oracle of the erasure tests: where a runtime still holds a text (a player's id), whichever
engine its stores are on. On DynamoDB (moto), every item of both tables; in memory, everything every store of the
runtime (composition.STORES) keeps, walked through: its items, their keys, the records' objects (Powertools'
DataRecords). Each text found is matched as in a JSON dump of the DynamoDB item (`"erin"`: exactly that string;
`erin"`: a string that ends so), so the same call answers alike on both.

Not scanned, on either: a table's stream (a log of changes kept 24 hours on AWS; the in-memory entries' stream,
its stand-in), which is not an item of a store."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cdk_leaderboard_lambda.composition import STORES, Runtime
from cdk_leaderboard_lambda.data.memory_entries import MemoryEntries
from cdk_leaderboard_lambda.data.memory_stream import MemoryStream

_WALKED = ("cdk_leaderboard_lambda.", "aws_lambda_powertools.utilities.idempotency.persistence.datarecord")


def holding(runtime: Runtime, text: str) -> list[str]:
    """Where `text` is still held: DynamoDB items (as JSON), or in-memory paths such as `pending._items[...]`."""
    if not isinstance(runtime.entries, MemoryEntries):
        settings = runtime.settings
        return [
            json.dumps(item)
            for table in (settings.scores_table, settings.snapshots_table)
            for page in runtime.dynamodb.get_paginator("scan").paginate(TableName=table)
            for item in page["Items"]
            if text in json.dumps(item)
        ]
    found: list[str] = []
    seen: set[int] = set()

    def walk(value: Any, path: str) -> None:
        if isinstance(value, str | bytes):
            leaf = value if isinstance(value, str) else value.decode("utf-8", "replace")
            if text in json.dumps(leaf):
                found.append(path)
            return
        if id(value) in seen or isinstance(value, MemoryStream):
            return
        seen.add(id(value))
        if isinstance(value, Mapping):
            for key, item in list(value.items()):
                walk(key, f"{path}<key {key!r}>")
                walk(item, f"{path}[{key!r}]")
        elif isinstance(value, list | tuple | set | frozenset):
            for n, item in enumerate(list(value)):
                walk(item, f"{path}[{n}]")
        elif type(value).__module__.startswith(_WALKED) and hasattr(value, "__dict__"):
            for name, item in vars(value).items():
                walk(item, f"{path}.{name}")

    for name, _, _ in STORES:
        walk(getattr(runtime, name), name)
    return found


def erasure_items(runtime: Runtime, partition_prefix: str) -> list[dict[str, Any]]:
    """The erasures store's items whose partition key starts so (`#erasing#`: the hashed items that outlive an
    erasure; `#erasures`: the audit records), each as the set of its attribute names' item."""
    if not isinstance(runtime.entries, MemoryEntries):
        items = runtime.dynamodb.scan(TableName=runtime.settings.scores_table)["Items"]
        return [i for i in items if i["player_id"]["S"].startswith(partition_prefix)]
    held = runtime.erasures._items  # type: ignore[attr-defined]  # the oracle reads the store's own dict
    return [dict(item) for key, item in held.items() if key[0].startswith(partition_prefix)]
