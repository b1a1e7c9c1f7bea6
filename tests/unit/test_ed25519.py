"""Receipt and closing-summary signatures come from `cryptography`'s Ed25519, with the key format and the JWS/JWKS
wire format of the signer it replaced (a hand-written module, removed): a key set already in Secrets Manager gives
the same key id, public key and, Ed25519 being deterministic, the same signatures byte for byte.

Checked against RFC 8032's vectors, against vectors the removed signer produced, and by a stranger's
tool: PyJWT verifying a receipt with the key the JWKS publishes."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import jwt
import pytest

from cdk_leaderboard_lambda.domain import receipt_keys

PACKAGE = Path(receipt_keys.__file__).resolve().parents[1]

# RFC 8032 section 7.1, TEST 1 and TEST 3: secret key, public key, message, signature.
VECTORS = (
    (
        "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "",
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe2"
        "4655141438e7a100b",
    ),
    (
        "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "af82",
        "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28"
        "dc027beceea1ec40a",
    ),
)

# What the removed hand-written signer made of this stored key set (computed with it at 6190799): the document format
# in Secrets Manager, the key id, the JWKS entry and a compact JWS of a payload with a non-ASCII string.
STORED = json.dumps({"seed": "receipt-seed-" + "x" * 40, "retired": []})
STORED_KID = "67b857f97d033ba5"
STORED_X = "uDBx4Bba3YoPdPFnm1aY8UnFsSq89r9yfB2AOSK57c4"
PAYLOAD = {"board_id": "race", "rank": 1, "player_id": "Zoë"}
STORED_JWS = (
    "eyJhbGciOiJFZERTQSIsImtpZCI6IjY3Yjg1N2Y5N2QwMzNiYTUiLCJ0eXAiOiJKV1QifQ"
    ".eyJib2FyZF9pZCI6InJhY2UiLCJyYW5rIjoxLCJwbGF5ZXJfaWQiOiJab8OrIn0"
    ".l8i3CmIV0uSRlJ5AG-amYl6Om_n07fjrFKmGZ0UrrMtB2SPdOHhfS4L_US7koj1bkUbNDjJAxw6xVJgRmXrfAg"
)


@pytest.mark.parametrize(("secret", "public", "message", "signature"), VECTORS)
def test_rfc8032_vectors(secret, public, message, signature):
    """The RFC's own keys, messages and signatures, through the functions' signing key."""
    key = receipt_keys.SigningKey.from_seed(bytes.fromhex(secret))
    assert key.public.hex() == public
    assert key.sign(bytes.fromhex(message)).hex() == signature


def test_a_stored_key_set_signs_as_before_byte_for_byte():
    """Secrets written before the change load to the same key: same kid, same JWKS, same signature."""
    keys = receipt_keys.KeySet.parse(STORED)
    assert keys.current.kid == STORED_KID
    assert keys.jwks() == {
        "keys": [{"kty": "OKP", "crv": "Ed25519", "x": STORED_X, "kid": STORED_KID, "alg": "EdDSA", "use": "sig",
                  "status": "current"}]
    }  # fmt: skip
    assert keys.sign_compact(PAYLOAD) == STORED_JWS


def test_a_receipt_verifies_with_pyjwt_and_the_published_key():
    """A stranger's check: PyJWT with the JWKS's key (RFC 8037 OKP), the EdDSA algorithm only."""
    keys = receipt_keys.KeySet.parse(STORED)
    (published,) = keys.jwks()["keys"]
    key = jwt.PyJWK(published, algorithm="EdDSA")
    assert jwt.decode(keys.sign_compact(PAYLOAD), key, algorithms=["EdDSA"]) == PAYLOAD
    tampered = keys.sign_compact({**PAYLOAD, "rank": 2}).rsplit(".", 1)[0] + "." + STORED_JWS.rsplit(".", 1)[1]
    with pytest.raises(jwt.InvalidSignatureError):
        jwt.decode(tampered, key, algorithms=["EdDSA"])


def test_a_seed_of_another_length_is_refused():
    with pytest.raises(ValueError, match="32 bytes"):
        receipt_keys.SigningKey.from_seed(b"short")


def test_signing_is_cryptographys_and_no_curve_code_or_vendored_copy_is_left():
    """The package signs through `cryptography` and holds no Ed25519 module nor a vendor/ folder of copied
    releases: third-party code is installed from requirements-lambda.txt (tests/infra/test_lambda_asset.py)."""
    imported = set()
    for node in ast.walk(ast.parse(Path(receipt_keys.__file__).read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
    assert "cryptography.hazmat.primitives.asymmetric.ed25519" in imported
    files = [p.relative_to(PACKAGE) for p in PACKAGE.rglob("*.py")]
    assert not [f for f in files if "vendor" in f.parts or f.name == "ed25519.py"], files
