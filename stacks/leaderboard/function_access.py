"""Which function of the one shared role may read which key and rewrite the snapshot archive.

The role stays one (the design asks for one); its statements that grant a signing or key secret, or a change to the
snapshot archive, carry the condition `ArnEquals {lambda:SourceFunctionArn: [the functions' ARNs]}`. Lambda puts the
calling function's ARN in the request context of every AWS call made from inside its execution environment (and
of the log and trace calls it makes for it), so such a statement allows the call for those functions only. It
allows nothing where the key is absent: calls Lambda makes on the role's behalf outside the environment (a stream
read by an event source mapping: those statements stay unconditioned), and the role's credentials used anywhere
but inside a function. IAM's DynamoDB condition keys cannot require a ConditionExpression: that an appender never
overwrites a snapshot is the code's (data/snapshots.py: attribute_not_exists), not IAM's, to keep.

The readers come from the route table where it says who needs a key (the access class of the routes a function
serves, the routes that take a page cursor or issue tokens); the signers and the snapshot archive's writers are named.

The scores table's writes stay in the role's own policy (every other function writes it) and are denied to the public
read functions by a statement here. A Deny, not writes moved here as an Allow per function: the role's policy is
updated before this one, which waits for the functions, so an upgrade would refuse every write in between.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from aws_cdk import aws_iam as iam

from .paths import routes

SOURCE_FUNCTION_ARN = "lambda:SourceFunctionArn"
ROTATING_READ = ("secretsmanager:GetSecretValue", "secretsmanager:ListSecretVersionIds")  # current + previous
ONE_VALUE_READ = ("secretsmanager:GetSecretValue",)


def serving(*accesses: str) -> frozenset[str]:
    """The functions that serve a route of one of these access classes."""
    return frozenset(r.function.name for r in routes.ROUTES if r.access in accesses)


# Verify player and run tokens (the bearer routes: PLAYER, RUN) or issue them (the token route's body); verify live
# tokens (the Event API's authorizer).
TOKEN_KEY_USERS = (
    serving(*routes.BEARER)
    | {r.function.name for r in routes.ROUTES if r.body is routes.TOKEN_BODY}
    | {routes.LIVE_AUTHORIZER.name}
)
# Hand out live tokens (GET /leaderboards/{board}/scores): who asks is, through the edge, the viewer address the
# edge wrote, trusted only with the edge's proof, which these read.
LIVE_TOKEN_ISSUERS = frozenset(r.function.name for r in routes.ROUTES if r.operation == "live_token")
# Compare the key given with the class's value (http._check_key: a route reads only its own class's ring).
GAME_KEY_USERS = serving(routes.GAME)
ADMIN_KEY_USERS = serving(routes.ADMIN)
# Sign and verify page cursors: the functions of the routes that take one, and the live broadcaster, whose top
# (live.read_top) is GET .../top's first page and signs its next_cursor when the board holds more than the top.
CURSOR_KEY_USERS = frozenset(r.function.name for r in routes.ROUTES if "cursor" in r.query) | {
    routes.LIVE_BROADCASTER.name
}
# The receipt key: receipts (GET .../receipt with the player's token: score-submit), the JWKS (its public halves are
# read from the secret that holds the seed: lambda_src/cdk_leaderboard_lambda/domain/receipt_keys.py; served by
# leaderboard-admin, which reads it anyway), closing summaries signed by a close on request or on schedule, and signed
# again by an erasure (player_removal.py), which both of those run. No public read function reads it.
RECEIPT_KEY_USERS = frozenset(
    {r.function.name for r in routes.ROUTES if r.path.endswith(("/receipt", "/jwks.json"))}
    | {routes.LEADERBOARD_ADMIN.name, routes.PERIOD_CLOSER.name}
)
# The snapshot archive: POST /snapshot appends, a close (on request or on schedule) appends the final snapshot, once.
SNAPSHOT_APPENDERS = frozenset(
    {routes.LEADERBOARD_SNAPSHOT.name, routes.LEADERBOARD_ADMIN.name, routes.PERIOD_CLOSER.name}
)
SNAPSHOT_READERS = frozenset({routes.LEADERBOARD_SNAPSHOT.name})  # GET /snapshots
# The one change the archive gets: erasure (DELETE /players/{id}, and the scheduled job that goes on with an
# erasure its caller left: period-closer) scans it in steps and rewrites the snapshots naming the erased player.
SNAPSHOT_REWRITERS = frozenset({routes.LEADERBOARD_ADMIN.name, routes.PERIOD_CLOSER.name})


# The public read functions: every route they serve is a GET that anyone may call (leaderboard-query, player-stats).
# They write nothing, no cache, counter, idempotency record or closing: tests/integration/
# test_public_reads_write_nothing.py meters each of their routes on DynamoDB Local.
PUBLIC_READERS = frozenset(
    f.name
    for f in routes.FUNCTIONS
    if (served := [r for r in routes.ROUTES if r.function.name == f.name])
    and all(r.access == routes.PUBLIC and r.method == "GET" for r in served)
)
# What the role's own policy allows on the scores table beyond reading it (functions.py: ScoresReadWrite).
SCORES_WRITES = ("dynamodb:BatchWriteItem", "dynamodb:DeleteItem", "dynamodb:PutItem", "dynamodb:UpdateItem")


@dataclass(frozen=True)
class Grant:
    """Actions on resources, for the functions named only (`deny`: refused to them, whatever else allows it)."""

    sid: str
    actions: tuple[str, ...]
    resources: tuple[str, ...]
    functions: frozenset[str]
    deny: bool = False


def secret_grants(
    *,
    token: str,
    cursor: str,
    game_key: str,
    admin_key: str,
    receipt: str | None,
) -> list[Grant]:
    """The key secrets' grants, by ARN. `cursor` is the token secret's ARN outside production (the cursor keys
    derive from its versions there), and `receipt` is None there (derived from the digest key, which every
    function reads: outside production the receipt key is not kept from any function)."""
    grants = [
        Grant("TokenKeyRead", ROTATING_READ, (token,), TOKEN_KEY_USERS),
        Grant("CursorKeyRead", ROTATING_READ, (cursor,), CURSOR_KEY_USERS),
        Grant("GameKeyRead", ROTATING_READ, (game_key,), GAME_KEY_USERS),
        Grant("AdminKeyRead", ROTATING_READ, (admin_key,), ADMIN_KEY_USERS),
    ]
    if receipt is not None:
        grants.append(Grant("ReceiptKeyRead", ONE_VALUE_READ, (receipt,), RECEIPT_KEY_USERS))
    return grants


def edge_proof_grant(edge_proof_arn: str) -> Grant:
    """The edge's proof (production, with the WAF), for the functions that hand out live tokens."""
    return Grant("EdgeProofRead", ONE_VALUE_READ, (edge_proof_arn,), LIVE_TOKEN_ISSUERS)


