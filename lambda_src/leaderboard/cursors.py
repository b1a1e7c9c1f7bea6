"""Page cursors: opaque, signed, bound to one board period, expiring.

A cursor is `<payload>.<tag>`, both base64url without padding. The payload is the compact JSON
`[last rank key, last rank shown, issued at (ms)]`; the tag is HMAC-SHA256 (truncated to 128 bits)
over the board period it belongs to and the payload, keyed with the deployment's secret. So a cursor
that the API did not issue, that was altered, or that belongs to another board or period fails the
tag check before anything in it is read; the payload is parsed only once it is known to be ours.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from . import invocation
from .errors import BadRequest
from .limits import CURSOR_PATTERN, MAX_CURSOR_CHARS
from .settings import Settings

if TYPE_CHECKING:
    from .keyring import SecretStore

_SHAPE = re.compile(CURSOR_PATTERN)
TAG_BYTES = 16
MAX_RANK = 10**15  # far beyond any board; a rank is a JSON number that stays exact
CLOCK_SKEW_MS = 5_000  # functions' clocks may differ a little; beyond that "issued in the future" is forged
MIN_SECRET_CHARS = 16
INVALID = "cursor is not valid for this board and period: use the next_cursor of a page of the same board and period"
EXPIRED = "cursor has expired: start again from the first page"


@dataclass(frozen=True)
class Position:
    """Where the next page starts: after `last_key`, numbering from `last_rank` + 1."""

    last_key: str
    last_rank: int
    issued_ms: int


class SigningSecret:
    """The deployment's signing key for cursors (and keyed digests): read on first use, then kept by its runtime
    (once per cold start: on AWS one Secrets Manager read)."""

    def __init__(self, load: Callable[[], str | None]) -> None:
        self._load = load
        self._value: bytes | None = None
        self._lock = threading.Lock()

    def value(self) -> bytes:
        with self._lock:
            if self._value is None:
                text = self._load()
                if not text or len(text) < MIN_SECRET_CHARS:
                    raise RuntimeError(
                        f"no cursor secret: set CURSOR_SECRET (at least {MIN_SECRET_CHARS} characters) or "
                        "CURSOR_SECRET_ARN"
                    )
                self._value = text.encode()
            return self._value


def load_secret(settings: Settings, secrets: SecretStore) -> str | None:
    """The secret as the settings give it, or read from Secrets Manager (on AWS: CURSOR_SECRET_ARN)."""
    if settings.cursor_secret is None and settings.cursor_secret_arn:
        return secrets.value(settings.cursor_secret_arn)
    return settings.cursor_secret


def _secret() -> bytes:
    return invocation.runtime().cursor_secret.value()


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _tag(binding: str, payload: str) -> str:
    mac = hmac.new(_secret(), f"v1\n{binding}\n{payload}".encode(), hashlib.sha256).digest()
    return _b64(mac[:TAG_BYTES])


def _now_ms() -> int:
    return int(invocation.seconds() * 1000)


def issue(binding: str, last_key: str, last_rank: int, issued_ms: int | None = None) -> str:
    """A cursor for the page after (last_key, last_rank) of the board period `binding` (its leaderboard id).

    issued_ms (default now) is when the cursor's walk began: it expires cursor_ttl_seconds after that.
    """
    raw = json.dumps([last_key, last_rank, _now_ms() if issued_ms is None else issued_ms], separators=(",", ":"))
    payload = _b64(raw.encode())
    return f"{payload}.{_tag(binding, payload)}"


def read(cursor: object, binding: str, now_ms: int | None = None) -> Position:
    """The position a cursor holds, if the API issued it for `binding` and it has not expired; else 400."""
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS or not _SHAPE.fullmatch(cursor):
        raise BadRequest(INVALID)
    payload, tag = cursor.split(".")
    if not hmac.compare_digest(tag, _tag(binding, payload)):
        raise BadRequest(INVALID)
    try:  # ours (the tag says so), but parsed defensively all the same
        last_key, last_rank, issued_ms = json.loads(_unb64(payload), parse_constant=_refuse)
    except (ValueError, TypeError, RecursionError, binascii.Error):
        raise BadRequest(INVALID) from None
    if not (
        isinstance(last_key, str)
        and all(isinstance(n, int) and not isinstance(n, bool) for n in (last_rank, issued_ms))
        and 0 <= last_rank <= MAX_RANK
    ):
        raise BadRequest(INVALID)
    now_ms = _now_ms() if now_ms is None else now_ms
    if issued_ms > now_ms + CLOCK_SKEW_MS:
        raise BadRequest(INVALID)
    if now_ms - issued_ms > invocation.settings().cursor_ttl_seconds * 1000:
        raise BadRequest(EXPIRED)
    return Position(last_key, last_rank, issued_ms)


def _refuse(name: str):
    raise ValueError(f"{name} is not JSON")
