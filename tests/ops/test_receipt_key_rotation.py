"""`make rotate-receipt-key` (python -m ops rotate-receipt-key) against moto: the receipt key set as the stack
generates it (a production stage: only production has the secret), two rotations, then the functions' own key set
(a runtime reading the secret through Secrets Manager): the new key signs, the old ones are listed as retired and
what they signed still verifies; each rotation dates the old key's retired_at 360 s after it. Revocation
(python -m ops revoke-receipt-key --kid) lists a key as revoked, rotating the current key out first. A stage outside
production has nothing to rotate: one line says so, before any AWS call. (Against the local stack, over HTTP and
with the verifier: tests/integration/test_receipt_key_rotation.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.domain import keyring
from cdk_leaderboard_lambda.domain.receipt_keys import KeySet
from cdk_leaderboard_lambda.operations import receipts
from cdk_leaderboard_lambda.shared.settings import Settings
from ops.__main__ import main
from ops.receipt_key import OUTPUT, RETIRE_MARGIN_S
from tests.support import jws
from tests.support.account import REGION

STAGE = "prod"  # cdk.json: "production": true
STACK = f"leaderboard-{STAGE}"
FIRST = json.dumps({"retired": [], "seed": "s" * 64})  # what the stack's generator writes


@pytest.fixture
def receipt_secret(session, monkeypatch) -> str:
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    arn = session.client("secretsmanager").create_secret(Name="ReceiptSigningSecret", SecretString=FIRST)["ARN"]
    template = {
        "Resources": {
            "Marker": {"Type": "AWS::SSM::Parameter", "Properties": {"Name": "/marker", "Type": "String", "Value": "x"}}
        },
        "Outputs": {OUTPUT: {"Value": arn}},
    }
    session.client("cloudformation").create_stack(StackName=STACK, TemplateBody=json.dumps(template))
    return arn


def _functions_keys(arn: str) -> KeySet:
    """A cold start's key set, read as the deployed functions read it."""
    settings = Settings.from_environment(
        {"SCORES_TABLE": "t", "SNAPSHOTS_TABLE": "s", "RECEIPT_SIGNING_SECRET_ARN": arn}
    )
    runtime = Runtime.build(settings, dynamodb=object())
    jwks = receipts.jwks(runtime)
    keys = runtime.receipt_keys.get()
    assert jwks == keys.jwks()
    return keys


def test_rotations_retire_keys_that_still_verify(receipt_secret, session, capsys):
    first = _functions_keys(receipt_secret)
    signed_first = first.sign_compact({"rank": 1})
    assert main(["rotate-receipt-key", "--stage", STAGE], session=session) == 0
    second = _functions_keys(receipt_secret)
    signed_second = second.sign_compact({"rank": 2})
    assert main(["rotate-receipt-key", "--stage", STAGE], session=session) == 0
    third = _functions_keys(receipt_secret)
    listed = third.jwks()["keys"]
    assert [(k["kid"], k["status"]) for k in listed] == [
        (third.current.kid, "current"),
        (second.current.kid, "retired"),
        (first.current.kid, "retired"),
    ]
    assert len({first.current.kid, second.current.kid, third.current.kid}) == 3
    assert jws.verify(signed_first, third.jwks()) == {"rank": 1}
    assert jws.verify(signed_second, third.jwks()) == {"rank": 2}
    value = session.client("secretsmanager").get_secret_value(SecretId=receipt_secret)["SecretString"]
    assert "s" * 64 not in value  # the first seed is gone: that key signs nothing more
    printed = capsys.readouterr().out
    assert f"old key {first.current.kid}: retired at" in printed and "stays in GET /.well-known/jwks.json" in printed


