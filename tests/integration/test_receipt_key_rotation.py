"""A retired receipt key against the local stack: the functions read their receipt key set from a
Secrets Manager stand-in that speaks AWS's protocol (moto's server, `settings.secrets_manager_endpoint`), as a
production stage's functions read the secret `ReceiptSigningSecretArn`. A receipt and a closing summary are signed,
the key is rotated with the ops command's own function (`python -m ops rotate-receipt-key --stage prod`, against
the stand-in), and then, over HTTP: the JWKS lists the old key as retired (with its retired_at) and the new one as
current, and the verifier, run as a user runs it (`python -m leaderboard_verify --url ...`), accepts what the
retired key signed and what the new one signs, and refuses a receipt re-signed with a key it does not know, one whose
kid is not published, and one a thief holding the old seed signs after its retired_at, saying so. Last,
the old key is revoked (`python -m ops revoke-receipt-key --kid`): the JWKS lists it as revoked and the verifier
refuses everything it signed, while what the new key signs still verifies, and the closing summary, read again, is
served signed by the new key.

The functions re-read the secret within keyring.REFRESH_SECONDS on AWS; here the re-read is a fresh runtime (what
an instance's next read or a cold start gives), not a wait. The ops commands date retired_at and revoked_at by the
stack's clock (which the package's other tests move ahead of the real time), as on AWS the operator's clock and the
functions' agree. (The rotation's own steps against moto, in process: tests/ops/test_receipt_key_rotation.py.)"""

from __future__ import annotations

import hashlib
import json
import secrets
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import boto3
import botocore.session
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from cdk_leaderboard_lambda.shared.clock import iso
from local import dynamodb_local
from ops.__main__ import main
from ops.receipt_key import OUTPUT
from tests.support import clock, jws
from tests.support.proof_vectors import SigningKey

BOARD = "rk-cup"
PLAYERS = (("rk-ada", 300), ("rk-bob", 500), ("rk-cy", 200))
STAGE = "prod"  # only production has a receipt secret of its own (cdk.json: "production": true)
WITHIN_S = 60  # the log's lag on a loaded 2-core machine: returns as soon as it is there
REGION = dynamodb_local.FAKE_CREDENTIALS["AWS_DEFAULT_REGION"]


@pytest.fixture(scope="module")
def standin(stack):
    """The local stack's AWS stand-in (moto's server, local/keys.py): Secrets Manager and CloudFormation over HTTP,
    as AWS answers them. It holds the stack's API key secrets too, which its functions read from the same endpoint."""
    return stack.keys.endpoint


def operator_session(url: str, tmp_path: Path) -> boto3.Session:
    """The operator's session, pointed at the stand-in by a profile's endpoint_url (as one would point it at a
    stand-in of AWS), with the stand-in's fake credentials."""
    config = tmp_path / "aws-config"
    creds = dynamodb_local.FAKE_CREDENTIALS
    config.write_text(
        f"[profile standin]\nregion = {REGION}\nendpoint_url = {url}\n"
        f"aws_access_key_id = {creds['AWS_ACCESS_KEY_ID']}\naws_secret_access_key = {creds['AWS_SECRET_ACCESS_KEY']}\n"
    )
    core = botocore.session.Session()
    core.set_config_variable("config_file", str(config))
    core.set_config_variable("profile", "standin")
    return boto3.Session(botocore_session=core)


def deployed_secret(session: boto3.Session) -> tuple[str, str]:
    """What a production deployment has: the secret as the stack generates it (a 64-character seed, no retired keys)
    and the stack's output naming it, which the ops command reads. The secret's ARN, and its seed."""
    seed = secrets.token_hex(32)
    first = json.dumps({"retired": [], "seed": seed})
    arn = session.client("secretsmanager").create_secret(Name="ReceiptSigningSecret", SecretString=first)["ARN"]
    template = {
        "Resources": {
            "Marker": {"Type": "AWS::SSM::Parameter", "Properties": {"Name": "/rk", "Type": "String", "Value": "x"}}
        },
        "Outputs": {OUTPUT: {"Value": arn}},
    }
    cloudformation = session.client("cloudformation")
    cloudformation.delete_stack(StackName=f"leaderboard-{STAGE}")  # another test's stage on the same stand-in
    cloudformation.create_stack(StackName=f"leaderboard-{STAGE}", TemplateBody=json.dumps(template))
    return arn, seed


