"""Player tokens and run tokens: JSON Web Tokens (PyJWT) signed HS256 with the deployment's token key.

- A player token (POST /players/{player_id}/tokens, the game key) lets one player start runs: `aud`
  leaderboard:player, `sub` the player id, `boards` (optional) the boards it is limited to; it lives at most 24 h.
- A run token (POST /leaderboards/{board}/runs, a player token) lets that player submit one score to that board:
  `aud` leaderboard:run, `sub` the player id, `board`, `run` (the run id); it lives RUN_SECONDS.

Every token names its signing key in the header (`kid`) and the deployment in `iss`. PyJWT checks the signature
(HS256 only: the algorithm allow-list refuses `none` and every other algorithm), the audience, the issuer and the
required claims; this module checks the times against its own clock (so tests can move it) with LEEWAY_SECONDS for
clocks that differ a little between machines: expired means `now >= exp + leeway`; issued in the future means
`iat > now + leeway`.

Keys rotate (keyring.py): the secret's current version signs, the previous one still verifies during its grace.

PyJWT is imported on a function's first token, not with this module: where `cryptography` is installed (the asset
ships it for the receipts' Ed25519), `import jwt` loads all of its algorithms, x509 included, which would add to every
function's cold start (docs/PERFORMANCE.md, "Cold-start imports").
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Any

from ..shared import limits
from ..shared.errors import Forbidden, Unauthorized
from ..shared.settings import Settings
from . import keyring
from .ports import SecretStore

ALGORITHM = "HS256"
PLAYER_AUDIENCE = "leaderboard:player"
RUN_AUDIENCE = "leaderboard:run"
LIVE_AUDIENCE = "leaderboard:live"  # live subscribe tokens (live_access.py)
LEEWAY_SECONDS = 30
LOCAL_KID = "local"  # the key id of a key given as is (local runs, tests)
_SHAPE = re.compile(limits.TOKEN_PATTERN)
_WHAT = MappingProxyType(
    {PLAYER_AUDIENCE: "a player token", RUN_AUDIENCE: "a run token", LIVE_AUDIENCE: "a live subscribe token"}
)

MALFORMED = "the bearer token is not a token this API issued"
ALTERED = "the bearer token's signature does not match: it was altered or not issued by this deployment"
UNKNOWN_KEY = "the bearer token is signed with a key this deployment does not know or no longer accepts: get a new one"
EXPIRED = "the bearer token has expired: get a new one"
FUTURE = "the bearer token is issued in the future: check the issuer's clock"


def load_ring(settings: Settings, secrets: SecretStore) -> keyring.Ring:
    """The signing keys as the settings give them, or read from their secret (on AWS)."""
    if settings.token_signing_key:
        return keyring.Ring(keyring.Key(LOCAL_KID, settings.token_signing_key))
    if settings.token_signing_secret_arn:
        return keyring.ring_from_secret(secrets, settings.token_signing_secret_arn, settings.token_key_grace_seconds)
    raise RuntimeError("no token signing key: set TOKEN_SIGNING_KEY (32+ characters) or TOKEN_SIGNING_SECRET_ARN")


def issue(
    keys: keyring.CachedRing,
    issuer: str,
    audience: str,
    subject: str,
    lifetime_seconds: int,
    claims: dict[str, Any] | None = None,
    *,
    now: float,
) -> tuple[str, int]:
    """A token for `subject` with `claims`, signed with the current key of `keys` (the runtime's token_keys) in the
    name of `issuer` (settings.token_issuer), issued at `now` (epoch seconds), and its expiry (epoch seconds)."""
    import jwt  # on first use: see the module's docstring

    key = keys.get().current
    issued = int(now)
    payload = {
        **(claims or {}),
        "iss": issuer,
        "aud": audience,
        "sub": subject,
        "iat": issued,
        "exp": issued + lifetime_seconds,
    }
    return jwt.encode(payload, key.value, algorithm=ALGORITHM, headers={"kid": key.kid}), payload["exp"]


def verify(keys: keyring.CachedRing, issuer: str, token: object, audience: str, *, now: float) -> dict[str, Any]:
    """The claims of a token `issuer` signed with one of `keys` for `audience`, still valid at `now` (epoch seconds);
    else 401 with why."""
    if not isinstance(token, str) or len(token) > limits.MAX_TOKEN_CHARS or not _SHAPE.fullmatch(token):
        raise Unauthorized(MALFORMED)
    import jwt  # on first use: see the module's docstring

    try:
        header = jwt.get_unverified_header(token)
    except jwt.PyJWTError:
        raise Unauthorized(MALFORMED) from None
    kid = header.get("kid")
    key = keys.get().find(kid, now) or keys.refreshed().find(kid, now)
    if key is None:
        raise Unauthorized(UNKNOWN_KEY)
    try:
        claims = jwt.decode(
            token,
            key.value,
            algorithms=[ALGORITHM],
            audience=audience,
            issuer=issuer,
            options={
                "require": ["iss", "aud", "sub", "iat", "exp"],
                "verify_exp": False,  # checked below against `now`
                "verify_iat": False,
                "verify_nbf": False,
                "strict_aud": True,  # aud is one string, exactly ours
                "enforce_minimum_key_length": True,
            },
        )
    except jwt.InvalidSignatureError:
        raise Unauthorized(ALTERED) from None
    except jwt.InvalidAudienceError:
        raise Unauthorized(f"the bearer token is not {_WHAT[audience]}") from None
    except jwt.InvalidIssuerError:
        raise Unauthorized("the bearer token is issued by another deployment") from None
    except jwt.PyJWTError:
        raise Unauthorized(MALFORMED) from None
    issued, expires = claims["iat"], claims["exp"]
    if not all(isinstance(t, int) and not isinstance(t, bool) for t in (issued, expires)):
        raise Unauthorized(MALFORMED)
    if issued > now + LEEWAY_SECONDS:
        raise Unauthorized(FUTURE)
    if now >= expires + LEEWAY_SECONDS:
        raise Unauthorized(EXPIRED)
    return claims


def bearer(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header (RFC 6750; the scheme is case-insensitive), None when
    there is no such header; 401 for another scheme or an empty token."""
    if authorization is None:
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized("the Authorization header must be `Bearer <token>`")
    return token.strip()


def player_claims(
    keys: keyring.CachedRing,
    issuer: str,
    authorization: str | None,
    player_id: str,
    board_id: str | None = None,
    *,
    now: float,
) -> dict[str, Any]:
    """The claims of the player token in `authorization`, which must be `player_id`'s and, if it is limited to
    boards and `board_id` is given, list `board_id`: a player reads their own receipt and held scores, no one
    else's (401 without a valid player token, 403 for another player's or another board's)."""
    token = bearer(authorization)
    if token is None:
        raise Unauthorized("this route needs `Authorization: Bearer <player token>` of the player")
    claims = verify(keys, issuer, token, PLAYER_AUDIENCE, now=now)
    if claims["sub"] != player_id:
        raise Forbidden("this player token is another player's: a player reads only their own")
    boards = claims.get("boards")
    if board_id is not None and boards is not None and board_id not in boards:
        raise Forbidden(f"this player token is limited to other boards than {board_id}")
    return claims
