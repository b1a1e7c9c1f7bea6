"""The deployment's Ed25519 key that signs receipts and closing summaries, its retired keys, and the JWKS.

The key set is one JSON document: the Secrets Manager secret `ReceiptSigningSecretArn` on AWS, the setting
RECEIPT_SIGNING_KEY locally (the same document, or a bare seed):

    {"seed": "<64 random characters>",
     "retired": [{"kid": ..., "x": ..., "retired_at": ..., "revoked_at"?: ...}, ...]}

The private key is SHA-256 of the seed's UTF-8 bytes (so the stack can generate the seed like any other secret);
retired keys are kept as their public half only, so the functions can sign with the current key and nothing else
(a document whose seed is also listed as retired is refused). The JWKS lists each old key with its status:
"retired" (with `retired_at`: what it signed before then verifies, nothing after) or, once an entry has
`revoked_at`, "revoked" (it verifies nothing: a leaked key). A key's id is the first 16 hex digits of SHA-256 of
its raw public key. Rotation (ops/receipt_key.py, `make rotate-receipt-key`) puts a new document: a new seed, the
old key added to `retired`; revocation (`make revoke-receipt-key KID=...`) adds `revoked_at` to a listed entry.
An entry without `retired_at` (only a hand-written one: every rotation has written it) is listed as retired
without it, and verifiers refuse its signatures, having no time to compare them with (docs/PROVING.md).

A function instance keeps the key set for REFRESH_SECONDS (keyring.py's period): after a rotation, an instance
may sign with the old key that long, so a rotation dates the old key's retirement that much later.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..shared.settings import Settings
from .keyring import REFRESH_SECONDS
from .ports import SecretStore

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

ALGORITHM = "EdDSA"
MIN_SEED_CHARS = 32


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def kid_of(public: bytes) -> str:
    return hashlib.sha256(public).hexdigest()[:16]


def public_jwk(public: bytes, status: str) -> dict[str, str]:
    """A key as RFC 8037 writes it, with its status ("current", "retired" or "revoked")."""
    return {
        "kty": "OKP",
        "crv": "Ed25519",
        "x": b64url(public),
        "kid": kid_of(public),
        "alg": ALGORITHM,
        "use": "sig",
        "status": status,
    }


@dataclass(frozen=True)
class SigningKey:
    seed: bytes  # the 32-byte Ed25519 private key (RFC 8032's secret key)
    public: bytes
    kid: str
    private: Ed25519PrivateKey = dataclasses.field(repr=False, compare=False)

    @classmethod
    def from_seed(cls, seed: bytes) -> SigningKey:
        """The key whose 32-byte RFC 8032 secret is `seed` (cryptography refuses any other length)."""
        # on first use: only the functions that sign pay the import, and only when they first sign
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        private = Ed25519PrivateKey.from_private_bytes(seed)
        public = private.public_key().public_bytes_raw()
        return cls(seed, public, kid_of(public), private)

    @classmethod
    def from_seed_text(cls, text: str) -> SigningKey:
        if len(text) < MIN_SEED_CHARS:
            raise RuntimeError(f"the receipt signing key's seed is shorter than {MIN_SEED_CHARS} characters")
        return cls.from_seed(hashlib.sha256(text.encode()).digest())

    def sign(self, message: bytes) -> bytes:
        """Ed25519 (RFC 8032, deterministic: the same key and message give the same 64 bytes)."""
        return self.private.sign(message)


@dataclass(frozen=True)
class KeySet:
    current: SigningKey
    retired: tuple[dict[str, Any], ...] = ()  # public JWKs (with retired_at where known)

    @classmethod
    def parse(cls, text: str) -> KeySet:
        """The key set of a secret's value: the JSON document above, or a bare seed (no retired keys)."""
        try:
            document = json.loads(text)
        except ValueError:
            document = None
        if not isinstance(document, dict):
            return cls(SigningKey.from_seed_text(text))
        seed, retired = document.get("seed"), document.get("retired", [])
        if not isinstance(seed, str) or not isinstance(retired, list):
            raise RuntimeError('the receipt signing key is not {"seed": "...", "retired": [...]}')
        keys = cls(SigningKey.from_seed_text(seed), tuple(_retired_jwk(k) for k in retired))
        if any(jwk["kid"] == keys.current.kid for jwk in keys.retired):
            # the key would sign what the JWKS says it no longer may: refuse rather than publish a contradiction
            raise RuntimeError(f"the receipt signing key {keys.current.kid} is also listed as retired or revoked")
        return keys

    def jwks(self) -> dict[str, list[dict[str, Any]]]:
        """The public keys: the current one first, then the retired and revoked ones (newest first)."""
        current = public_jwk(self.current.public, "current")
        seen = {current["kid"]}
        keys: list[dict[str, Any]] = [current]
        for jwk in reversed(self.retired):
            if jwk["kid"] not in seen:
                seen.add(jwk["kid"])
                keys.append(jwk)
        return {"keys": keys}

    def revoked_kids(self) -> frozenset[str]:
        return frozenset(jwk["kid"] for jwk in self.retired if jwk["status"] == "revoked")

    def sign_compact(self, payload: Mapping[str, Any]) -> str:
        """A compact JWS (RFC 7515) of `payload` as JSON, header {"alg": "EdDSA", "kid", "typ": "JWT"}."""
        header = {"alg": ALGORITHM, "kid": self.current.kid, "typ": "JWT"}
        signing_input = ".".join(
            b64url(json.dumps(part, separators=(",", ":"), ensure_ascii=False).encode()) for part in (header, payload)
        )
        return f"{signing_input}.{b64url(self.current.sign(signing_input.encode('ascii')))}"


