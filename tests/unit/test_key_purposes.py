"""One key, one purpose: the keyed hashes that name players' items depend on the digest key only, never
on the page-cursor key, which rotates; cursor tags use a key derived from the secret's value, never the value (outside
production that value is the token signing key); a missing digest key is a clear error; a local stack kept across
runs (`--persist`) keeps its digest key."""

from __future__ import annotations

import hashlib
import hmac
import stat

import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.domain import cursors
from cdk_leaderboard_lambda.shared import item_keys
from cdk_leaderboard_lambda.shared.errors import BadRequest
from local.keys import kept_digest_key
from tests.unit.conftest import CURSOR_SECRET

PLAYER = "ada"


def _names(runtime: Runtime) -> tuple[str, ...]:
    secret = runtime.digest_key.value()
    return (
        item_keys.log_key_partition(secret, PLAYER),
        item_keys.runs_partition(secret, PLAYER),
        item_keys.pending_of_partition(secret, PLAYER),
        item_keys.rate_partition(secret, PLAYER),
        item_keys.erasing_key(secret, PLAYER)[0],
    )


def test_a_new_cursor_key_moves_no_players_partition_and_a_new_digest_key_moves_them_all(
    in_memory, monkeypatch, reconfigure
):
    before = _names(in_memory)
    monkeypatch.setenv("CURSOR_SECRET", "a-rotated-cursor-key-0123456789")
    assert _names(reconfigure()) == before  # what broke erasure and the log before: these moved with the cursor secret
    monkeypatch.setenv("DIGEST_KEY", "another-digest-key-0123456789")
    after = _names(reconfigure())
    assert all(a != b for a, b in zip(after, before, strict=True))  # it is the digest key that names them
    assert all(PLAYER not in name for name in after)


def test_without_a_digest_key_the_functions_say_what_to_set(in_memory, monkeypatch, reconfigure):
    monkeypatch.delenv("DIGEST_KEY")
    runtime = reconfigure()
    with pytest.raises(RuntimeError, match="no digest key: set DIGEST_KEY .* or DIGEST_KEY_SECRET_ARN"):
        item_keys.rate_partition(runtime.digest_key.value(), PLAYER)


def test_a_cursor_tagged_with_the_secrets_value_itself_is_refused(in_memory):
    """Outside production the cursor keys come from the token secret: a cursor's HMAC key is derived from it
    (cursors.KEY_LABEL), so holding a token key's raw value does not mean holding the cursor key."""
    genuine = cursors.issue(in_memory, "b#all-time", "k", 3)
    payload = genuine.split(".")[0]
    assert cursors.read(in_memory, genuine, "b#all-time").last_rank == 3
    raw = CURSOR_SECRET.encode()  # the value the runtime's ring holds (tests/unit/conftest.py)
    mac = hmac.new(raw, f"v1\nb#all-time\n{payload}".encode(), hashlib.sha256).digest()[: cursors.TAG_BYTES]
    with pytest.raises(BadRequest, match="not valid"):
        cursors.read(in_memory, f"{payload}.{cursors._b64(mac)}", "b#all-time")


def test_a_persisted_local_stack_keeps_its_digest_key(tmp_path):
    first = kept_digest_key(tmp_path / "data")
    assert len(first) >= 32 and kept_digest_key(tmp_path / "data") == first
    assert stat.S_IMODE((tmp_path / "data" / "digest-key").stat().st_mode) == 0o600
    assert kept_digest_key(tmp_path / "other") != first
