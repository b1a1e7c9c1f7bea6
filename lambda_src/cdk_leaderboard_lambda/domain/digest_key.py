"""The digest key: the HMAC key of the keyed hashes that name a player's items without naming the player (item_keys.py:
commitment keys, runs, pending pointers, rate counters, erasure items). One purpose, one version, never rotated.

Those hashes are partition keys: a new value would move every such partition at once (a second commitment for a
player within a period, an erasure that no longer finds the player's runs, pointers and old commitment key). So
the key is create-once; `python -m ops rotate-digest-key` refuses and says why (a rotation would be a data
migration). It is kept apart from the page-cursor keys (cursors.py), which rotate.

On AWS the key is the secret the stack calls `CursorSecret` (its logical id kept from when that one secret signed
cursors too): its value at the upgrade keyed every existing item, so it stays the digest key and nothing moves.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..shared.settings import Settings

if TYPE_CHECKING:
    from .ports import SecretStore

MIN_KEY_CHARS = 16  # what the cursor secret needed when it was this key (deployments' values are 64 characters)


class DigestKey:
    """Read on first use, then kept by its runtime for good (it never changes: one read per cold start)."""

    def __init__(self, load: Callable[[], str | None]) -> None:
        self._load = load
        self._value: bytes | None = None
        self._lock = threading.Lock()

    def value(self) -> bytes:
        with self._lock:
            if self._value is None:
                text = self._load()
                if not text or len(text) < MIN_KEY_CHARS:
                    raise RuntimeError(
                        f"no digest key: set DIGEST_KEY (at least {MIN_KEY_CHARS} characters) or DIGEST_KEY_SECRET_ARN"
                    )
                self._value = text.encode()
            return self._value


def load(settings: Settings, secrets: SecretStore) -> str | None:
    """The key as the settings give it (local runs, tests), or its secret's current value (on AWS)."""
    if settings.digest_key is None and settings.digest_key_secret_arn:
        return secrets.value(settings.digest_key_secret_arn)
    return settings.digest_key