def snapshot_grants(snapshots_arn: str) -> list[Grant]:
    return [
        # Appends only: PutItem with attribute_not_exists (data/snapshots.py); IAM cannot require the condition.
        Grant("SnapshotsAppend", ("dynamodb:PutItem",), (snapshots_arn,), SNAPSHOT_APPENDERS),
        Grant("SnapshotsRead", ("dynamodb:Query",), (snapshots_arn,), SNAPSHOT_READERS),
        Grant("SnapshotsErasure", ("dynamodb:Scan", "dynamodb:UpdateItem"), (snapshots_arn,), SNAPSHOT_REWRITERS),
    ]


def scores_grants(scores_arn: str) -> list[Grant]:
    """No write to the scores table from a public read function: what a request reaches without a key or a token
    can then change nothing in it, even through a flaw in the code."""
    return [Grant("ScoresNoWriteByPublicReads", SCORES_WRITES, (scores_arn,), PUBLIC_READERS, deny=True)]


def statements(grants: Iterable[Grant], function_arns: Mapping[str, str]) -> list[iam.PolicyStatement]:
    """Each grant as a statement that allows (or denies) only the functions it names (by their ARNs)."""
    return [
        iam.PolicyStatement(
            sid=g.sid,
            effect=iam.Effect.DENY if g.deny else iam.Effect.ALLOW,
            actions=list(g.actions),
            resources=list(g.resources),
            conditions={"ArnEquals": {SOURCE_FUNCTION_ARN: [function_arns[name] for name in sorted(g.functions)]}},
        )
        for g in grants
    ]
