"""Checking a compact JWS (EdDSA) against a JWKS with `cryptography`, from the published keys alone, as a player's or
auditor's tool would (the functions sign with `cryptography` too; PyJWT checks a receipt in test_ed25519.py)."""

from __future__ import annotations

import base64
import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey


class Refused(Exception):
    """The token does not verify: why."""


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def header_and_payload(token: str) -> tuple[dict[str, Any], dict[str, Any]]:
    header, payload, _ = token.split(".")
    return json.loads(_b64(header)), json.loads(_b64(payload))


def verify(token: str, jwks: dict[str, Any]) -> dict[str, Any]:
    """The payload of `token` if a key of `jwks` named by its kid signed it (EdDSA); else Refused."""
    header_b64, payload_b64, signature_b64 = token.split(".")
    header = json.loads(_b64(header_b64))
    if header.get("alg") != "EdDSA" or header.get("typ") != "JWT":
        raise Refused(f"not an EdDSA JWT: {header}")
    key = next((k for k in jwks["keys"] if k["kid"] == header.get("kid")), None)
    if key is None:
        raise Refused(f"unknown kid {header.get('kid')}")
    if key.get("status") == "revoked":  # a leaked key: nothing it signed counts (retired_at: leaderboard_verify)
        raise Refused(f"revoked kid {key['kid']}")
    if (key["kty"], key["crv"], key["alg"]) != ("OKP", "Ed25519", "EdDSA"):
        raise Refused(f"not an Ed25519 key: {key}")
    try:
        Ed25519PublicKey.from_public_bytes(_b64(key["x"])).verify(
            _b64(signature_b64), f"{header_b64}.{payload_b64}".encode("ascii")
        )
    except InvalidSignature:
        raise Refused("bad signature") from None
    return json.loads(_b64(payload_b64))
