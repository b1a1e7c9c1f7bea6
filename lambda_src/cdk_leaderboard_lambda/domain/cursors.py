"""Page cursors: opaque, signed, bound to one board period, expiring.

A cursor is `<payload>.<tag>`, both base64url without padding. The payload is the compact JSON
`[last rank key, last rank shown, issued at (ms)]`; the tag is HMAC-SHA256 (truncated to 128 bits)
over the board period it belongs to and the payload, keyed with the cursor key. So a cursor
that the API did not issue, that was altered, or that belongs to another board or period fails the
tag check (422) before anything in it is read; the payload is parsed only once it is known to be ours.

The cursor key rotates (`make rotate-cursor-key`): it is read as a ring (keyring.py) from the secret
CURSOR_SECRET_ARN names, whose current version signs and whose previous version still verifies for GRACE
(a cursor's TTL, plus the time an instance may keep signing with the old key). A tag carries no key id: a
cursor is checked against the current key, then the previous one, then a re-read ring (an instance that has not
seen the rotation yet). Each version's value is not used as is: the key is HMAC(value, KEY_LABEL), so a secret
shared with another purpose (outside production, the token signing secret) never signs cursors with its own key.
Nothing stored depends on this key (the keyed hashes of item_keys.py use the digest key, digest_key.py).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..shared.errors import BadRequest, BrokenRule
from ..shared.limits import CURSOR_PATTERN, MAX_CURSOR_CHARS
from ..shared.settings import Settings
from . import keyring

if TYPE_CHECKING:
    from .ports import SecretStore
    from .ports.runtime import Runtime

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


KEY_LABEL = b"leaderboard page-cursor key v1"
LOCAL_KID = "local"


def grace_seconds(settings: Settings) -> int:
    """How long the previous key verifies after a rotation: an instance signs with it until it re-reads the ring
    (keyring.REFRESH_SECONDS), and a cursor it signed then lives cursor_ttl_seconds (clock skew on top)."""
    return keyring.REFRESH_SECONDS + settings.cursor_ttl_seconds + CLOCK_SKEW_MS // 1000


def load_ring(settings: Settings, secrets: SecretStore) -> keyring.Ring:
    """The key as the settings give it (one key: local runs, tests), or the ring of its secret (on AWS)."""
    if settings.cursor_secret is None and settings.cursor_secret_arn:
        return keyring.ring_from_secret(secrets, settings.cursor_secret_arn, grace_seconds(settings))
    if settings.cursor_secret is None:
        raise RuntimeError(
            f"no cursor key: set CURSOR_SECRET (at least {MIN_SECRET_CHARS} characters) or CURSOR_SECRET_ARN"
        )
    return keyring.Ring(keyring.Key(LOCAL_KID, settings.cursor_secret))


def keys(settings: Settings, secrets: SecretStore) -> keyring.CachedRing:
    return keyring.CachedRing(lambda: load_ring(settings, secrets), min_chars=MIN_SECRET_CHARS)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _signing_key(key: keyring.Key) -> bytes:
    return hmac.new(key.value.encode(), KEY_LABEL, hashlib.sha256).digest()


def _tag(binding: str, payload: str, key: keyring.Key) -> str:
    mac = hmac.new(_signing_key(key), f"v1\n{binding}\n{payload}".encode(), hashlib.sha256).digest()
    return _b64(mac[:TAG_BYTES])


def _verifies(binding: str, payload: str, tag: str, ring: keyring.Ring, now: float) -> bool:
    return any(
        key is not None and key.valid_at(now) and hmac.compare_digest(tag, _tag(binding, payload, key))
        for key in (ring.current, ring.previous)
    )


def _now_ms(runtime: Runtime) -> int:
    return int(runtime.clock.now().timestamp() * 1000)


def issue(runtime: Runtime, binding: str, last_key: str, last_rank: int, issued_ms: int | None = None) -> str:
    """A cursor for the page after (last_key, last_rank) of the board period `binding` (its leaderboard id), signed
    with the runtime's cursor key. issued_ms is when the cursor's walk began (None: now on the runtime's clock, a
    walk's first cursor): it expires cursor_ttl_seconds after that.
    """
    raw = json.dumps([last_key, last_rank, _now_ms(runtime) if issued_ms is None else issued_ms], separators=(",", ":"))
    payload = _b64(raw.encode())
    return f"{payload}.{_tag(binding, payload, runtime.cursor_keys.get().current)}"


def read(runtime: Runtime, cursor: object, binding: str) -> Position:
    """The position a cursor holds, if the API issued it for `binding` and it has not expired.

    Not of a cursor's shape (the document's pattern): 400. Of that shape but not issued for `binding` by this API,
    or expired: 422, the document's status for a request of the right shape that a rule it states in words refuses
    (no schema can say which values carry our tag)."""
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR_CHARS or not _SHAPE.fullmatch(cursor):
        raise BadRequest(INVALID)
    payload, tag = cursor.split(".")
    ring, now = runtime.cursor_keys, runtime.clock.now().timestamp()
    if not (
        _verifies(binding, payload, tag, ring.get(), now) or _verifies(binding, payload, tag, ring.refreshed(), now)
    ):
        raise BrokenRule(INVALID)
    try:  # ours (the tag says so), but parsed defensively all the same
        last_key, last_rank, issued_ms = json.loads(_unb64(payload), parse_constant=_refuse)
    except (ValueError, TypeError, RecursionError, binascii.Error):
        raise BrokenRule(INVALID) from None
    if not (
        isinstance(last_key, str)
        and all(isinstance(n, int) and not isinstance(n, bool) for n in (last_rank, issued_ms))
        and 0 <= last_rank <= MAX_RANK
    ):
        raise BrokenRule(INVALID)
    now_ms = _now_ms(runtime)
    if issued_ms > now_ms + CLOCK_SKEW_MS:
        raise BrokenRule(INVALID)
    if now_ms - issued_ms > runtime.settings.cursor_ttl_seconds * 1000:
        raise BrokenRule(EXPIRED)
    return Position(last_key, last_rank, issued_ms)


def _refuse(name: str):
    raise ValueError(f"{name} is not JSON")
