"""Rotation of the keys that sign page cursors (lambda_src/leaderboard/cursors.py), and the digest key's refusal.

Production: the secret `CursorSigningSecretArn`, which the functions read as a ring (keyring.py): the AWSCURRENT
version signs, the AWSPREVIOUS one verifies until cursors.grace_seconds after the current version was created (an
instance may sign with the old key until it re-reads the ring, and a cursor lives cursor_ttl_seconds). A rotation
is one PutSecretValue; a second one within that grace would drop the key before it, and with it the cursors in
flight: refused unless forced. Nothing stored depends on this key: entries, runs, pending scores, rate counters,
erasure items and commitment keys are named by the digest key, which no rotation touches.

Outside production the cursor keys derive from the token signing secret (a secret of their own would take dev past
its idle budget): `rotate-token-key` rotates both, and this command says so. The digest key is never rotated: its
command refuses and says why (DIGEST_REFUSAL).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import boto3
import cdk_leaderboard.paths  # noqa: F401 (loads the Lambda package under its one name, `leaderboard`)

from leaderboard import cursors, keyring
from leaderboard.data.secrets import SecretsManagerSecrets
from leaderboard.settings import Settings

from .outputs import require, stack_outputs
from .token_key import RotationRefused, _moment

OUTPUT = "CursorSigningSecretArn"
KEY_CHARS = 64  # as the stack generates it (stacks/leaderboard/api_keys.py)
# The functions' grace for the previous key, from their default settings (the stack sets no CURSOR_TTL_SECONDS).
FUNCTIONS_GRACE_S = cursors.grace_seconds(Settings.from_environment({"SCORES_TABLE": "-", "SNAPSHOTS_TABLE": "-"}))

DIGEST_REFUSAL = (
    "the digest key is never rotated: it keys the hashed partitions of every player's commitment keys, runs, "
    "pending pointers, rate counters and erasure items, so a new value would give players a second commitment, "
    "lose their runs and counters, and leave items an erasure can no longer find. Changing it is a data migration "
    '(rewrite every such item under the new key), not a rotation (docs/DESIGN.md, "One key, one purpose"). '
    "The keys that sign can rotate: rotate-cursor-key, rotate-token-key, rotate-receipt-key"
)


class DigestKeyNotRotatable(Exception):
    """What `rotate-digest-key` answers, always."""


def refuse_digest_rotation() -> None:
    raise DigestKeyNotRotatable(DIGEST_REFUSAL)


def require_own_secret(stage: str, production: bool) -> None:
    """Refuse, before any AWS call, a stage whose cursor keys derive from the token signing secret."""
    if not production:
        raise RotationRefused(
            f"stage {stage} has no cursor signing secret of its own: outside production the cursor keys derive from "
            "the token signing secret, so `make rotate-token-key` rotates both (the previous token key verifies "
            "cursors as long as tokens)"
        )


@dataclass
class CursorKeyRotator:
    session: boto3.Session
    stack: str
    out: Callable[[str], None] = print
    now: Callable[[], float] = time.time
    grace_s: int = field(default=FUNCTIONS_GRACE_S)

    def __post_init__(self) -> None:
        (self.secret_arn,) = require(stack_outputs(self.session, self.stack), OUTPUT)
        self.secrets = self.session.client("secretsmanager")
        self.store = SecretsManagerSecrets(lambda: self.secrets)  # reads as the functions read

    def ring(self) -> keyring.Ring:
        """The keys as the functions read them (the same code)."""
        return keyring.ring_from_secret(self.store, self.secret_arn, self.grace_s)

    def rotate(self, *, force: bool = False) -> keyring.Ring:
        """A new cursor key; the old one verifies for the grace. Returns the new ring."""
        previous = self.ring().previous
        if previous is not None and previous.valid_at(self.now()) and not force:
            assert previous.valid_until is not None  # a previous key always has its end
            raise RotationRefused(
                f"the last rotation's grace runs until {_moment(previous.valid_until)}: cursors signed with key "
                f"{previous.kid} are still accepted, and only two keys are valid at a time, so rotating again now "
                "would refuse them at once (their readers start again from the first page). Rotate after that "
                "time, or force it (FORCE=1)"
            )
        value = self.secrets.get_random_password(PasswordLength=KEY_CHARS, ExcludePunctuation=True)["RandomPassword"]
        self.secrets.put_secret_value(SecretId=self.secret_arn, SecretString=value)
        after = self.ring()
        self.out(
            f"cursor key: new key {after.current.kid} in {self.secret_arn}; the functions sign with it once they "
            f"re-read the secret (within {keyring.REFRESH_SECONDS} s, at once when shown a cursor it signed)"
        )
        if after.previous is not None and after.previous.valid_until is not None:
            self.out(
                f"old key {after.previous.kid}: cursors it signed stay valid until "
                f"{_moment(after.previous.valid_until)} ({self.grace_s} s), then are refused"
            )
        return after
