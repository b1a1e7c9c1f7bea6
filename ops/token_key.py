"""Rotation of the key that signs player and run tokens (lambda_src/cdk_leaderboard_lambda/domain/tokens.py).

The key is the secret `TokenSigningSecretArn`; the functions read it as a ring of two keys (keyring.py): the
AWSCURRENT version signs, and the AWSPREVIOUS one still verifies until TOKEN_KEY_GRACE_SECONDS after the current
version was created, then is refused. So a rotation is one PutSecretValue: the new value becomes current (each
function instance signs with it once it re-reads the secret: within keyring.REFRESH_SECONDS, at once when it is
shown a token signed with it), the old one becomes previous, and the functions themselves end its grace. Nothing
has to wait here, and nothing has to be run again later.

Only two keys are ever valid: a second rotation while the first one's grace still runs would drop the key before
it at once, and with it every token that key signed. That is refused unless forced. A leaked key is rotated with
`revoke`: the old version also loses its AWSPREVIOUS label, so the functions refuse its tokens as soon as they
re-read the secret, without a grace.

Outside production the page-cursor keys derive from this secret's versions too (cursors.py): a rotation carries
them over with the same grace; a revocation makes the page walks in flight start again from the first page.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import ClassVar

import boto3
import cdk_leaderboard.paths  # noqa: F401 (loads the Lambda package under its one name, as the construct does)

from cdk_leaderboard_lambda.data import secrets as secret_versions
from cdk_leaderboard_lambda.data.secrets import SecretsManagerSecrets
from cdk_leaderboard_lambda.domain import keyring
from cdk_leaderboard_lambda.shared.settings import Settings

from .outputs import require, stack_outputs

OUTPUT = "TokenSigningSecretArn"
KEY_CHARS = 64  # as the stack generates it (stacks/leaderboard/api_keys.py)
# The functions' grace for the previous key: the stack sets no TOKEN_KEY_GRACE_SECONDS, so the settings' default.
FUNCTIONS_GRACE_S = Settings.from_environment({"SCORES_TABLE": "-", "SNAPSHOTS_TABLE": "-"}).token_key_grace_seconds


class RotationRefused(Exception):
    """A rotation now would refuse tokens that should stay valid."""


def _moment(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass
class TokenKeyRotator:
    """Rotates a signing key that the functions read as a ring (keyring.py); the cursor key's rotator
    (cursor_key.py) is this one with its own secret, grace and words."""

    session: boto3.Session
    stack: str
    out: Callable[[str], None] = print
    now: Callable[[], float] = time.time
    grace_s: int = field(default=FUNCTIONS_GRACE_S)  # the functions' setting: what this tool reports and checks
    output: ClassVar[str] = OUTPUT
    key: ClassVar[str] = "token key"
    signed: ClassVar[str] = "tokens"
    why_grace: ClassVar[str] = "longer than a player token lives"
    after_revoke: ClassVar[str] = "players get new tokens from the game's backend"

    def __post_init__(self) -> None:
        (self.secret_arn,) = require(stack_outputs(self.session, self.stack), self.output)
        self.secrets = self.session.client("secretsmanager")
        self.store = SecretsManagerSecrets(lambda: self.secrets)  # reads as the functions read

    def ring(self) -> keyring.Ring:
        """The keys as the functions read them (the same code)."""
        return keyring.ring_from_secret(self.store, self.secret_arn, self.grace_s)

    def rotate(self, *, force: bool = False, revoke: bool = False) -> keyring.Ring:
        """A new signing key; the old one verifies during the grace (none with `revoke`). Returns the new ring."""
        before = self.ring()
        previous = before.previous
        if previous is not None and previous.valid_at(self.now()) and not (force or revoke):
            assert previous.valid_until is not None  # a previous key always has its end
            raise RotationRefused(
                f"the last rotation's grace runs until {_moment(previous.valid_until)}: {self.signed} signed with key "
                f"{previous.kid} are still accepted, and only two keys are valid at a time, so rotating again now "
                "would refuse them at once. Rotate after that time, or force it (FORCE=1) to refuse them now"
            )
        value = self.secrets.get_random_password(PasswordLength=KEY_CHARS, ExcludePunctuation=True)["RandomPassword"]
        self.secrets.put_secret_value(SecretId=self.secret_arn, SecretString=value)
        if revoke:
            self.secrets.update_secret_version_stage(
                SecretId=self.secret_arn,
                VersionStage=secret_versions.PREVIOUS,
                RemoveFromVersionId=before.current.kid,
            )
        after = self.ring()
        self.out(
            f"{self.key}: new key {after.current.kid} in {self.secret_arn}; the functions sign with it once they "
            f"re-read the secret (within {keyring.REFRESH_SECONDS} s, at once when shown something it signed)"
        )
        if revoke:
            self.out(
                f"old key {before.current.kid}: revoked, its {self.signed} are refused once the functions re-read the "
                f"secret (within {keyring.REFRESH_SECONDS} s); {self.after_revoke}"
            )
        elif after.previous is not None and after.previous.valid_until is not None:
            self.out(
                f"old key {after.previous.kid}: {self.signed} it signed stay valid until "
                f"{_moment(after.previous.valid_until)} ({self.grace_s} s, {self.why_grace}), then are refused"
            )
        return after
