"""The log's record format (hashchain.py): fixed by its spec, so these check it against the spec's own words (and
hashlib, hmac, json by hand), not against the code's helpers."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from cdk_leaderboard_lambda.domain import hashchain


def test_a_record_holds_exactly_the_spec_s_fields_and_its_hash_is_sha256_of_the_canonical_rest():
    record = hashchain.new_record(1, "0" * 64, 1_796_000_000_123, "score", 4200, "ab" * 32)
    assert list(record) == ["seq", "at", "kind", "score", "player", "prev_hash", "hash"]
    assert record["at"] == "2026-11-30T00:53:20.123Z"
    # RFC 8785 for this record by hand: keys sorted by UTF-16 code units, no whitespace, integers as they are.
    by_hand = (
        '{"at":"2026-11-30T00:53:20.123Z","kind":"score","player":"' + "ab" * 32 + '","prev_hash":"' + "0" * 64
    ) + '","score":4200,"seq":1}'
    assert hashchain.canonical({k: v for k, v in record.items() if k != "hash"}) == by_hand.encode()
    assert record["hash"] == hashlib.sha256(by_hand.encode()).hexdigest()


def test_a_null_score_and_text_outside_ascii_are_canonical_too():
    value = {"score": None, "z": "é", "a": 1.0}
    assert hashchain.canonical(value) == '{"a":1,"score":null,"z":"é"}'.encode()


def test_records_chain_from_64_zeros_and_each_links_to_the_one_before():
    records = hashchain.chain(None, [(1000, "score", 5, "a" * 64), (2000, "hide", 5, "a" * 64)])
    assert [r["seq"] for r in records] == [1, 2]
    assert records[0]["prev_hash"] == hashchain.GENESIS_HASH == "0" * 64
    assert records[1]["prev_hash"] == records[0]["hash"]
    later = hashchain.chain((2, records[1]["hash"]), [(3000, "show", 5, "a" * 64)])
    assert later[0]["seq"] == 3 and later[0]["prev_hash"] == records[1]["hash"]
    assert all(hashchain.record_hash(r) == r["hash"] for r in records + later)


def test_an_unknown_kind_is_refused():
    with pytest.raises(ValueError):
        hashchain.new_record(1, "0" * 64, 0, "rename", None, "a" * 64)


def test_the_commitment_is_hmac_sha256_of_board_period_and_player_with_the_player_s_key():
    key = bytes(range(32))
    expected = hmac.new(key, b"race\nweekly-2026-W49\nada", hashlib.sha256).hexdigest()
    assert hashchain.commitment(key, "race", "weekly-2026-W49", "ada") == expected
    assert hashchain.commitment(key, "race", "daily-2026-12-02", "ada") != expected  # per board period
    assert hashchain.commitment(bytes(32), "race", "weekly-2026-W49", "ada") != expected  # per key


def test_canonical_json_is_rfc8785s():
    """The records are hashed over rfc8785's canonical bytes (the installed package, requirements-lambda.txt)."""
    import rfc8785

    assert (
        hashchain.canonical({"b": [1, 2], "a": "x"}) == b'{"a":"x","b":[1,2]}' == rfc8785.dumps({"a": "x", "b": [1, 2]})
    )
