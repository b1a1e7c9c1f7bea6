"""Deep-frozen JSON: the route table's schema fragments and body models are constants, not process state.

`freeze` turns a JSON value into one nobody can change (objects become read-only mappings over dicts no one else
holds, arrays become tuples, all the way down); `thaw` gives a plain JSON copy back, in the same order, for whoever
hands it out: the OpenAPI document, API Gateway's models (the construct), jsonschema (the local gateway). Reading a
frozen value needs no thaw: `value["properties"]`, `.get`, `in`, `.items()` and `{**value}` work on it as on a dict.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, TypeAlias

# A frozen JSON object: read it as a dict, change it never.
Frozen: TypeAlias = Mapping[str, Any]


def freeze(value: Any) -> Any:
    """`value` (JSON: dicts, lists, tuples, scalars; frozen parts as they are) deep-frozen: objects as
    MappingProxyType over a fresh dict, arrays as tuples."""
    if isinstance(value, Mapping):
        return MappingProxyType({key: freeze(item) for key, item in value.items()})
    if isinstance(value, (list, tuple)):
        return tuple(freeze(item) for item in value)
    if isinstance(value, (set, frozenset, bytearray)):
        raise TypeError(f"not JSON: {type(value).__name__}")
    return value


def thaw(value: Any) -> Any:
    """A plain JSON copy of `value` (frozen or not): mappings as dicts, in their order, arrays as lists."""
    if isinstance(value, Mapping):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(item) for item in value]
    return value
