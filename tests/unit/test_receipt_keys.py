"""The receipt signing key set: its document, the JWKS, signing, rotation (retired keys stay listed and their
signatures still verify) and how long an instance keeps it. Signatures are checked with `cryptography`."""

from __future__ import annotations

import hashlib
import json

import pytest

from cdk_leaderboard_lambda.domain import receipt_keys
from cdk_leaderboard_lambda.domain.receipt_keys import CachedKeySet, KeySet
from cdk_leaderboard_lambda.shared.clock import SettableClock
from cdk_leaderboard_lambda.shared.settings import Settings
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


def test_revocation_lists_a_retired_key_as_revoked_and_rotation_keeps_it_so():
    """revoked(...) adds revoked_at to a retired key's entry; the JWKS lists it as revoked with both times;
    a second revocation keeps the first time; a later rotation carries the entry over unchanged."""
    second = receipt_keys.rotated(SEED, SEED_TWO, "2026-12-02T03:00:00.000Z")
    old = KeySet.parse(SEED).current.kid
    revoked = receipt_keys.revoked(second, old, "2026-12-05T00:00:00.000Z")
    assert json.loads(revoked)["seed"] == SEED_TWO
    listed = KeySet.parse(revoked).jwks()["keys"]
    assert [(k["kid"], k["status"]) for k in listed] == [
        (KeySet.parse(SEED_TWO).current.kid, "current"),
        (old, "revoked"),
    ]
    assert (listed[1]["retired_at"], listed[1]["revoked_at"]) == (
        "2026-12-02T03:00:00.000Z",
        "2026-12-05T00:00:00.000Z",
    )
    assert receipt_keys.revoked(revoked, old, "2026-12-06T00:00:00.000Z") == revoked
    third = KeySet.parse(receipt_keys.rotated(revoked, SEED_THREE, "2026-12-07T00:00:00.000Z")).jwks()["keys"]
    assert [k["status"] for k in third] == ["current", "retired", "revoked"]
    assert third[2] == listed[1]


def test_the_current_key_or_an_unlisted_one_cannot_be_revoked():
    """The current key must be rotated out first (ops does both); a kid the key set does not hold is refused."""
    document = receipt_keys.rotated(SEED, SEED_TWO, "2026-12-02T03:00:00.000Z")
    with pytest.raises(receipt_keys.RevocationRefused, match="is the current key: rotate it out first"):
        receipt_keys.revoked(document, KeySet.parse(SEED_TWO).current.kid, "2026-12-05T00:00:00.000Z")
    with pytest.raises(receipt_keys.RevocationRefused, match="is not a retired key of this key set"):
        receipt_keys.revoked(document, "0123456789abcdef", "2026-12-05T00:00:00.000Z")


def test_a_document_listing_its_own_signing_key_as_retired_is_refused():
    """The functions never sign with a key the JWKS calls retired or revoked: such a document is not read."""
    retired_self = json.loads(receipt_keys.rotated(SEED, SEED_TWO, "2026-12-02T03:00:00.000Z"))
    retired_self["seed"] = SEED
    with pytest.raises(RuntimeError, match="also listed as retired or revoked"):
        KeySet.parse(json.dumps(retired_self))


def test_a_document_written_before_revocation_existed_reads_as_it_did():
    """An old secret's entries ({"kid", "x", "retired_at"}) are retired keys with their time; an entry without
    retired_at (only a hand-written one) is listed as retired without it, which verifiers refuse to trust."""
    x = KeySet.parse(SEED).jwks()["keys"][0]["x"]
    document = {"seed": SEED_TWO, "retired": [{"kid": "k", "x": x, "retired_at": "2026-12-02T03:00:00.000Z"}]}
    (_, old) = KeySet.parse(json.dumps(document)).jwks()["keys"]
    assert (old["status"], old["retired_at"]) == ("retired", "2026-12-02T03:00:00.000Z") and "revoked_at" not in old
    document["retired"][0].pop("retired_at")
    (_, undated) = KeySet.parse(json.dumps(document)).jwks()["keys"]
    assert undated["status"] == "retired" and "retired_at" not in undated