def _stored(session, arn: str) -> dict:
    return json.loads(session.client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"])


def test_a_rotation_dates_the_old_keys_retirement_when_no_instance_signs_with_it_any_more(receipt_secret, session):
    """retired_at is the rotation's time plus REFRESH_SECONDS and a margin (instances holding the old key set sign
    with the old key until they re-read it), in the stored entry and in the functions' JWKS."""
    old = _functions_keys(receipt_secret).current.kid
    before = datetime.now(UTC)
    assert main(["rotate-receipt-key", "--stage", STAGE], session=session) == 0
    after = datetime.now(UTC)
    (entry,) = _stored(session, receipt_secret)["retired"]
    assert entry["kid"] == old
    retired_at = datetime.fromisoformat(entry["retired_at"].replace("Z", "+00:00"))
    refresh = timedelta(seconds=keyring.REFRESH_SECONDS + RETIRE_MARGIN_S)
    assert refresh == timedelta(seconds=360)  # as the docs say
    assert before + refresh <= retired_at <= after + refresh + timedelta(milliseconds=1), (before, entry, after)
    (listed,) = [k for k in _functions_keys(receipt_secret).jwks()["keys"] if k["kid"] == old]
    assert (listed["status"], listed["retired_at"]) == ("retired", entry["retired_at"])


def test_revoking_a_retired_key_lists_it_as_revoked_and_nothing_it_signed_verifies(receipt_secret, session, capsys):
    first = _functions_keys(receipt_secret)
    signed_first = first.sign_compact({"rank": 1})
    assert main(["rotate-receipt-key", "--stage", STAGE], session=session) == 0
    retired_at = _stored(session, receipt_secret)["retired"][0]["retired_at"]
    before = datetime.now(UTC)
    assert main(["revoke-receipt-key", "--stage", STAGE, "--kid", first.current.kid], session=session) == 0
    (entry,) = _stored(session, receipt_secret)["retired"]
    assert (entry["kid"], entry["retired_at"]) == (first.current.kid, retired_at)
    revoked_at = datetime.fromisoformat(entry["revoked_at"].replace("Z", "+00:00"))
    assert before - timedelta(milliseconds=1) <= revoked_at <= datetime.now(UTC)
    keys = _functions_keys(receipt_secret)
    assert [(k["kid"], k["status"]) for k in keys.jwks()["keys"]] == [
        (keys.current.kid, "current"),
        (first.current.kid, "revoked"),
    ]
    with pytest.raises(jws.Refused, match="revoked kid"):
        jws.verify(signed_first, keys.jwks())
    assert f"key {first.current.kid}: revoked at {entry['revoked_at']}" in capsys.readouterr().out
    version = session.client("secretsmanager").get_secret_value(SecretId=receipt_secret)["VersionId"]
    assert main(["revoke-receipt-key", "--stage", STAGE, "--kid", first.current.kid], session=session) == 0
    assert f"revoked at {entry['revoked_at']} (it was already)" in capsys.readouterr().out  # the first time stands
    assert session.client("secretsmanager").get_secret_value(SecretId=receipt_secret)["VersionId"] == version


def test_revoking_the_current_key_rotates_it_out_first(receipt_secret, session, capsys):
    first = _functions_keys(receipt_secret)
    assert main(["revoke-receipt-key", "--stage", STAGE, "--kid", first.current.kid], session=session) == 0
    keys = _functions_keys(receipt_secret)
    assert keys.current.kid != first.current.kid
    assert [(k["kid"], k["status"]) for k in keys.jwks()["keys"]] == [
        (keys.current.kid, "current"),
        (first.current.kid, "revoked"),
    ]
    assert "s" * 64 not in json.dumps(_stored(session, receipt_secret))  # the leaked seed is gone
    printed = capsys.readouterr().out
    assert f"key {first.current.kid} is the current key: rotating it out first, then revoking it" in printed
    assert f"sign with {first.current.kid} for up to {keyring.REFRESH_SECONDS} s more" in printed


def test_revoking_a_kid_the_key_set_does_not_hold_changes_nothing(receipt_secret, session, capsys):
    before = _stored(session, receipt_secret)
    assert main(["revoke-receipt-key", "--stage", STAGE, "--kid", "0123456789abcdef"], session=session) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: key 0123456789abcdef is not a retired key of this key set"), line
    assert _stored(session, receipt_secret) == before


def test_a_stage_outside_production_has_nothing_to_revoke(capsys):
    """As for the rotation (below): one line, exit status 1, before any AWS call (no session is given, none is used)."""
    assert main(["revoke-receipt-key", "--stage", "dev", "--kid", "0123456789abcdef"]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: stage dev has no receipt signing key of its own to revoke: outside production"), line


def test_a_stack_without_the_output_is_an_error(session, monkeypatch, capsys):
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    template = {
        "Resources": {
            "Marker": {"Type": "AWS::SSM::Parameter", "Properties": {"Name": "/marker", "Type": "String", "Value": "x"}}
        },
    }
    session.client("cloudformation").create_stack(StackName=STACK, TemplateBody=json.dumps(template))
    assert main(["rotate-receipt-key", "--stage", STAGE], session=session) == 1
    assert "error:" in capsys.readouterr().err


def test_a_stage_outside_production_has_nothing_to_rotate():
    """dev derives its receipt key from the digest key: one line says why there is nothing to rotate and what to
    do, exit status 1, no stack trace, and no AWS call (no region nor credentials are set here, and any call
    would fail on that instead)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}
    env |= {
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    env |= {"JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20", "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "ops", "rotate-receipt-key", "--stage", "dev"],
        cwd=Path(__file__).parents[2],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: stage dev has no receipt signing key of its own to rotate: outside production"), line
    assert "derive it from the digest key" in line and '"production": true' in line
