"""The receipt signing key set: its document, the JWKS, signing, rotation (retired keys stay listed and their
signatures still verify) and how long an instance keeps it. Signatures are checked with `cryptography`."""

from __future__ import annotations

import hashlib
import json

import pytest

from leaderboard import receipt_keys
from leaderboard.clock import SettableClock
from leaderboard.receipt_keys import CachedKeySet, KeySet
from leaderboard.settings import Settings
from tests.support import jws

SEED = "receipt-seed-one-0123456789abcdefghijklmnopqrstuvwxyz"
SEED_TWO = "receipt-seed-two-0123456789abcdefghijklmnopqrstuvwxyz"
SEED_THREE = "receipt-seed-three-0123456789abcdefghijklmnopqrstuvwx"


def test_the_jwks_lists_the_current_key_as_rfc_8037_says():
    keys = KeySet.parse(json.dumps({"seed": SEED, "retired": []}))
    (jwk,) = keys.jwks()["keys"]
    assert set(jwk) == {"kty", "crv", "x", "kid", "alg", "use", "status"}
    assert (jwk["kty"], jwk["crv"], jwk["alg"], jwk["use"], jwk["status"]) == (
        "OKP",
        "Ed25519",
        "EdDSA",
        "sig",
        "current",
    )
    assert jwk["kid"] == hashlib.sha256(keys.current.public).hexdigest()[:16]


def test_a_bare_seed_is_a_key_set_without_retired_keys():
    """Local runs give RECEIPT_SIGNING_KEY as a plain random string."""
    assert KeySet.parse(SEED).jwks() == KeySet.parse(json.dumps({"seed": SEED})).jwks()


def test_a_signed_payload_verifies_with_cryptography():
    keys = KeySet.parse(SEED)
    token = keys.sign_compact({"rank": 1, "player_id": "p-ü"})
    header, _ = jws.header_and_payload(token)
    assert header == {"alg": "EdDSA", "kid": keys.current.kid, "typ": "JWT"}
    assert jws.verify(token, keys.jwks()) == {"rank": 1, "player_id": "p-ü"}


def test_rotation_retires_the_old_key_and_its_signatures_still_verify():
    """After two rotations the JWKS holds the new key (current) and both old ones (retired, newest first); a
    token signed before each rotation verifies against the new JWKS; the new document has no old seed."""
    first = json.dumps({"seed": SEED, "retired": []})
    before = KeySet.parse(first).sign_compact({"n": 1})
    second = receipt_keys.rotated(first, SEED_TWO, "2026-12-02T03:00:00.000Z")
    middle = KeySet.parse(second).sign_compact({"n": 2})
    third = receipt_keys.rotated(second, SEED_THREE, "2026-12-03T03:00:00.000Z")
    keys = KeySet.parse(third)
    listed = keys.jwks()["keys"]
    assert [k["status"] for k in listed] == ["current", "retired", "retired"]
    assert [k["kid"] for k in listed] == [
        keys.current.kid,
        KeySet.parse(SEED_TWO).current.kid,
        KeySet.parse(SEED).current.kid,
    ]
    assert listed[1]["retired_at"] == "2026-12-03T03:00:00.000Z"
    assert jws.verify(before, keys.jwks()) == {"n": 1}
    assert jws.verify(middle, keys.jwks()) == {"n": 2}
    assert SEED not in third and SEED_TWO not in third  # a retired key can no longer sign


def test_a_token_of_an_unknown_key_is_refused():
    """Signed by a key the deployment never had: its kid is not in the JWKS. With a known kid but another key's
    signature: the signature does not verify."""
    stranger = KeySet.parse(SEED_THREE).sign_compact({"rank": 1})
    ours = KeySet.parse(SEED).jwks()
    with pytest.raises(jws.Refused, match="unknown kid"):
        jws.verify(stranger, ours)
    forged_header = KeySet.parse(SEED).sign_compact({"rank": 1}).split(".")[0]
    forged = ".".join([forged_header, *stranger.split(".")[1:]])
    with pytest.raises(jws.Refused, match="bad signature"):
        jws.verify(forged, ours)


def test_an_altered_payload_is_refused():
    keys = KeySet.parse(SEED)
    header, _, signature = keys.sign_compact({"rank": 2}).split(".")
    other = keys.sign_compact({"rank": 1}).split(".")[1]
    with pytest.raises(jws.Refused, match="bad signature"):
        jws.verify(f"{header}.{other}.{signature}", keys.jwks())


@pytest.mark.parametrize(
    "document",
    ["short", json.dumps({"seed": 5}), json.dumps({"seed": SEED, "retired": [{"x": "AAAA"}]})],
)
def test_a_bad_document_is_refused(document):
    with pytest.raises(RuntimeError):
        KeySet.parse(document)


def test_rotating_a_bad_document_writes_nothing():
    with pytest.raises(RuntimeError):
        receipt_keys.rotated(SEED, "too-short", "2026-12-02T03:00:00.000Z")


def test_an_instance_rereads_the_key_set_after_the_refresh_period():
    """The key set is read on first use and again REFRESH_SECONDS later, not before (a settable clock)."""
    documents = [SEED, receipt_keys.rotated(SEED, SEED_TWO, "2026-12-02T03:00:00.000Z")]
    reads: list[str] = []
    clock = SettableClock()

    def load() -> KeySet:
        reads.append(documents[min(len(reads), 1)])
        return KeySet.parse(reads[-1])

    cached = CachedKeySet(load, clock=lambda: clock.now().timestamp())
    first = cached.get().current.kid
    clock.advance(receipt_keys.REFRESH_SECONDS - 1)
    assert cached.get().current.kid == first and len(reads) == 1
    clock.advance(1)
    assert cached.get().current.kid == KeySet.parse(SEED_TWO).current.kid and len(reads) == 2


def test_settings_give_the_key_or_its_secret():
    local = Settings.from_environment({"SCORES_TABLE": "t", "SNAPSHOTS_TABLE": "s", "RECEIPT_SIGNING_KEY": SEED})
    assert receipt_keys.load(local, lambda: None).current.kid == KeySet.parse(SEED).current.kid
    assert SEED not in repr(local)
    nothing = Settings.from_environment({"SCORES_TABLE": "t", "SNAPSHOTS_TABLE": "s"})
    with pytest.raises(RuntimeError, match="no receipt signing key"):
        receipt_keys.load(nothing, lambda: None)
