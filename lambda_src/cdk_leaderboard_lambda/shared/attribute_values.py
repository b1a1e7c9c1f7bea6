"""DynamoDB attribute values, both ways: what the data layer writes and reads,
and what a stream record's images hold, which the change feed decodes (stream_changes.py). No client, no table:
a leaf module, so that a consumer of stream records needs no data module."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def to_item(values: dict[str, Any]) -> dict:
    """Plain values as an item's attribute values; None values are left out."""
    return {k: _serializer.serialize(v) for k, v in values.items() if v is not None}


def _plain(value: Any) -> Any:
    """DynamoDB numbers arrive as Decimal: ints where they are whole (all this app stores), floats otherwise."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def from_item(item: dict) -> dict[str, Any]:
    """An item's (or a stream image's) attribute values as plain values."""
    return {k: _plain(_deserializer.deserialize(v)) for k, v in item.items()}
