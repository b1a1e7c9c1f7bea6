"""`make rotate-token-key` (python -m ops rotate-token-key) against moto: the token signing secret as the stack
leaves it, the command, then the functions' own token checks (cdk_leaderboard_lambda/domain/tokens.py, a runtime reading
that secret
through Secrets Manager) at moments set on their clock, relative to the new key's creation as Secrets Manager
records it: no test waits for a grace to pass.
"""

from __future__ import annotations

import json
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import jwt
import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.domain import tokens
from cdk_leaderboard_lambda.shared.clock import SettableClock
from cdk_leaderboard_lambda.shared.errors import Unauthorized
from cdk_leaderboard_lambda.shared.settings import Settings
from ops.__main__ import main
from ops.token_key import FUNCTIONS_GRACE_S, OUTPUT
from tests.support.account import REGION

STACK = "leaderboard-dev"
FIRST_KEY = "k" * 64
DAY = 24 * 3600
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def token_secret(session, monkeypatch) -> str:
    """The stack's TokenSigningSecret and the output that names it; the region the functions' clients use."""
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    arn = session.client("secretsmanager").create_secret(Name="TokenSigningSecret", SecretString=FIRST_KEY)["ARN"]
    _deploy(session, {OUTPUT: arn})
    return arn


def _deploy(session, outputs: dict[str, str]) -> None:
    template = {
        "Resources": {
            "Marker": {"Type": "AWS::SSM::Parameter", "Properties": {"Name": "/marker", "Type": "String", "Value": "x"}}
        },
        "Outputs": {name: {"Value": value} for name, value in outputs.items()},
    }
    session.client("cloudformation").create_stack(StackName=STACK, TemplateBody=json.dumps(template))


class Functions:
    """A function instance's runtime as the stack configures it (TOKEN_SIGNING_SECRET_ARN, the default grace), on
    a settable clock. `fresh()` is a new instance (a cold start: it reads the secret again)."""

    def __init__(self, arn: str) -> None:
        self.arn = arn
        self.clock = SettableClock(datetime.now(UTC))
        self.fresh()

    def fresh(self) -> Functions:
        settings = Settings.from_environment(
            {"SCORES_TABLE": "scores", "SNAPSHOTS_TABLE": "snapshots", "TOKEN_SIGNING_SECRET_ARN": self.arn}
        )
        self.runtime = Runtime.build(settings, self.clock)
        return self

    def at(self, epoch: float) -> Functions:
        self.clock.set(datetime.fromtimestamp(epoch, UTC))
        return self

    def issue(self, lifetime: int = DAY) -> str:
        rt = self.runtime
        keys, issuer, now = rt.token_keys, rt.settings.token_issuer, rt.clock.now().timestamp()
        return tokens.issue(keys, issuer, tokens.PLAYER_AUDIENCE, "ada", lifetime, now=now)[0]

    def _verify(self, token: str) -> dict:
        rt = self.runtime
        keys, issuer, now = rt.token_keys, rt.settings.token_issuer, rt.clock.now().timestamp()
        return tokens.verify(keys, issuer, token, tokens.PLAYER_AUDIENCE, now=now)

    def accepts(self, token: str) -> bool:
        return self._verify(token)["sub"] == "ada"

    def refusal(self, token: str) -> str:
        with pytest.raises(Unauthorized) as refused:
            self._verify(token)
        return refused.value.message

    def ring(self):
        return self.runtime.token_keys.get()


def _kid(token: str) -> str:
    return jwt.get_unverified_header(token)["kid"]


def _rotate(session, *flags: str) -> int:
    return main(["rotate-token-key", "--stage", "dev", *flags], session=session)


def test_old_tokens_stay_valid_during_the_grace_and_are_refused_after(session, token_secret, capsys):
    functions = Functions(token_secret)
    before = functions.ring().current.kid
    player_token = functions.issue()  # a player token of the longest life, just before the rotation
    long_lived = functions.issue(lifetime=3 * DAY)  # outlives the grace: only its key can refuse it then
    assert _kid(player_token) == _kid(long_lived) == before

    assert _rotate(session) == 0
    ring = functions.fresh().ring()  # an instance reading the secret after the rotation
    assert ring.current.kid != before and ring.previous.kid == before
    versions = session.client("secretsmanager").list_secret_version_ids(SecretId=token_secret)["Versions"]
    (current,) = [v for v in versions if "AWSCURRENT" in v["VersionStages"]]
    rotated_at = current["CreatedDate"].timestamp()
    assert ring.previous.valid_until == rotated_at + FUNCTIONS_GRACE_S
    assert FUNCTIONS_GRACE_S > DAY  # longer than a player token may live (POST /players/{id}/tokens: <= 24 h)

    new_token = functions.at(rotated_at).issue()
    assert _kid(new_token) == ring.current.kid and functions.accepts(new_token)  # signed with the new key
    assert functions.accepts(player_token)  # the old key's tokens, during the grace
    assert functions.at(rotated_at + DAY - tokens.LEEWAY_SECONDS).accepts(player_token)  # to the end of its life
    assert functions.at(rotated_at + FUNCTIONS_GRACE_S - 1).accepts(long_lived)  # the grace's last second
    assert functions.at(rotated_at + FUNCTIONS_GRACE_S).refusal(long_lived) == tokens.UNKNOWN_KEY  # its key: retired
    assert functions.accepts(functions.issue())  # the new key goes on
    printed = capsys.readouterr()
    assert f"old key {before}: tokens it signed stay valid until " in printed.out
    assert FIRST_KEY not in printed.out + printed.err
    value = session.client("secretsmanager").get_secret_value(SecretId=token_secret)["SecretString"]
    assert len(value) == 64 and value != FIRST_KEY and value not in printed.out  # no key value is ever printed


def test_a_second_rotation_during_the_grace_is_refused_unless_forced(session, token_secret, capsys):
    functions = Functions(token_secret)
    first_key_token = functions.issue()
    assert _rotate(session) == 0
    second_key_token = functions.fresh().issue()
    capsys.readouterr()

    assert _rotate(session) == 1  # it would drop the first key while its tokens are still valid
    assert "the last rotation's grace runs until" in capsys.readouterr().err
    assert functions.fresh().accepts(first_key_token) and functions.accepts(second_key_token)

    assert _rotate(session, "--force") == 0
    functions.fresh()
    assert functions.refusal(first_key_token) == tokens.UNKNOWN_KEY  # two keys at a time: the oldest goes now
    assert functions.accepts(second_key_token)


def test_revoke_refuses_the_old_keys_tokens_at_once(session, token_secret, capsys):
    functions = Functions(token_secret)
    leaked_key_token = functions.issue()
    assert _rotate(session, "--revoke") == 0
    functions.fresh()
    assert functions.ring().previous is None
    assert functions.refusal(leaked_key_token) == tokens.UNKNOWN_KEY
    assert functions.accepts(functions.issue())
    assert "revoked, its tokens are refused" in capsys.readouterr().out


def test_a_stack_without_the_output_is_told_to_deploy_first(session, capsys):
    _deploy(session, {})
    assert _rotate(session) == 1
    assert f"no output {OUTPUT}: deploy the current version first" in capsys.readouterr().err


def test_the_make_target_runs_the_command():
    """`make rotate-token-key` is the command above (dry run: make prints what it would run)."""
    # Not make's own variables: under `make test` they would make this make print its directory too.
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    printed = subprocess.run(
        ["make", "-n", "--no-print-directory", "rotate-token-key", "STAGE=prod", "FORCE=1"],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
    ).stdout
    assert "-m ops rotate-token-key --stage prod --force" in printed.splitlines()[-1], printed
