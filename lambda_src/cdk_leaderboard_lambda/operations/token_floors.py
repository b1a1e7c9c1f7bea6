"""Erasure stops outstanding tokens: a player's token floor, written when an erasure of the player answers.

Tokens carry their issue time in whole seconds (`iat`), so "issued before the answer" is decided by seconds: the
floor is the answer's second, and a player or run token of the player with `iat` at or below it is refused (401)
by every route that takes one. So that a token issued after the answer, in that same second, is not refused
with them, a player token is issued at the floor's next second at the earliest (less than a second ahead, well
within the verifiers' leeway), and a run token no earlier than the player token it was started with.

The floor is an item beside the erasure's, under the same keyed hash of the id (item_keys.token_floor_key): it
names no one, and the table's TTL takes it once every token issued before it has expired (FLOOR_SECONDS).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..domain import tokens
from ..shared import item_keys, limits
from ..shared.errors import Unauthorized

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

# Past the expiry of any token issued before the floor (player tokens live longest; run tokens are issued with one).
FLOOR_SECONDS = limits.MAX_PLAYER_TOKEN_SECONDS + tokens.LEEWAY_SECONDS
ERASED_TOKEN = "the bearer token was issued before this player's data was erased: get a new one"


def _key(runtime: Runtime, player_id: str) -> tuple[str, str]:
    return item_keys.token_floor_key(runtime.digest_key.value(), player_id)


def floor_of(runtime: Runtime, player_id: str) -> int | None:
    """The player's token floor (epoch seconds), None if no erasure of theirs answered within FLOOR_SECONDS. One
    strongly consistent GetItem of a small item (1 read unit)."""
    return runtime.erasures.token_floor(_key(runtime, player_id))


def raise_floor(runtime: Runtime, player_id: str, answered_s: int) -> None:
    """An erasure of the player answers at `answered_s`: their tokens issued until then are refused from now on
    (above an earlier floor, whose next second a token may have been issued at)."""
    earlier = floor_of(runtime, player_id)
    floor = answered_s if earlier is None else max(answered_s, earlier + 1)
    runtime.erasures.put_token_floor(_key(runtime, player_id), floor, floor + FLOOR_SECONDS)


def refuse_issued_before(runtime: Runtime, claims: dict[str, Any]) -> None:
    """401 for a verified player or run token of a player whose erasure answered after it was issued."""
    floor = floor_of(runtime, claims["sub"])
    if floor is not None and int(claims["iat"]) <= floor:
        raise Unauthorized(ERASED_TOKEN)


def issue_time(runtime: Runtime, player_id: str, now: float) -> float:
    """When to issue a new player token of the player (epoch seconds): `now`, or the second after their floor."""
    floor = floor_of(runtime, player_id)
    return now if floor is None else max(now, floor + 1)
