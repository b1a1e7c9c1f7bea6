"""The pure-Python Ed25519 signer against RFC 8032's vectors and, byte for byte, against `cryptography` (Ed25519
signatures are deterministic: the same key and message give the same 64 bytes in any correct implementation)."""

from __future__ import annotations

import random

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from cdk_leaderboard_lambda.domain import ed25519

# RFC 8032 section 7.1, TEST 1 and TEST 3.
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


@pytest.mark.parametrize(("secret", "public", "message", "signature"), VECTORS)
def test_rfc8032_vectors(secret, public, message, signature):
    """The RFC's own keys, messages and signatures."""
    seed = bytes.fromhex(secret)
    assert ed25519.public_key(seed).hex() == public
    assert ed25519.sign(seed, bytes.fromhex(message)).hex() == signature


def test_same_signatures_as_cryptography():
    """Random keys and messages (of every length up to 300 bytes): the same public key and signature as
    `cryptography`, and the signature verifies with it."""
    rng = random.Random(25)
    for length in range(0, 300, 7):
        seed, message = rng.randbytes(32), rng.randbytes(length)
        reference = Ed25519PrivateKey.from_private_bytes(seed)
        public = ed25519.public_key(seed)
        assert public == reference.public_key().public_bytes_raw()
        signature = ed25519.sign(seed, message, public)
        assert signature == reference.sign(message)
        Ed25519PublicKey.from_public_bytes(public).verify(signature, message)


def test_a_changed_message_does_not_verify():
    """The signature is over the message: one bit changed and `cryptography` refuses it."""
    seed = bytes(range(32))
    signature = ed25519.sign(seed, b"rank 1")
    with pytest.raises(InvalidSignature):
        Ed25519PublicKey.from_public_bytes(ed25519.public_key(seed)).verify(signature, b"rank 2")


def test_seed_must_be_32_bytes():
    with pytest.raises(ValueError, match="32 bytes"):
        ed25519.sign(b"short", b"m")
