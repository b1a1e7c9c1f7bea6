"""Rotation of the Ed25519 key that signs receipts and closing summaries (lambda_src/leaderboard/receipt_keys.py).

The key set is the secret `ReceiptSigningSecretArn`: {"seed", "retired"}. A rotation is one PutSecretValue of a new
document: a new seed (Secrets Manager's GetRandomPassword, as the stack generated the first), and the old key's
public half added to `retired` with the time, so the JWKS lists it with "status": "retired" for good (receipts do
not expire) while the old seed is gone: nothing can be signed with it again. Function instances sign with the new
key once they re-read the secret (within keyring.REFRESH_SECONDS); what the old one signed meanwhile verifies too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import boto3
import cdk_leaderboard.paths  # noqa: F401 (loads the Lambda package under its one name, `leaderboard`)

from leaderboard import keyring, receipt_keys
from leaderboard.data.secrets import SecretsManagerSecrets

from .outputs import require, stack_outputs

OUTPUT = "ReceiptSigningSecretArn"
SEED_CHARS = 64  # as the stack generates it (stacks/leaderboard/api_keys.py)


class NothingToRotate(Exception):
    """The stage has no receipt key secret of its own: outside production the key derives from the cursor secret."""


def require_own_secret(stage: str, production: bool) -> None:
    """Refuse, before any AWS call, a stage whose stack has no receipt signing secret (production only)."""
    if not production:
        raise NothingToRotate(
            f"stage {stage} has no receipt signing key of its own to rotate: outside production the functions derive "
            'it from the cursor secret, with no retired keys (docs/PROVING.md, "The signing key"); for receipts '
            'that must outlive a rotation, set "production": true for the stage in cdk.json, deploy, and rotate there'
        )


@dataclass
class ReceiptKeyRotator:
    session: boto3.Session
    stack: str
    out: Callable[[str], None] = print
    now: Callable[[], datetime] = lambda: datetime.now(UTC)

    def __post_init__(self) -> None:
        (self.secret_arn,) = require(stack_outputs(self.session, self.stack), OUTPUT)
        self.secrets = self.session.client("secretsmanager")
        self.store = SecretsManagerSecrets(lambda: self.secrets)  # reads as the functions read

    def keys(self) -> receipt_keys.KeySet:
        """The key set as the functions read it (the same code)."""
        return receipt_keys.KeySet.parse(self.store.value(self.secret_arn))

    def rotate(self) -> receipt_keys.KeySet:
        """A new signing key; the old one stays in the JWKS as retired. Returns the new key set."""
        before = self.store.value(self.secret_arn)
        old = receipt_keys.KeySet.parse(before).current.kid
        seed = self.secrets.get_random_password(PasswordLength=SEED_CHARS, ExcludePunctuation=True)["RandomPassword"]
        moment = self.now().astimezone(UTC)
        retired_at = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
        self.secrets.put_secret_value(
            SecretId=self.secret_arn, SecretString=receipt_keys.rotated(before, seed, retired_at)
        )
        after = self.keys()
        self.out(
            f"receipt key: new key {after.current.kid} in {self.secret_arn}; the functions sign with it once they "
            f"re-read the secret (within {keyring.REFRESH_SECONDS} s)"
        )
        self.out(
            f"old key {old}: retired at {retired_at}; it stays in GET /.well-known/jwks.json, so what it signed "
            "still verifies, and it signs nothing more"
        )
        return after
