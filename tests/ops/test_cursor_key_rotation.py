"""`make rotate-cursor-key` and `make rotate-digest-key` (python -m ops ...) against moto: the cursor
signing secret as a production stack leaves it, the command, then the functions' own cursor checks (cursors.py, a
runtime reading that secret through Secrets Manager) at moments set on their clock, relative to the new version's
creation as Secrets Manager records it. The digest key's command refuses, says why, and changes nothing. (Against
the local stack, with erasure, receipts and the log: tests/integration/test_secret_rotation.py.)"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.domain import cursors, keyring
from cdk_leaderboard_lambda.shared.clock import SettableClock
from cdk_leaderboard_lambda.shared.errors import BadRequest
from cdk_leaderboard_lambda.shared.settings import Settings
from local import invocation
from ops.__main__ import main
from ops.cursor_key import DIGEST_REFUSAL, FUNCTIONS_GRACE_S, OUTPUT
from tests.support.account import REGION

STAGE = "prod"  # cdk.json: "production": true (only production has a cursor secret of its own)
FIRST_KEY = "c" * 64
BOARD = "cup#all-time"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def cursor_secret(session, monkeypatch) -> str:
    """The stack's CursorSigningSecret and the output that names it; the region the functions' clients use."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    arn = session.client("secretsmanager").create_secret(Name="CursorSigningSecret", SecretString=FIRST_KEY)["ARN"]
    template = {
        "Resources": {
            "Marker": {"Type": "AWS::SSM::Parameter", "Properties": {"Name": "/marker", "Type": "String", "Value": "x"}}
        },
        "Outputs": {OUTPUT: {"Value": arn}},
    }
    session.client("cloudformation").create_stack(StackName=f"leaderboard-{STAGE}", TemplateBody=json.dumps(template))
    return arn


class Functions:
    """A function instance's runtime as the stack configures it (CURSOR_SECRET_ARN, the default TTL), on a settable
    clock; `fresh()` is a new instance (a cold start: it reads the ring again)."""

    def __init__(self, arn: str, clock: SettableClock | None = None) -> None:
        self.arn = arn
        self.clock = clock or SettableClock(datetime.now(UTC))
        self.fresh()

    def fresh(self) -> Functions:
        env = {"SCORES_TABLE": "scores", "SNAPSHOTS_TABLE": "snapshots", "CURSOR_SECRET_ARN": self.arn}
        self.runtime = Runtime.build(Settings.from_environment(env), self.clock, dynamodb=object())
        return self

    def at(self, epoch: float) -> Functions:
        self.clock.set(datetime.fromtimestamp(epoch, UTC))
        return self

    def issue(self, rank: int = 10) -> str:
        with invocation.serving(self.runtime):
            return cursors.issue(invocation.runtime(), BOARD, f"key-{rank}", rank)

    def reads(self, cursor: str) -> int:
        with invocation.serving(self.runtime):
            return cursors.read(invocation.runtime(), cursor, BOARD).last_rank

    def refusal(self, cursor: str) -> str:
        with invocation.serving(self.runtime), pytest.raises(BadRequest) as refused:
            cursors.read(invocation.runtime(), cursor, BOARD)
        return refused.value.message


def _rotate(session, *flags: str, stage: str = STAGE) -> int:
    return main(["rotate-cursor-key", "--stage", stage, *flags], session=session)


def _rotated_at(session, arn: str) -> float:
    versions = session.client("secretsmanager").list_secret_version_ids(SecretId=arn)["Versions"]
    (current,) = [v for v in versions if "AWSCURRENT" in v["VersionStages"]]
    return current["CreatedDate"].timestamp()


def test_cursors_signed_before_the_rotation_verify_for_their_lifetime_then_not(session, cursor_secret, capsys):
    old_instance = Functions(cursor_secret)  # keeps the ring it read: it signs with the old key a while longer
    other_old = Functions(cursor_secret, old_instance.clock)
    walked_before = old_instance.issue(rank=10)
    assert _rotate(session) == 0
    rotated_at = _rotated_at(session, cursor_secret)
    new_instance = Functions(cursor_secret, old_instance.clock)
    ring = new_instance.runtime.cursor_keys.get()
    assert ring.previous is not None and ring.previous.valid_until == rotated_at + FUNCTIONS_GRACE_S

    old_instance.at(rotated_at)
    assert new_instance.reads(walked_before) == 10  # the next page of a walk begun before the rotation
    fresh = new_instance.issue(rank=20)
    other_old.runtime.cursor_keys._read_at -= keyring.MIN_REFRESH_SECONDS  # its last read is that old (monotonic)
    assert other_old.reads(fresh) == 20  # an instance that has not seen the rotation re-reads the ring
    # The old instance signs with the old key until it re-reads the ring; its cursor lives its whole TTL.
    late = old_instance.at(rotated_at + keyring.REFRESH_SECONDS - 1).issue(rank=30)
    last_moment = rotated_at + keyring.REFRESH_SECONDS - 1 + new_instance.runtime.settings.cursor_ttl_seconds
    assert new_instance.at(last_moment).reads(late) == 30
    assert FUNCTIONS_GRACE_S > last_moment - rotated_at
    # After the grace the old key is refused: as a cursor the API never issued (its TTL would refuse it anyway).
    assert new_instance.at(rotated_at + FUNCTIONS_GRACE_S).refusal(late) == cursors.INVALID
    printed = capsys.readouterr()
    assert "cursors it signed stay valid until" in printed.out
    value = session.client("secretsmanager").get_secret_value(SecretId=cursor_secret)["SecretString"]
    assert len(value) == 64 and value != FIRST_KEY and value not in printed.out + printed.err


def test_a_second_rotation_during_the_grace_is_refused_unless_forced(session, cursor_secret, capsys):
    functions = Functions(cursor_secret)
    first = functions.issue()
    assert _rotate(session) == 0
    capsys.readouterr()
    assert _rotate(session) == 1
    assert "the last rotation's grace runs until" in capsys.readouterr().err
    assert functions.fresh().reads(first) == 10
    assert _rotate(session, "--force") == 0
    assert functions.fresh().refusal(first) == cursors.INVALID  # two keys at a time: the oldest goes now


def test_outside_production_the_command_points_at_the_token_key(session, capsys):
    """No cursor secret of its own outside production (no AWS call is made: no stack exists here)."""
    assert _rotate(session, stage="dev") == 1
    assert "`make rotate-token-key` rotates both" in capsys.readouterr().err


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_the_digest_key_is_not_rotated_and_the_command_says_why(session, stage, capsys):
    arn = session.client("secretsmanager").create_secret(Name="CursorSecret", SecretString="d" * 64)["ARN"]
    assert main(["rotate-digest-key", "--stage", stage], session=session) == 1
    assert capsys.readouterr().err.strip() == f"error: {DIGEST_REFUSAL}"
    versions = session.client("secretsmanager").list_secret_version_ids(SecretId=arn)["Versions"]
    assert len(versions) == 1  # nothing was put


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("rotate-cursor-key", "-m ops rotate-cursor-key --stage prod --force"),
        ("rotate-digest-key", "-m ops rotate-digest-key --stage prod"),
    ],
)
def test_the_make_targets_run_the_commands(target, expected):
    """`make rotate-cursor-key` / `make rotate-digest-key` are the commands above (dry run)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    printed = subprocess.run(
        ["make", "-n", "--no-print-directory", target, "STAGE=prod", "FORCE=1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    assert expected in printed.splitlines()[-1], printed
