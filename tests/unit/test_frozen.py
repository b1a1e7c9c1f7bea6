"""frozen.py: the route table's schema fragments are deep-frozen constants, thawed back to the same JSON."""

from __future__ import annotations

import json
from types import MappingProxyType

import pytest

from cdk_leaderboard_lambda.shared.frozen import freeze, thaw

VALUE = {
    "type": "object",
    "required": ["b", "a"],
    "properties": {"b": {"enum": ["x", "y"]}, "a": {"type": "integer", "minimum": 0}},
    "dependencies": {"b": ["a"]},
    "nullable": None,
    "x-ratio": 0.5,
    "additionalProperties": False,
}


def test_freeze_reaches_every_level_and_thaw_gives_the_same_json_back_in_the_same_order():
    frozen = freeze(VALUE)
    assert isinstance(frozen, MappingProxyType) and isinstance(frozen["properties"]["b"], MappingProxyType)
    assert frozen["required"] == ("b", "a") and frozen["properties"]["b"]["enum"] == ("x", "y")
    thawed = thaw(frozen)
    assert thawed == VALUE and json.dumps(thawed) == json.dumps(VALUE)
    assert type(thawed["required"]) is list and type(thawed["properties"]) is dict


def test_nothing_frozen_can_be_changed_and_a_thawed_copy_changes_alone():
    frozen = freeze(VALUE)
    with pytest.raises(TypeError):
        frozen["type"] = "array"  # type: ignore[index]
    with pytest.raises(TypeError):
        frozen["properties"]["a"]["minimum"] = 1  # type: ignore[index]
    with pytest.raises(AttributeError):
        frozen["required"].append("c")  # type: ignore[union-attr]
    thawed = thaw(frozen)
    thawed["properties"]["a"]["minimum"] = 1
    assert frozen["properties"]["a"]["minimum"] == 0


def test_freeze_keeps_no_link_to_what_it_was_given():
    given = {"properties": {"a": {"type": "string"}}, "required": ["a"]}
    frozen = freeze(given)
    given["properties"]["a"]["type"] = "integer"
    given["required"].append("b")
    assert thaw(frozen) == {"properties": {"a": {"type": "string"}}, "required": ["a"]}


def test_freeze_is_idempotent_and_composes_with_spreads():
    part = freeze({"type": "integer", "minimum": 1})
    assert freeze(part) == part and thaw(freeze({**part, "maximum": 9})) == {
        "type": "integer",
        "minimum": 1,
        "maximum": 9,
    }


def test_freeze_refuses_what_json_cannot_say():
    with pytest.raises(TypeError):
        freeze({"enum": {"a", "b"}})
