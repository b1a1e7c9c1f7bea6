"""A receipt checked against the served JWKS (docs/PROVING.md, "Receipts" and "Keys, rotation and revocation"), with
PyJWT and `cryptography` (Ed25519): a compact JWS, header {"alg": "EdDSA", "kid", "typ": "JWT"}, signed by a key the
JWKS lists. What each key status verifies:
  - current: everything it signs;
  - retired: only what is dated before its `retired_at` (the payload's `at` and `iat`); without `retired_at`, nothing;
  - revoked: nothing, whatever date the payload carries;
  - a kid the JWKS does not list: nothing.
This checks the signature and the key's status, not the rank against the log: that is the construct's verifier's
replay (`python -m leaderboard_verify --receipt`). The same rules as the TypeScript SDK's verifyReceipt."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import jwt

Reason = Literal["malformed", "unknown_key", "signature", "revoked", "retired", "claims"]

INTEGER_CLAIMS = ("rank", "score", "total_players", "seq", "iat")
TEXT_CLAIMS = ("board_id", "generation", "period_id", "player_id", "player", "order", "head_hash", "at")


class ReceiptError(Exception):
    """A receipt that does not verify: `reason` says which check refused it."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(f"receipt refused ({reason}): {message}")
        self.reason = reason


@dataclass(frozen=True)
class VerifiedReceipt:
    """A receipt that verified: what it signs (docs/PROVING.md, "Receipts"), and the key that signed it."""

    claims: dict[str, Any]
    kid: str
    key_status: str


def _moment(text: object) -> datetime | None:
    """An RFC 3339 date-time with its offset; None for anything else."""
    if not isinstance(text, str) or "T" not in text:
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


def _keys(jwks: Any) -> list[Mapping[str, Any]]:
    """The JWKS's keys, from the generated Jwks model (lb.jwks()) or its JSON as served."""
    document = jwks.to_dict() if hasattr(jwks, "to_dict") else jwks
    keys = document.get("keys") if isinstance(document, Mapping) else None
    return [k for k in keys if isinstance(k, Mapping)] if isinstance(keys, list) else []


def _checked_claims(claims: dict[str, Any]) -> dict[str, Any]:
    for field in INTEGER_CLAIMS:
        if not isinstance(claims.get(field), int) or isinstance(claims.get(field), bool):
            raise ReceiptError("claims", f"{field} is not an integer")
    for field in TEXT_CLAIMS:
        if not isinstance(claims.get(field), str):
            raise ReceiptError("claims", f"{field} is not text")
    if _moment(claims["at"]) is None:
        raise ReceiptError("claims", f"at {json.dumps(claims['at'])} is not an RFC 3339 time")
    return claims


def verify_receipt(receipt: Any, jwks: Any) -> VerifiedReceipt:
    """Verifies a receipt (its compact JWS, or the generated Receipt model `lb.receipt()` answers) against a JWKS as
    `GET /.well-known/jwks.json` serves it (JSON, or the generated Jwks model): its claims, or ReceiptError (`reason`:
    malformed, unknown_key, signature, revoked, retired, claims)."""
    token = getattr(receipt, "receipt", receipt)
    if not isinstance(token, str) or token.count(".") != 2:
        raise ReceiptError("malformed", "not a compact JWS (three base64url parts)")
    try:
        header = jwt.get_unverified_header(token)
    except jwt.DecodeError:
        raise ReceiptError("malformed", "the header is not base64url JSON") from None
    if header.get("alg") != "EdDSA":
        raise ReceiptError("malformed", f"alg {json.dumps(header.get('alg'))} is not EdDSA")
    kid = header.get("kid")
    key = next((k for k in _keys(jwks) if isinstance(kid, str) and k.get("kid") == kid), None)
    if key is None:
        raise ReceiptError("unknown_key", f"key {json.dumps(kid)} is not in the JWKS")
    status = key.get("status")
    if status == "revoked":
        raise ReceiptError("revoked", f"key {kid} is revoked (revoked_at {key.get('revoked_at', 'not given')})")
    if status not in ("current", "retired"):
        raise ReceiptError("unknown_key", f"key {kid} has status {json.dumps(status)}")
    try:
        public = jwt.PyJWK({"kty": key.get("kty"), "crv": key.get("crv"), "x": key.get("x")}, algorithm="EdDSA")
    except jwt.PyJWKError as error:
        raise ReceiptError("unknown_key", f"key {kid} is not an Ed25519 public key: {error}") from None
    try:
        # The signature only: a receipt has no exp, and its iat is checked against the key's retirement below
        claims = jwt.decode(
            token,
            public.key,
            algorithms=["EdDSA"],
            options={"verify_exp": False, "verify_nbf": False, "verify_iat": False, "verify_aud": False},
        )
    except jwt.InvalidSignatureError:
        raise ReceiptError("signature", f"the signature does not verify with key {kid}") from None
    except jwt.InvalidTokenError as error:
        raise ReceiptError("malformed", f"the payload is not a JSON object: {error}") from None
    claims = _checked_claims(claims)
    if status == "retired":
        retired_at = _moment(key.get("retired_at"))
        if retired_at is None:
            raise ReceiptError("retired", f"key {kid} is retired without a retired_at: it verifies nothing")
        at = _moment(claims["at"])
        assert at is not None  # _checked_claims
        if at >= retired_at or claims["iat"] >= retired_at.timestamp():
            raise ReceiptError(
                "retired",
                f"at {claims['at']} (iat {claims['iat']}) is at or after key {kid}'s retired_at {key['retired_at']}",
            )
    return VerifiedReceipt(claims=claims, kid=str(kid), key_status=str(status))
