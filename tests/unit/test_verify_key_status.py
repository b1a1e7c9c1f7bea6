"""The verifier and a key's status in the JWKS: a retired key verifies only what it signed before its
`retired_at` (a receipt's signed `at` and `iat`, a summary's `closed_at`), a revoked key verifies nothing, whatever
date its payload carries; each refusal names the key, the field and the times. Spec vectors:
tests/support/proof_vectors.py."""

from __future__ import annotations

import pytest

from tests.support.proof_vectors import SigningKey, closing_summary, jwks, sign_summary, tournament, verify_files

RETIRED_AT = "2026-12-02T05:00:00.000Z"
BEFORE = ("2026-12-02T04:59:59.999Z", 1796187599)  # `at` and `iat` a moment before RETIRED_AT
AT_RETIREMENT = ("2026-12-02T05:00:00.000Z", 1796187600)
AFTER = ("2026-12-09T12:00:00.000Z", 1796817600)  # a week after: what a thief signs with a leaked key
LOG = tournament()  # one log: its player commitments are random


@pytest.fixture
def verify(tmp_path):
    """The verifier on files: the tournament's log, a JWKS, a summary and receipts; (exit status, lines)."""

    def verify(key_set, receipts=(), summary=None):
        return verify_files(tmp_path, LOG.export(), key_set, summary, receipts)

    return verify


def failures(lines):
    return [line for line in lines if line.startswith("FAIL")]


def receipt(key: SigningKey, when: tuple[str, int]) -> str:
    """Erin's true receipt (rank 1 at seq 6) as `key` signs it, dated `when`."""
    payload = LOG.receipt_payload("erin", 1, 130, 4, 6)
    return key.sign({**payload, "at": when[0], "iat": when[1]})


def test_a_receipt_dated_after_its_keys_retired_at_is_refused(verify):
    """The leaked-key forgery: true in every other respect, signed after the rotation. Before the fix
    the verifier never compared the signed time with retired_at and printed VERIFIED."""
    current, old = SigningKey(), SigningKey()
    status, lines = verify(jwks(current, old, retired_at=RETIRED_AT), receipts=[receipt(old, AFTER)])
    assert status == 1, lines
    assert failures(lines) == [
        f"FAIL receipt 1 signature: at {AFTER[0]} is at or after key {old.kid}'s retired_at {RETIRED_AT}: a retired "
        "key signs nothing after it (a forgery, or a key still in use)"
    ]
    assert lines[-1].startswith("NOT VERIFIED"), lines


def test_a_receipt_dated_at_the_retirement_itself_is_refused(verify):
    current, old = SigningKey(), SigningKey()
    status, lines = verify(jwks(current, old), receipts=[receipt(old, AT_RETIREMENT)])
    assert status == 1 and len(failures(lines)) == 1, lines
    assert f"at {AT_RETIREMENT[0]} is at or after key {old.kid}'s retired_at {RETIRED_AT}" in failures(lines)[0]


def test_a_receipt_whose_iat_is_after_the_retirement_is_refused_though_its_at_is_before(verify):
    """Both signed times count: a payload cannot pass on the earlier of two."""
    current, old = SigningKey(), SigningKey()
    status, lines = verify(jwks(current, old), receipts=[receipt(old, (BEFORE[0], AFTER[1]))])
    assert failures(lines) == [
        f"FAIL receipt 1 signature: iat {AFTER[1]} (2026-12-09T12:00:00+00:00) is at or after key {old.kid}'s "
        f"retired_at {RETIRED_AT}: a retired key signs nothing after it (a forgery, or a key still in use)"
    ]


def test_a_receipt_dated_before_its_keys_retired_at_verifies(verify):
    current, old = SigningKey(), SigningKey()
    status, lines = verify(jwks(current, old), receipts=[receipt(old, BEFORE)])
    assert status == 0, lines
    assert (
        f"ok   receipt 1 signature: EdDSA by key {old.kid}, listed as retired at {RETIRED_AT}; signed at {BEFORE[0]}, "
        f"iat {BEFORE[1]} (2026-12-02T04:59:59+00:00), before it"
    ) in lines
    assert f"{old.kid} (retired at {RETIRED_AT})" in lines[0], lines


