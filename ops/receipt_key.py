"""Rotation of the Ed25519 key that signs receipts and closing summaries
(lambda_src/cdk_leaderboard_lambda/domain/receipt_keys.py).

The key set is the secret `ReceiptSigningSecretArn`: {"seed", "retired"}. A rotation is one PutSecretValue of a new
document: a new seed (Secrets Manager's GetRandomPassword, as the stack generated the first), and the old key's
public half added to `retired` with its `retired_at`, so the JWKS lists it with "status": "retired" for good
(receipts do not expire) while the old seed is gone. Function instances sign with the new key once they re-read the
secret (within keyring.REFRESH_SECONDS), so `retired_at` is the put's time plus that period and RETIRE_MARGIN_S:
what an instance signed with the old key until then verifies, anything dated later does not.

A revocation (a leaked key) adds `revoked_at` to a retired key's entry: the JWKS lists it as "revoked" and
verifiers refuse everything it signed, whatever its date (a thief writes any date). The current key is rotated out
first, then revoked: instances that have not re-read the secret yet sign with it for up to REFRESH_SECONDS, and
those signatures are refused too (a player asks for the receipt again; the API serves the summaries it signed
signed again by the current key).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import boto3
import cdk_leaderboard.paths  # noqa: F401 (loads the Lambda package under its one name, as the construct does)

from cdk_leaderboard_lambda.data.secrets import SecretsManagerSecrets
from cdk_leaderboard_lambda.domain import keyring, receipt_keys

from .outputs import require, stack_outputs

RevocationRefused = receipt_keys.RevocationRefused

OUTPUT = "ReceiptSigningSecretArn"
SEED_CHARS = 64  # as the stack generates it (stacks/leaderboard/api_keys.py)
# Beyond REFRESH_SECONDS: the put's and an instance's read's latency (retries included) and the skew between the
# operator's clock and Lambda's, so no honest signature falls after retired_at.
RETIRE_MARGIN_S = 60


class NothingToRotate(Exception):
    """The stage has no receipt key secret of its own: outside production the key derives from the digest key."""


def require_own_secret(stage: str, production: bool, action: str = "rotate") -> None:
    """Refuse, before any AWS call, a stage whose stack has no receipt signing secret (production only)."""
    if not production:
        raise NothingToRotate(
            f"stage {stage} has no receipt signing key of its own to {action}: outside production the functions derive "
            'it from the digest key, with no retired keys (docs/PROVING.md, "The signing key"); for receipts '
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
        # instances holding the old key set sign with the old key until they re-read it: not before then
        retired_at = rfc3339(self.now() + timedelta(seconds=keyring.REFRESH_SECONDS + RETIRE_MARGIN_S), up=True)
        self.secrets.put_secret_value(
            SecretId=self.secret_arn, SecretString=receipt_keys.rotated(before, seed, retired_at)
        )
        after = self.keys()
        self.out(
            f"receipt key: new key {after.current.kid} in {self.secret_arn}; the functions sign with it once they "
            f"re-read the secret (within {keyring.REFRESH_SECONDS} s)"
        )
        self.out(
            f"old key {old}: retired at {retired_at} (now + {keyring.REFRESH_SECONDS + RETIRE_MARGIN_S} s); it stays "
            "in GET /.well-known/jwks.json, so what it signed before then still verifies, and nothing dated later does"
        )
        return after

    def revoke(self, kid: str) -> receipt_keys.KeySet:
        """Mark a listed key revoked: verifiers refuse everything it signed. The current key is rotated out first."""
        if kid == self.keys().current.kid:
            self.out(f"key {kid} is the current key: rotating it out first, then revoking it")
            self.rotate()
            self.out(
                f"instances that have not re-read the secret yet sign with {kid} for up to {keyring.REFRESH_SECONDS} "
                "s more: what they sign is refused too (players ask for their receipt again)"
            )
        before = self.store.value(self.secret_arn)
        revoked_at = rfc3339(self.now())
        after_text = receipt_keys.revoked(before, kid, revoked_at)
        already = receipt_keys.KeySet.parse(after_text).jwks() == receipt_keys.KeySet.parse(before).jwks()
        if not already:
            self.secrets.put_secret_value(SecretId=self.secret_arn, SecretString=after_text)
        after = self.keys()
        (jwk,) = (k for k in after.jwks()["keys"] if k["kid"] == kid)
        self.out(
            f"key {kid}: revoked at {jwk['revoked_at']}"
            + (" (it was already)" if already else "")
            + "; GET /.well-known/jwks.json lists it as revoked once the functions re-read the secret (within "
            f"{keyring.REFRESH_SECONDS} s, plus the edge's cache), and verifiers refuse everything it signed: receipts "
            "and closing summaries are to be fetched again (the API signs them with the current key)"
        )
        return after


def rfc3339(moment: datetime, up: bool = False) -> str:
    """UTC with milliseconds, as the log and the receipts write times; `up` rounds a partial millisecond up."""
    moment = moment.astimezone(UTC)
    if up and moment.microsecond % 1000:
        moment += timedelta(microseconds=1000 - moment.microsecond % 1000)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
