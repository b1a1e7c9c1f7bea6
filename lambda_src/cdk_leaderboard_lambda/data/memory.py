"""What the in-memory stores share to behave as DynamoDB does where the domain relies on it: items stored as
DynamoDB would store them (through the same serializer: None attributes dropped, floats refused, numbers back as
ints), a refused conditional write raised as the same error boto3 raises, and pages of a sorted key range with
an opaque cursor (a page that fills its limit has one, as DynamoDB's LastEvaluatedKey)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

from botocore.exceptions import ClientError

from ..shared.attribute_values import from_item, to_item

Key = tuple[str, str]
_CONDITION_FAILED = "ConditionalCheckFailedException"


def stored(item: dict[str, Any]) -> dict[str, Any]:
    """A copy of `item` as a put and a read through DynamoDB would give it back."""
    return from_item(to_item(item))


def condition_failed(operation: str) -> ClientError:
    """The error a DynamoDB client raises for a refused condition (its ConditionalCheckFailedException is this
    ClientError's subclass, with the same code)."""
    error = {"Code": _CONDITION_FAILED, "Message": "The conditional request failed"}
    return ClientError({"Error": error}, operation)


def is_condition_failed(err: Exception) -> bool:
    return isinstance(err, ClientError) and err.response.get("Error", {}).get("Code") == _CONDITION_FAILED


def page(
    keys: Iterable[Key], start: dict | None, limit: int, accept: Callable[[Key], bool] = lambda _: True
) -> tuple[list[Key], dict | None]:
    """Up to `limit` keys (in the order given) after the cursor `start`, those `accept`s (a filter applies after the
    limit, as DynamoDB's FilterExpression does), and the cursor to the next page (None after the last)."""
    ordered = list(keys)
    if start is not None:
        after = tuple(start["after"])
        ordered = [k for k in ordered if k > after]
    evaluated = ordered[:limit]
    cursor = {"after": list(evaluated[-1])} if len(evaluated) == limit and evaluated else None
    return [k for k in evaluated if accept(k)], cursor


class LockedItems:
    """Items by key and the lock that guards them: what an in-memory store and the layer that works on its items
    (data/idempotency_memory.py, for MemoryRecords) share."""

    def __init__(self) -> None:
        self.items: dict[Any, Any] = {}
        self.lock = threading.Lock()
