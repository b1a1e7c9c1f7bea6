"""Compact JWS with EdDSA over Ed25519 (RFC 7515, RFC 8037), checked against a published JWKS: a key listed as
`current` or `retired` verifies (a retired one only what is dated before its `retired_at`: checks.py compares the
signed time); one listed as `revoked` verifies nothing; a kid the JWKS does not list is refused."""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


class Invalid(Exception):
    """A token or a key set that does not verify: the message says why."""


STATUSES = ("current", "retired", "revoked")


@dataclass(frozen=True)
class PublishedKey:
    kid: str
    status: str  # one of STATUSES
    key: Ed25519PublicKey
    retired_at: str | None = None  # as published (RFC 3339); a retired key without it verifies nothing
    revoked_at: str | None = None


def parse_time(text: object) -> datetime | None:
    """An RFC 3339 date-time with its offset (`2026-12-02T03:04:05.123Z`), None for anything else."""
    if not isinstance(text, str) or "T" not in text.upper():
        return None
    try:
        moment = datetime.fromisoformat(text.upper().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else None


@dataclass(frozen=True)
class Verified:
    header: dict[str, Any]
    payload: dict[str, Any]
    key: PublishedKey


def b64url_decode(text: str) -> bytes:
    if not isinstance(text, str) or "=" in text or "+" in text or "/" in text:
        raise Invalid("not base64url without padding")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError) as error:
        raise Invalid(f"not base64url: {error}") from None


def parse_jwks(document: object) -> dict[str, PublishedKey]:
    """The Ed25519 signing keys of a JWKS by kid (keys of other types are left out: none of them can verify)."""
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise Invalid('the key set is not a JWKS ({"keys": [...]})')
    keys: dict[str, PublishedKey] = {}
    for i, jwk in enumerate(document["keys"]):
        if not isinstance(jwk, dict) or jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
            continue
        kid = jwk.get("kid")
        if not isinstance(kid, str) or not kid:
            raise Invalid(f"key {i} has no kid")
        if kid in keys:
            raise Invalid(f"kid {kid} is listed twice")
        status = jwk.get("status", "current")
        if status not in STATUSES:
            raise Invalid(f"key {kid}: status {status!r} is not one of {', '.join(STATUSES)}")
        for field in ("retired_at", "revoked_at"):
            if field in jwk and parse_time(jwk[field]) is None:
                raise Invalid(f"key {kid}: {field} {jwk[field]!r} is not an RFC 3339 date-time with an offset")
        raw = b64url_decode(jwk.get("x", ""))
        if len(raw) != 32:
            raise Invalid(f"key {kid}: x is {len(raw)} bytes, an Ed25519 public key is 32")
        public = Ed25519PublicKey.from_public_bytes(raw)
        keys[kid] = PublishedKey(kid, status, public, jwk.get("retired_at"), jwk.get("revoked_at"))
    if not keys:
        raise Invalid("the key set lists no Ed25519 key")
    return keys


def _json_part(text: str, what: str) -> dict[str, Any]:
    try:
        value = json.loads(b64url_decode(text))
    except (Invalid, ValueError) as error:
        raise Invalid(f"the {what} is not base64url JSON ({error})") from None
    if not isinstance(value, dict):
        raise Invalid(f"the {what} is not a JSON object")
    return value


def verify(token: str, keys: dict[str, PublishedKey]) -> Verified:
    """Check a compact JWS's header (EdDSA, a kid), find its key and check the signature over header.payload."""
    if not isinstance(token, str) or token.count(".") != 2:
        raise Invalid("not a compact JWS (three base64url parts joined by dots)")
    header_part, payload_part, signature_part = token.strip().split(".")
    header = _json_part(header_part, "header")
    if header.get("alg") != "EdDSA":
        raise Invalid(f"alg is {header.get('alg')!r}, not EdDSA")
    if "crit" in header:
        raise Invalid(f"the header names critical extensions this check does not know: {header['crit']}")
    kid = header.get("kid")
    if not isinstance(kid, str):
        raise Invalid("the header has no kid")
    if kid not in keys:
        raise Invalid(f"kid {kid} is not in the published keys (listed: {', '.join(sorted(keys))})")
    published = keys[kid]
    try:
        published.key.verify(b64url_decode(signature_part), f"{header_part}.{payload_part}".encode("ascii"))
    except (InvalidSignature, Invalid):
        raise Invalid(f"the signature does not verify with key {kid}") from None
    return Verified(header, _json_part(payload_part, "payload"), published)