def test_a_summary_closed_after_its_keys_retired_at_is_refused_and_one_closed_before_verifies(verify):
    current, old = SigningKey(), SigningKey()
    good = closing_summary(LOG, old)  # closed at T[10], the day before RETIRED_AT
    status, lines = verify(jwks(current, old), summary=good)
    assert status == 0, lines
    late = sign_summary({**good, "closed_at": AFTER[0]}, old)
    status, lines = verify(jwks(current, old), summary=late)
    assert failures(lines) == [
        f"FAIL summary signature: closed_at {AFTER[0]} is at or after key {old.kid}'s retired_at {RETIRED_AT}: a "
        "retired key signs nothing after it (a forgery, or a key still in use)"
    ]


def test_anything_signed_by_a_revoked_key_is_refused_whatever_its_date(verify):
    current, leaked = SigningKey(), SigningKey()
    key_set = {
        "keys": [
            current.jwk("current"),
            leaked.jwk("revoked", retired_at=RETIRED_AT, revoked_at="2026-12-09T13:00:00.000Z"),
        ]
    }
    refusal = (
        f"signature: key {leaked.kid} is revoked (revoked_at 2026-12-09T13:00:00.000Z): nothing it signed verifies, "
        "whatever date it carries"
    )
    status, lines = verify(
        key_set, receipts=[receipt(leaked, BEFORE), receipt(leaked, AFTER)], summary=closing_summary(LOG, leaked)
    )
    assert status == 1, lines
    assert failures(lines) == [f"FAIL summary {refusal}", f"FAIL receipt 1 {refusal}", f"FAIL receipt 2 {refusal}"]
    assert f"{leaked.kid} (revoked at 2026-12-09T13:00:00.000Z)" in lines[0], lines
    status, lines = verify(key_set, receipts=[receipt(current, AFTER)])  # the current key is untouched
    assert status == 0, lines


def test_a_retired_key_without_retired_at_verifies_nothing(verify):
    """A JWKS that does not say when a key retired gives no time to compare with: refused, not trusted for ever."""
    current, old = SigningKey(), SigningKey()
    key_set = {"keys": [current.jwk("current"), old.jwk("retired")]}
    status, lines = verify(key_set, receipts=[receipt(old, BEFORE)])
    assert failures(lines) == [
        f"FAIL receipt 1 signature: key {old.kid} is retired without a retired_at: nothing tells what it signed "
        "before retiring"
    ]


@pytest.mark.parametrize(
    ("jwk_times", "detail"),
    [
        ({"retired_at": "yesterday"}, "retired_at 'yesterday' is not an RFC 3339 date-time with an offset"),
        ({"retired_at": "2026-12-02T05:00:00"}, "retired_at '2026-12-02T05:00:00' is not an RFC 3339 date-time"),
        ({"revoked_at": 5}, "revoked_at 5 is not an RFC 3339 date-time with an offset"),
    ],
)
def test_a_jwks_with_a_bad_time_is_refused_naming_the_key_and_field(verify, jwk_times, detail):
    current, old = SigningKey(), SigningKey()
    key_set = {"keys": [current.jwk("current"), old.jwk("retired", **jwk_times)]}
    status, lines = verify(key_set, receipts=[receipt(current, BEFORE)])
    assert status == 1, lines
    assert lines[0].startswith(f"FAIL keys: {lines[0].split(': ')[1]}: key {old.kid}: {detail}"), lines


def test_an_unknown_status_is_refused(verify):
    current, old = SigningKey(), SigningKey()
    status, lines = verify(
        {"keys": [current.jwk("current"), old.jwk("compromised")]}, receipts=[receipt(current, BEFORE)]
    )
    assert status == 1
    assert lines[0].endswith(f"key {old.kid}: status 'compromised' is not one of current, retired, revoked"), lines
