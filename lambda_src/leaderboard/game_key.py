"""The game key checked by value, on the routes API Gateway admits without a key (routes.GAME_OR_RUN: a run token
may stand in for it there, and API Gateway can require a key on a method or not, not one or the other).

On AWS the value is the game key's secret (what `make rotate-key` puts there), its previous value accepted for
game_key_grace_seconds after a rotation, as API Gateway keeps the old key for the rotation's grace."""

from __future__ import annotations

from . import invocation, keyring
from .settings import Settings


def load_ring(settings: Settings, secrets: keyring.SecretStore) -> keyring.Ring:
    """The game key as the settings give it, or read from its secret (on AWS)."""
    if settings.game_api_key:
        return keyring.Ring(keyring.Key("local", settings.game_api_key))
    if settings.game_key_secret_arn:
        return keyring.ring_from_secret(secrets, settings.game_key_secret_arn, settings.game_key_grace_seconds)
    raise RuntimeError("no game key to compare: set GAME_API_KEY or GAME_KEY_SECRET_ARN")


# Any length: this key is compared, not signed with (API Gateway makes its values 20+ characters; test stacks' are
# shorter, and a length check here answered their submissions 500: found by the fuzz test)
MIN_CHARS = 1


def matches(value: str) -> bool:
    """Whether `value` is the game key (re-reading the secret, rate-limited, before saying no: a key just rotated)."""
    ring = invocation.runtime().game_keys
    now = invocation.seconds()
    return ring.get().matches(value, now) or ring.refreshed().matches(value, now)
