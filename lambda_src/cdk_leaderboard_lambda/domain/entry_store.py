"""The entries' port: a player's score on one index partition, the rank index (GSI) over them, and the erasure
records that fence a player's entry places. What the domain knows of an entry item (is it a fence, hidden, where
it ranks) is here too, so the domain reads items without a data module.

Two implementations of each store, held to the same behaviour by tests/contract: data/entries.py (DynamoDB, what
every function uses) and data/memory_entries.py (in memory); data/erasures.py holds both erasure stores."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..shared import schema
from ..shared.errors import Conflict


class Changed(Exception):
    """An entry was changed by another writer between our read and our write: re-read and retry."""


class Erasing(Conflict):
    """The player is being erased: the entry's place holds the erasure's fence, and nothing is written."""

    def __init__(self, player_id: str) -> None:
        super().__init__("this player is being erased: nothing stored")  # the id would be kept in stored answers


def is_fence(item: Mapping[str, Any] | None) -> bool:
    """Whether an item in an entry's place is an erasure's fence (see schema.ERASING_MARK), not an entry."""
    return item is not None and schema.ERASING_MARK in item


def position(item: Mapping[str, Any]) -> str | None:
    """An entry's rank key, whether it is listed in the rank index or kept aside because the player is hidden."""
    return item.get(schema.RANK_INDEX_SORT_KEY) or item.get(schema.HIDDEN_RANK_KEY)


def is_hidden(item: Mapping[str, Any]) -> bool:
    return schema.HIDDEN_RANK_KEY in item


def applied(item: Mapping[str, Any] | None, operation: str | None) -> bool:
    """Whether a stored entry was written by this idempotent operation already."""
    return bool(operation and item and operation in (item.get("ops") or {}))


def erasure_stands(item: Mapping[str, Any], now_s: int) -> bool:
    """Whether an erasure's item refuses submissions: while the erasure runs, and after until `fence_until`."""
    return "fence_until" not in item or int(item["fence_until"]) > now_s