def verify(*args: str, cwd: Path) -> tuple[int, list[str]]:
    """`python -m leaderboard_verify ARGS`, as a user runs it: its exit status and its lines."""
    result = subprocess.run(
        [sys.executable, "-m", "leaderboard_verify", *args], cwd=cwd, capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in result.stderr, result.stderr
    return result.returncode, result.stdout.splitlines()


def receipt_of(api, player: str, period: str, board: str = BOARD) -> str:
    """The player's receipt, asked again while the issuer says the log is catching up (409)."""
    deadline = time.monotonic() + WITHIN_S
    while True:
        token = api.post(f"/players/{player}/tokens", {}).json()["token"]  # the game server acts for the player
        path, bearer = f"/leaderboards/{board}/players/{player}/receipt", {"Authorization": f"Bearer {token}"}
        reply = api.get(path, params={"period": period}, headers=bearer)
        if reply.status_code == 200:
            return reply.json()["receipt"]
        assert reply.status_code == 409, reply.text
        assert time.monotonic() < deadline, reply.text
        time.sleep(0.2)


def logged(api, period_id: str, count: int, board: str = BOARD) -> None:
    """Returns once the period's log holds `count` records."""
    deadline = time.monotonic() + WITHIN_S
    while True:
        reply = api.get(f"/leaderboards/{board}/periods/{period_id}/log")
        assert reply.status_code == 200, reply.text
        if len(reply.json()["records"]) >= count:
            return
        assert time.monotonic() < deadline, reply.text
        time.sleep(0.2)


def kid_of(token: str) -> str:
    return jws.header_and_payload(token)[0]["kid"]


@pytest.fixture(scope="module")
def rotation(stack, api, standin, tmp_path_factory):
    """A tournament signed for with the first key (a receipt, the closing summary), the key rotated, then a receipt
    signed with the new one; the stack's functions read the stand-in's secret until the module's tests are done."""
    session = operator_session(standin, tmp_path_factory.mktemp("operator"))
    arn, seed = deployed_secret(session)
    settings = {"receipt_signing_key": None, "receipt_signing_secret_arn": arn, "secrets_manager_endpoint": standin}
    with stack.reconfigured(**settings):
        before = api.get("/.well-known/jwks.json").json()
        now = stack.clock.now()
        start, end = now - timedelta(seconds=1), now + timedelta(minutes=2)
        body = {"board_id": BOARD, "starts_at": iso(start), "ends_at": iso(end)}
        created = api.post("/leaderboards", body)
        assert created.status_code == 201, created.text
        for player, value in PLAYERS:
            reply = api.post(f"/leaderboards/{BOARD}/scores", {"player_id": player, "score": value})
            assert reply.status_code == 200, reply.text
        stack.settle()
        period_id = api.get(f"/leaderboards/{BOARD}/players/rk-ada", params={"period": "tournament"}).json()[
            "period_id"
        ]
        logged(api, period_id, len(PLAYERS))
        old_receipt = receipt_of(api, "rk-ada", period_id)
        clock.move(stack, to=end + timedelta(milliseconds=50))
        closed = api.post(f"/leaderboards/{BOARD}/periods/tournament/close")
        assert closed.status_code == 200, closed.text
        summary = api.get(f"/leaderboards/{BOARD}/periods/{period_id}")
        assert summary.status_code == 200 and "signature" in summary.json(), summary.text

        assert main(["rotate-receipt-key", "--stage", STAGE], session=session, now=stack.clock.now) == 0
        with stack.reconfigured():  # the instances read the secret again (on AWS within REFRESH_SECONDS)
            after = api.get("/.well-known/jwks.json")
            assert after.status_code == 200, after.text
            new_receipt = receipt_of(api, "rk-bob", period_id)
            yield {
                "period_id": period_id,
                "before": before,
                "after": after.json(),
                "old_receipt": old_receipt,
                "new_receipt": new_receipt,
                "summary": summary.json(),
                "stored": json.loads(session.client("secretsmanager").get_secret_value(SecretId=arn)["SecretString"]),
                "first_seed": seed,
                "session": session,
                "arn": arn,
            }


@pytest.fixture
def evidence(rotation, tmp_path) -> Path:
    """The receipts and the summary as a player and a sponsor saved them."""
    (tmp_path / "old.json").write_text(json.dumps({"receipt": rotation["old_receipt"]}))
    (tmp_path / "new.jws").write_text(rotation["new_receipt"])
    (tmp_path / "summary.json").write_text(json.dumps(rotation["summary"]))
    return tmp_path


def test_the_jwks_lists_the_old_key_as_retired_and_the_new_one_current(rotation):
    (first,) = rotation["before"]["keys"]
    assert first["status"] == "current" and first["kid"] == kid_of(rotation["old_receipt"])
    current, retired = rotation["after"]["keys"]
    assert (current["status"], retired["status"]) == ("current", "retired")
    assert {k: v for k, v in retired.items() if k != "status" and k != "retired_at"} == {
        k: v for k, v in first.items() if k != "status"
    }
    assert retired["retired_at"] == rotation["stored"]["retired"][0]["retired_at"]
    assert current["kid"] != first["kid"] and current["kid"] == kid_of(rotation["new_receipt"])
    assert kid_of(rotation["summary"]["signature"]) == first["kid"]


def test_the_verifier_accepts_what_the_retired_key_signed_and_what_the_new_one_signs(stack, rotation, evidence):
    old, new = kid_of(rotation["old_receipt"]), kid_of(rotation["new_receipt"])
    status, lines = verify(
        "--url", stack.api_url, "--summary", "summary.json", "--receipt", "old.json", "--receipt", "new.jws",
        cwd=evidence,
    )  # fmt: skip
    assert status == 0, lines
    assert lines[-1].startswith("VERIFIED: "), lines
    retired = f"EdDSA by key {old}, listed as retired at {rotation['after']['keys'][1]['retired_at']}; signed "
    _, receipt = jws.header_and_payload(rotation["old_receipt"])
    assert f"ok   receipt 1 signature: {retired}at {receipt['at']}, iat {receipt['iat']} (" in "\n".join(lines), lines
    assert f"ok   receipt 2 signature: EdDSA by key {new}, listed as current" in lines, lines
    closed_at = rotation["summary"]["closed_at"]
    assert f"ok   summary signature: {retired}closed_at {closed_at}, before it" in lines, lines
    assert any(line.startswith("ok   receipt 1 standings: rk-ada: rank 2 of 3 with score 300") for line in lines)


def test_receipts_signed_by_a_key_the_jwks_does_not_list_are_refused(stack, rotation, evidence):
    _, payload = jws.header_and_payload(rotation["old_receipt"])
    stranger = SigningKey()
    old = kid_of(rotation["old_receipt"])
    (evidence / "forged.jws").write_text(stranger.sign(payload, kid=old))  # claims the retired key
    (evidence / "unknown.jws").write_text(stranger.sign(payload))  # its own kid, which is not published
    listed = ", ".join(sorted(k["kid"] for k in rotation["after"]["keys"]))
    for name, refusal in (
        ("forged.jws", f"FAIL receipt 1 signature: the signature does not verify with key {old}"),
        (
            "unknown.jws",
            f"FAIL receipt 1 signature: kid {stranger.kid} is not in the published keys (listed: {listed})",
        ),
    ):
        status, lines = verify("--url", stack.api_url, "--receipt", name, cwd=evidence)
        assert status == 1, lines
        assert refusal in lines, lines
        assert [line for line in lines if line.startswith("FAIL")] == [refusal], lines
        assert lines[-1].startswith("NOT VERIFIED: 1 of "), lines


def test_a_receipt_the_old_seed_signs_after_its_retirement_is_refused(stack, rotation, evidence):
    """A thief holding the retired key's seed signs a receipt dated after the rotation (true in every
    other respect); the verifier refuses it, naming the field, the key and its retired_at."""
    _, payload = jws.header_and_payload(rotation["old_receipt"])
    (_, retired) = rotation["after"]["keys"]
    later = datetime.fromisoformat(retired["retired_at"].replace("Z", "+00:00")) + timedelta(hours=1)
    thief = SigningKey(Ed25519PrivateKey.from_private_bytes(hashlib.sha256(rotation["first_seed"].encode()).digest()))
    assert thief.kid == retired["kid"]
    (evidence / "late.jws").write_text(thief.sign({**payload, "at": iso(later), "iat": int(later.timestamp())}))
    status, lines = verify("--url", stack.api_url, "--receipt", "late.jws", cwd=evidence)
    assert status == 1, lines
    assert [line for line in lines if line.startswith("FAIL")] == [
        f"FAIL receipt 1 signature: at {iso(later)} is at or after key {retired['kid']}'s retired_at "
        f"{retired['retired_at']}: a retired key signs nothing after it (a forgery, or a key still in use)"
    ], lines


def test_after_revocation_the_jwks_says_revoked_and_the_verifier_refuses_what_the_key_signed(
    stack, api, rotation, evidence
):
    """Last in the module: it revokes the module's old key for good (`python -m ops revoke-receipt-key --kid`)."""
    old, new = kid_of(rotation["old_receipt"]), kid_of(rotation["new_receipt"])
    argv = ["revoke-receipt-key", "--stage", STAGE, "--kid", old]
    assert main(argv, session=rotation["session"], now=stack.clock.now) == 0
    with stack.reconfigured():  # the instances read the secret again
        reply = api.get("/.well-known/jwks.json")
        assert reply.status_code == 200, reply.text
        current, revoked = reply.json()["keys"]
        assert (current["kid"], current["status"]) == (new, "current")
        assert (revoked["kid"], revoked["status"]) == (old, "revoked")
        assert revoked["retired_at"] == rotation["after"]["keys"][1]["retired_at"] and revoked["revoked_at"]
        status, lines = verify(
            "--url", stack.api_url, "--summary", "summary.json", "--receipt", "old.json", "--receipt", "new.jws",
            cwd=evidence,
        )  # fmt: skip
        refusal = (
            f"signature: key {old} is revoked (revoked_at {revoked['revoked_at']}): nothing it signed verifies, "
            "whatever date it carries"
        )
        assert status == 1, lines
        assert [line for line in lines if line.startswith("FAIL")] == [
            f"FAIL summary {refusal}",
            f"FAIL receipt 1 {refusal}",
        ]
        assert f"ok   receipt 2 signature: EdDSA by key {new}, listed as current" in lines, lines
        assert any(f"{old} (revoked at {revoked['revoked_at']})" in line for line in lines if "keys" in line), lines
        # the API serves the summary signed again by the current key: read again, it verifies
        again = api.get(f"/leaderboards/{BOARD}/periods/{rotation['period_id']}")
        assert again.status_code == 200, again.text
        assert kid_of(again.json()["signature"]) == new
        (evidence / "again.json").write_text(json.dumps(again.json()))
        status, lines = verify("--url", stack.api_url, "--summary", "again.json", "--receipt", "new.jws", cwd=evidence)
        assert status == 0, lines
        assert f"ok   summary signature: EdDSA by key {new}, listed as current" in lines, lines
