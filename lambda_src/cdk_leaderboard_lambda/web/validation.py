"""Parsing and validating request input. Every check raises BadRequest with a message saying why."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Set as AbstractSet
from typing import Any, overload

from ..shared.errors import BadRequest, PayloadTooLarge
from ..shared.limits import (
    ERASURE_ID_PATTERN,
    MAX_BODY_BYTES,
    MAX_FRIEND_IDS,
    MAX_FRIEND_IDS_CHARS,
    MAX_ID_LENGTH,
    MAX_IDEMPOTENCY_KEY_LENGTH,
    MAX_JSON_DEPTH,
    MAX_METADATA_BYTES,
    MAX_METADATA_KEYS,
    MAX_SAFE_INTEGER,
    MAX_SCORE,
    PENDING_ID_PATTERN,
    PLAYER_ID_PATTERN,
    PLAYER_IDS_PATTERN,
    SCORE_DIGITS,
)
from ..shared.text import display_name, unreadable_text

_PLAYER_ID = re.compile(PLAYER_ID_PATTERN)
_PLAYER_IDS = re.compile(PLAYER_IDS_PATTERN)
_ASCII_INT = re.compile(rf"-?[0-9]{{1,{SCORE_DIGITS}}}")  # no bound here is longer than the largest score


class DuplicateMember(ValueError):
    """An object of the text names one member twice (`name`)."""

    NAMED = 64  # characters of the name the message quotes (escaped): a name may be as long as the body

    def __init__(self, name: str) -> None:
        shown = json.dumps(name[: self.NAMED]) + ("..." if len(name) > self.NAMED else "")
        super().__init__(f"the member {shown} appears twice in one object")
        self.name = name


def strict_json(text: str | bytes):
    """JSON as RFC 8259 defines it: no NaN, Infinity or -Infinity (Python's json accepts them), and no object that
    names a member twice (Python's json keeps the last, another reader of the same body may keep the first):
    DuplicateMember."""
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float, object_pairs_hook=_unique)


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for name, value in pairs:
        if name in found:
            raise DuplicateMember(name)
        found[name] = value
    return found


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON value")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 would be stored as Infinity, which is not JSON
        raise ValueError(f"{text} is out of range")
    return value


def json_body(event: dict) -> dict:
    """The request body as a JSON object; an empty body is {}."""
    raw = event.get("body") or ""
    if event.get("isBase64Encoded"):
        raise BadRequest("body must be JSON text, not base64")
    if len(raw.encode()) > MAX_BODY_BYTES:
        raise PayloadTooLarge(f"body is larger than {MAX_BODY_BYTES} bytes")
    if not raw.strip():
        return {}
    try:
        body = strict_json(raw)
    except DuplicateMember as err:
        raise BadRequest(f"body is not strict JSON: {err}") from None
    except (ValueError, RecursionError):
        raise BadRequest("body is not valid JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("body must be a JSON object")
    unreadable = unreadable_text(body)
    if unreadable:
        raise BadRequest(f"text must be Unicode scalar values: {unreadable}")
    return body


def query(event: dict) -> dict[str, str]:
    return event.get("queryStringParameters") or {}


def query_values(event: dict, route) -> dict[str, Any]:
    """The route's query parameters (routes.Route.query): integers checked against their schema's range and
    converted, the defaults applied, player ids checked; other strings (periods, cursors) as given, for the
    domain to read. Parameters the route does not take are ignored, as API Gateway ignores them."""
    given = query(event)
    values: dict[str, Any] = {}
    for name, spec in route.query.items():
        raw = given.get(name)
        if spec.get("type") == "integer":
            values[name] = bounded_int(
                raw, name, spec["minimum"], spec["maximum"], spec.get("default"), name in route.required_query, True
            )
        elif name == "player_id":  # absent from an optional one (the review queue's filter): None
            values[name] = player_id(raw) if raw is not None or name in route.required_query else None
        else:
            values[name] = raw
    return values


def player_id(value: Any, field: str = "player_id") -> str:
    if not isinstance(value, str) or len(value) > MAX_ID_LENGTH or not _PLAYER_ID.fullmatch(value):
        raise BadRequest(f"{field} must be 1-{MAX_ID_LENGTH} characters of letters, digits, _ . : @ -, not only dots")
    return value


def player_name(value: Any, default: str | None) -> str | None:
    if value is None:
        return default
    return display_name(value, "player_name")


def score(value: Any) -> int:
    # bool is an int subclass in Python; JSON true is not a score.
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest("score must be an integer")
    if not 0 <= value <= MAX_SCORE:
        raise BadRequest(f"score must be between 0 and {MAX_SCORE}")
    return value


def signed_score(value: Any) -> int:
    """A score or an increment: any integer JSON carries exactly; the board's bounds apply to the result."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest("score must be an integer")
    if not -MAX_SCORE <= value <= MAX_SCORE:
        raise BadRequest(f"score must be between {-MAX_SCORE} and {MAX_SCORE}")
    return value


def metadata(value: Any) -> dict | None:
    return json_object(value, "metadata", MAX_METADATA_BYTES, MAX_METADATA_KEYS)


def json_object(value: Any, field_name: str, max_bytes: int, max_keys: int) -> dict | None:
    """A small JSON object field (metadata, evidence): served back as given, so readable by any JSON reader."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise BadRequest(f"{field_name} must be a JSON object")
    depth, key_count = _structure(value)
    if depth > MAX_JSON_DEPTH:
        raise BadRequest(
            f"{field_name} must be at most {MAX_JSON_DEPTH} levels deep (the object itself is level 1, each object "
            f"or array in it one more): this one is {depth}"
        )
    if key_count > max_keys:
        raise BadRequest(
            f"{field_name} must have at most {max_keys} keys, counted over all its objects: it has {key_count}"
        )
    unreadable = unreadable_text(value)
    if unreadable:
        raise BadRequest(f"{field_name} text must be Unicode scalar values: {unreadable}")
    if _has_unsafe_integer(value):
        # a reader that parses numbers as doubles (JavaScript, jq) would read another number, or Infinity
        raise BadRequest(
            f"{field_name} numbers must be integers from {-MAX_SAFE_INTEGER} to {MAX_SAFE_INTEGER} (exact in a "
            "double) or numbers within a double's range"
        )
    if len(json.dumps(value, separators=(",", ":")).encode()) > max_bytes:
        raise BadRequest(f"{field_name} must be at most {max_bytes} bytes of JSON")
    return value


def _structure(value: Any) -> tuple[int, int]:
    """The nesting depth (a scalar is 0, an empty object 1) and the keys of every object in it; iterative: a value
    Python's parser built is walked without recursion."""
    deepest, key_count, stack = 0, 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            key_count += len(item)
            children = list(item.values())
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest, key_count


def _has_unsafe_integer(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, bool):
            continue
        if isinstance(item, int) and not -MAX_SAFE_INTEGER <= item <= MAX_SAFE_INTEGER:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


_IDEMPOTENCY_KEY = re.compile(rf"^[\x21-\x7e]{{1,{MAX_IDEMPOTENCY_KEY_LENGTH}}}$")


def idempotency_key(value: str | None) -> str | None:
    if value is None:
        return None
    if not _IDEMPOTENCY_KEY.fullmatch(value):
        raise BadRequest(f"Idempotency-Key must be 1-{MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters")
    return value


@overload
def bounded_int(
    value: Any, field: str, low: int, high: int, default: int, required: bool = False, text: bool = False
) -> int: ...
@overload
def bounded_int(
    value: Any, field: str, low: int, high: int, default: int | None, required: bool = False, text: bool = False
) -> int | None: ...
def bounded_int(
    value: Any, field: str, low: int, high: int, default: int | None, required: bool = False, text: bool = False
) -> int | None:
    """An integer in [low, high]: a JSON integer, or with `text` a query string's digits; absent means default (or
    400 if required). A body's "5" is refused as the body's model refuses it: the function does not count on
    API Gateway's model, which checks application/json bodies only."""
    if value is None:
        if required:
            raise BadRequest(f"{field} is required")
        return default
    # ASCII digits only: Python's int() and \d also take other scripts' digits ("٣") and whitespace.
    if text and isinstance(value, str) and _ASCII_INT.fullmatch(value):
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadRequest(f"{field} must be an integer from {low} to {high}")
    return value


def only_fields(body: dict, allowed: AbstractSet[str]) -> None:
    """Refuse fields the body's model (routes.*_BODY.fields) does not have."""
    unknown = sorted(set(body) - allowed)
    if unknown:
        raise BadRequest(f"unknown field(s): {', '.join(unknown)}")


def player_ids(raw: str | None) -> list[str]:
    """A comma-separated list of 1 to MAX_FRIEND_IDS player ids (a repeat counts once). Ids longer than a player
    id can be are left out: no board holds them."""
    if not raw:
        raise BadRequest("ids is required: comma-separated player ids")
    ids = raw.split(",")
    if len(ids) > MAX_FRIEND_IDS or len(raw) > MAX_FRIEND_IDS_CHARS:
        raise BadRequest(f"ids takes at most {MAX_FRIEND_IDS} player ids")
    if not _PLAYER_IDS.fullmatch(raw):
        raise BadRequest("each of ids must be letters, digits, _ . : @ -, not only dots, separated by commas")
    return [i for i in dict.fromkeys(ids) if len(i) <= MAX_ID_LENGTH]


def erasure_id(value: str) -> str:
    if not re.fullmatch(ERASURE_ID_PATTERN, value):
        raise BadRequest("erasure_id must be 16 characters of letters, digits, _ or -")
    return value


def pending_id(value: str) -> str:
    if not re.fullmatch(PENDING_ID_PATTERN, value):
        raise BadRequest("pending_id must be a pending_id the review queue lists: 13 digits, -, 8 characters")
    return value
