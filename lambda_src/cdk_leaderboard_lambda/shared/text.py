"""Text shown to other people or served to every JSON reader: the rules of docs/API.md, "Text, numbers and dates"
(domain: the board and live modules use them as the handlers' validation does)."""

from __future__ import annotations

import json
import re
from typing import Any

from .errors import BadRequest
from .limits import (
    MAX_NAME_LENGTH,
    NAME_BIDI_CHARS,
    NAME_CONTROL_CHARS,
    NAME_INVISIBLE_ASTRAL_CHARS,
    NAME_INVISIBLE_CHARS,
    UNREADABLE_PATTERN,
)


def unreadable_text(value: Any) -> str | None:
    """Where a parsed JSON value holds a lone surrogate (`"\\ud800"` parses in Python, but orjson, jq and Rust's
    serde refuse the whole document that holds it; RFC 7493 forbids it), in a string or a member name; None if it
    holds none. No recursion: the depth is the parser's."""
    stack: list[tuple[str, Any]] = [("body", value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, str):
            bad = _UNREADABLE.search(item)
            if bad:
                return f"{where} holds a lone surrogate (U+{ord(bad.group()):04X})"
        elif isinstance(item, dict):
            for name, member in item.items():
                path = f"{where}.{name}" if _PLAIN_NAME.fullmatch(name) else f"{where}[{json.dumps(name)}]"
                stack += [(f"{path} (its name)", name), (path, member)]
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", member) for i, member in enumerate(item))
    return None


_UNREADABLE = re.compile(UNREADABLE_PATTERN)
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")


def display_name(value: Any, field: str) -> str:
    """A name shown to other people as given, trimmed (player, board, reward and tier names): at most
    MAX_NAME_LENGTH characters of text with no control characters, no bidirectional formatting (which would
    reorder the text around it on the page) and at least one visible character. Each rule has its own message."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME_LENGTH:
        raise BadRequest(f"{field} must be a non-empty string of at most {MAX_NAME_LENGTH} characters")
    bad = _UNREADABLE.search(value)
    if bad:
        raise BadRequest(f"{field} must be Unicode scalar values: it holds a lone surrogate (U+{ord(bad.group()):04X})")
    bad = _CONTROL.search(value)
    if bad:
        raise BadRequest(
            f"{field} must not contain control characters (U+0000-U+001F, U+007F-U+009F, U+2028, U+2029): "
            f"it holds U+{ord(bad.group()):04X}"
        )
    bad = _BIDI.search(value)
    if bad:
        raise BadRequest(
            f"{field} must not contain bidirectional formatting characters (U+061C, U+200E, U+200F, "
            f"U+202A-U+202E, U+2066-U+2069): it holds U+{ord(bad.group()):04X}"
        )
    if not _VISIBLE.search(value):
        raise BadRequest(
            f"{field} must have a visible character: it is empty once invisible characters (whitespace, "
            "zero-width, fillers such as U+3164) are removed"
        )
    return value.strip()


_CONTROL = re.compile(f"[{NAME_CONTROL_CHARS}]")
_BIDI = re.compile(f"[{NAME_BIDI_CHARS}]")
_VISIBLE = re.compile(f"[^{NAME_CONTROL_CHARS}{NAME_BIDI_CHARS}{NAME_INVISIBLE_CHARS}{NAME_INVISIBLE_ASTRAL_CHARS}]")
