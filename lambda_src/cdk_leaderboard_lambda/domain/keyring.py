"""Keys that rotate with a grace period: the current one, and the previous one until its grace ends.

Both the token signing key and the game key live in Secrets Manager; a rotation puts a new value (PutSecretValue),
which becomes AWSCURRENT while the one it replaces becomes AWSPREVIOUS. The previous value stays valid for
`grace_seconds` after the current version was created, then is refused even while it is still in the secret.

A function instance (its runtime: composition.py) keeps the ring for REFRESH_SECONDS and reads it again earlier
when a caller shows a key it does not know (a token signed after a rotation), at most once every
MIN_REFRESH_SECONDS: a stream of forged key ids costs at most one Secrets Manager read per instance that often.
"""

from __future__ import annotations

import hmac
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from .ports import SecretStore

REFRESH_SECONDS = 300
MIN_REFRESH_SECONDS = 10
MIN_KEY_CHARS = 32


@dataclass(frozen=True)
class Key:
    kid: str  # names the key in a token's header (the secret's version id on AWS)
    value: str
    valid_until: float | None = None  # epoch seconds; None: the current key

    def valid_at(self, now: float) -> bool:
        return self.valid_until is None or now < self.valid_until


@dataclass(frozen=True)
class Ring:
    current: Key
    previous: Key | None = None

    def find(self, kid: object, now: float) -> Key | None:
        """The key named `kid` if it may still verify at `now`."""
        for key in (self.current, self.previous):
            if key is not None and isinstance(kid, str) and hmac.compare_digest(key.kid, kid) and key.valid_at(now):
                return key
        return None

    def matches(self, value: str, now: float) -> bool:
        """Whether `value` is the current key or the previous one within its grace (the game key's check)."""
        return any(
            key is not None and key.valid_at(now) and hmac.compare_digest(key.value.encode(), value.encode())
            for key in (self.current, self.previous)
        )


def ring_from_secret(secrets: SecretStore, secret_id: str, grace_seconds: int | None) -> Ring:
    """None: the previous value is valid as long as it keeps its AWSPREVIOUS label (the API keys' rotation removes
    it when it retires the old key)."""
    current, previous = secrets.current_and_previous(secret_id)
    valid_until = None if previous is None or grace_seconds is None else current.created_at + grace_seconds
    return Ring(
        Key(current.version_id, current.value),
        None if previous is None else Key(previous.version_id, previous.value, valid_until),
    )


class CachedRing:
    """A ring read through `load`, kept refresh_seconds, read again early (rate-limited) on an unknown key."""

    def __init__(
        self,
        load: Callable[[], Ring],
        min_chars: int = MIN_KEY_CHARS,
        clock: Callable[[], float] = time.monotonic,
        refresh_seconds: float = REFRESH_SECONDS,
        min_refresh_seconds: float = MIN_REFRESH_SECONDS,
    ) -> None:
        self._load, self._clock, self._min_chars = load, clock, min_chars
        self._refresh_seconds, self._min_refresh_seconds = refresh_seconds, min_refresh_seconds
        self._ring: Ring | None = None
        self._read_at = 0.0
        self._lock = threading.Lock()

    def get(self) -> Ring:
        with self._lock:
            if self._ring is None or self._clock() - self._read_at >= self._refresh_seconds:
                self._read()
            assert self._ring is not None  # _read set it or raised
            return self._ring

    def refreshed(self, min_age: float | None = None) -> Ring:
        """The ring read again if the last read is older than `min_age` (default: min_refresh_seconds), else the one
        held."""
        min_age = self._min_refresh_seconds if min_age is None else min_age
        with self._lock:
            if self._ring is None or self._clock() - self._read_at >= min_age:
                self._read()
            assert self._ring is not None  # _read set it or raised
            return self._ring

    def _read(self) -> None:
        ring = self._load()
        for key in (ring.current, ring.previous):
            if key is not None and len(key.value) < self._min_chars:
                raise RuntimeError(f"key {key.kid} is shorter than {self._min_chars} characters")
        self._ring, self._read_at = ring, self._clock()
