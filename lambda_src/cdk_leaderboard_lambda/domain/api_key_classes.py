"""The API's two key classes (game servers, operators), told apart by the key's VALUE, never by its id.

API Gateway gives a rotated key a new id, so an id written into the functions at deploy time stops matching at the
first `make rotate-key`. What stays true through rotations is the secret of each class: the rotation puts the new
key's value there (AWSCURRENT) and the value it replaces becomes AWSPREVIOUS until the rotation retires the old key
(it removes the key from its usage plan and the AWSPREVIOUS label together, ops/rotation.py). A value is of a class
while it is that class's current or labelled previous value.

Only keyed routes (routes.GAME, routes.ADMIN) compare a key, and there API Gateway has already checked the value is
a key of a usage plan of the stage (it vouches for it) and is the authority on the old key's grace: the old value
is refused the moment the rotation takes it out of its plan. A value no class's cached ring knows is then a key
rotated in since the last read: it is read again at once, at most once per MIN_REFRESH_SECONDS per value (only the
plans' few keys reach here, so the reads are bounded), and the other class's key costs no read. (No route takes a
key that API Gateway has not checked: a run token's score has a route of its own, routes.RUN.)
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping

from ..shared.lru import LRU
from ..shared.settings import Settings
from . import keyring
from .ports import SecretStore

# routes.GAME and routes.ADMIN (web/routes/access.py is a layer above: tests/unit/test_key_classes.py holds them equal)
GAME, ADMIN = "game", "admin"
REFRESH_SECONDS = 10  # a ring is read again this often (one ListSecretVersionIds when nothing changed)
MIN_REFRESH_SECONDS = 1  # an unknown value re-reads at most this often (per value)
UNKNOWN_KEPT = 64  # values found unknown after a read, remembered (an LRU: 64 digests, <20 KB) to skip re-reads
MIN_CHARS = 1  # compared, not signed with: any length (a length check answered test stacks' short keys 500)


def load_ring(settings: Settings, secrets: SecretStore, access: str) -> keyring.Ring:
    """The class's key as the settings give it (local runs, unit tests), or read from its secret: the current
    value, and the previous one while it keeps its AWSPREVIOUS label (no time bound: the rotation removes it)."""
    value, secret_arn = _source(settings, access)
    if value:
        return keyring.Ring(keyring.Key("given", value))
    if secret_arn:
        return keyring.ring_from_secret(secrets, secret_arn, None)
    raise RuntimeError(f"no {access} key to compare: set its value or its secret's ARN")


def configured(settings: Settings, access: str) -> bool:
    return any(_source(settings, access))


def _source(settings: Settings, access: str) -> tuple[str | None, str | None]:
    if access == ADMIN:
        return settings.admin_api_key, settings.admin_key_secret_arn
    return settings.game_api_key, settings.game_key_secret_arn


class KeyClasses:
    """Each class's ring, cached per instance; which class a key value belongs to."""

    def __init__(
        self,
        rings: Mapping[str, keyring.CachedRing],
        configured: Mapping[str, bool],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._rings, self._configured, self._clock = dict(rings), dict(configured), clock
        self._unknown: LRU[bytes, float] = LRU(UNKNOWN_KEPT)  # digest of a value -> when found unknown

    def configured(self, access: str) -> bool:
        return self._configured.get(access, False)

    def is_of(self, access: str, value: str) -> bool:
        """Whether `value`, a key API Gateway checked, is a key of class `access` (current, or previous while
        labelled)."""
        if not value:
            return False
        ring = self._rings[access]
        # matches(value, 0): these rings' keys carry no time bound (the labels are the grace), so the time is moot
        if ring.get().matches(value, 0):
            return True
        others = [r for a, r in self._rings.items() if a != access and self.configured(a)]
        if any(other.get().matches(value, 0) for other in others):
            return False  # the other class's key, as last read: no read for it
        digest = hashlib.sha256(value.encode()).digest()
        found_unknown = self._unknown.get(digest)
        if found_unknown is not None and self._clock() - found_unknown < MIN_REFRESH_SECONDS:
            return False
        if ring.refreshed(min_age=0).matches(value, 0):
            return True
        self._unknown.put(digest, self._clock())
        return False