def kid_of_token(token: str) -> str | None:
    """The kid a compact JWS's header names (None for anything else): which key signed a stored signature."""
    part = token.split(".")[0]
    try:
        header = json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))
    except ValueError:
        return None
    kid = header.get("kid") if isinstance(header, dict) else None
    return kid if isinstance(kid, str) else None


ENTRY_FIELDS = ("kid", "x", "retired_at", "revoked_at")  # what the document keeps of an old key


def _retired_jwk(entry: object) -> dict[str, Any]:
    if not isinstance(entry, dict) or not isinstance(entry.get("x"), str):
        raise RuntimeError('a retired receipt key is not {"x": "<base64url public key>", ...}')
    public = base64.urlsafe_b64decode(entry["x"] + "=" * (-len(entry["x"]) % 4))
    if len(public) != 32:
        raise RuntimeError("a retired receipt key is not 32 bytes")
    for field in ("retired_at", "revoked_at"):
        if field in entry and not isinstance(entry[field], str):
            raise RuntimeError(f"a retired receipt key's {field} is not an RFC 3339 time")
    jwk: dict[str, Any] = public_jwk(public, "revoked" if "revoked_at" in entry else "retired")
    jwk.update({field: entry[field] for field in ("retired_at", "revoked_at") if field in entry})
    return jwk


def _document(before: KeySet, seed: str) -> str:
    retired = [{k: v for k, v in jwk.items() if k in ENTRY_FIELDS} for jwk in before.retired]
    after = json.dumps({"seed": seed, "retired": retired}, separators=(",", ":"))
    KeySet.parse(after)  # refuse to write what the functions could not read
    return after


def rotated(document_text: str, new_seed: str, retired_at: str) -> str:
    """The key set document after a rotation: `new_seed` signs, the current key joins the retired ones."""
    before = KeySet.parse(document_text)
    old = {**public_jwk(before.current.public, "retired"), "retired_at": retired_at}
    return _document(KeySet(before.current, (*before.retired, old)), new_seed)


class RevocationRefused(RuntimeError):
    """A revocation refused: of the current key (rotate it out first), or of a kid the key set does not hold."""


def revoked(document_text: str, kid: str, revoked_at: str) -> str:
    """The key set document with the retired key `kid` revoked at `revoked_at` (the current key cannot be: it must
    be rotated out first). An entry revoked already keeps its first time."""
    before = KeySet.parse(document_text)
    if kid == before.current.kid:
        raise RevocationRefused(f"key {kid} is the current key: rotate it out first, then revoke it")
    listed = [jwk["kid"] for jwk in before.retired]
    if kid not in listed:
        raise RevocationRefused(f"key {kid} is not a retired key of this key set (retired: {', '.join(listed)})")
    retired = tuple(
        {**jwk, "status": "revoked", "revoked_at": jwk.get("revoked_at", revoked_at)} if jwk["kid"] == kid else jwk
        for jwk in before.retired
    )
    return _document(KeySet(before.current, retired), json.loads(document_text)["seed"])


def load(settings: Settings, secrets: SecretStore) -> KeySet:
    """The key set as the settings give it, or read from its secret (on AWS)."""
    if settings.receipt_signing_key:
        return KeySet.parse(settings.receipt_signing_key)
    if settings.receipt_signing_secret_arn:
        return KeySet.parse(secrets.value(settings.receipt_signing_secret_arn))
    raise RuntimeError("no receipt signing key: set RECEIPT_SIGNING_KEY or RECEIPT_SIGNING_SECRET_ARN")


class CachedKeySet:
    """A key set read through `load` on first use and again after REFRESH_SECONDS."""

    def __init__(self, load: Callable[[], KeySet], clock: Callable[[], float] = time.monotonic) -> None:
        self._load, self._clock = load, clock
        self._keys: KeySet | None = None
        self._read_at = 0.0
        self._lock = threading.Lock()

    def get(self) -> KeySet:
        with self._lock:
            if self._keys is None or self._clock() - self._read_at >= REFRESH_SECONDS:
                self._keys, self._read_at = self._load(), self._clock()
            return self._keys
