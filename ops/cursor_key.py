"""Rotation of the keys that sign page cursors (lambda_src/cdk_leaderboard_lambda/domain/cursors.py), and the digest
key's refusal.

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

from dataclasses import dataclass, field
from typing import ClassVar

import cdk_leaderboard.paths  # noqa: F401 (loads the Lambda package under its one name, as the construct does)

from cdk_leaderboard_lambda.domain import cursors
from cdk_leaderboard_lambda.shared.settings import Settings

from .token_key import RotationRefused, TokenKeyRotator

OUTPUT = "CursorSigningSecretArn"
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
class CursorKeyRotator(TokenKeyRotator):
    """The token key's rotator on the cursor signing secret, with the cursors' grace."""

    grace_s: int = field(default=FUNCTIONS_GRACE_S)
    output: ClassVar[str] = OUTPUT
    key: ClassVar[str] = "cursor key"
    signed: ClassVar[str] = "cursors"
    why_grace: ClassVar[str] = "an instance's re-read and a cursor's lifetime"
    after_revoke: ClassVar[str] = "their readers start again from the first page"
