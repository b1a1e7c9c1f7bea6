"""The API's two key classes (game servers, operators): each key's value in its own secret, its usage plan with
throttle and quota; and the deployment's keys: the digest key (never rotated), the HMAC signing secrets (page
cursors, player and run tokens) and the receipt key (production).

Both build into the scope they are given (the construct `Api`, or for the keys the RestApi, as
`RestApi.add_api_key` would), keeping the logical ids deployments have (tests/infra/test_stateful_ids.py).
"""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from .nag import acknowledge
from .naming import pascal
from .paths import routes
from .props import LeaderboardProps

# Each function refuses a key of the wrong class with 403, before any work, telling the classes apart by the value API
# Gateway checked against each class's secret (lambda_src/cdk_leaderboard_lambda/domain/api_key_classes.py), not by the
# key's id, which changes at every rotation. A usage plan's zero per-method throttle would refuse it too, but as a 429,
# which tells a misconfigured client to retry forever.


class Secrets:
    """The deployment's generated secrets, one purpose each: the digest key, the token signing key, the two API
    keys' values; in production also the cursor and receipt signing keys (elsewhere, where a secret's 0.40 USD a
    month would take dev past its idle budget, those two derive from a secret below: docs/OPERATIONS.md)."""

    def __init__(self, scope: Construct, *, props: LeaderboardProps) -> None:
        removal = props.effective_removal_policy
        # The digest key (lambda_src/cdk_leaderboard_lambda/domain/digest_key.py): keys the hashes that name players'
        # items. Never rotated: a new value would move those partitions (`make rotate-digest-key` refuses). Its logical
        # id is CursorSecret's, from when it signed page cursors too: its value keyed every item a deployment has, so it
        # stays this key and nothing moves on upgrade. Only the description changes (CloudFormation generates a new
        # value only when GenerateSecretString changes: tests/infra/test_secrets.py pins it).
        # existing_digest_key_secret: an earlier deployment's (a stack re-created over its retained tables), adopted.
        # `digest_key_id`: what the functions read it by; `digest_key_grant_arn`: what their role may read.
        self.digest_secret: secretsmanager.ISecret
        if props.existing_digest_key_secret is None:
            self.digest_secret = _signing_secret(
                scope,
                "CursorSecret",
                f"Leaderboard {props.stage}: digest key of hashed player partitions. NEVER put a new value: it would "
                "lose every player's runs, counters and erasure items",
                "Never rotated: a new value would move the partitions it keys (a data migration, docs/DESIGN.md)",
                removal,
            )
            self.digest_key_id = self.digest_key_grant_arn = self.digest_secret.secret_arn
        else:
            self.digest_secret, self.digest_key_id, self.digest_key_grant_arn = _adopted_secret(
                scope, "AdoptedDigestKeySecret", props.existing_digest_key_secret
            )
        # Signs player and run tokens (HS256); rotated by putting a new value: the previous version (AWSPREVIOUS)
        # still verifies for TOKEN_KEY_GRACE_SECONDS (longer than a player token lives).
        self.token_secret = _signing_secret(
            scope,
            "TokenSigningSecret",
            f"Leaderboard {props.stage}: HMAC key that signs player and run tokens",
            "Rotated by putting a new value (docs/API.md): the previous one verifies during a grace period",
            removal,
        )
        # Signs page cursors (HMAC over a key derived from each version: cursors.py), rotated by `make
        # rotate-cursor-key`: the previous version verifies a cursor's TTL more. In production only; elsewhere the
        # cursor keys derive from the token signing secret and rotate with it.
        self.cursor_secret = (
            _signing_secret(
                scope,
                "CursorSigningSecret",
                f"Leaderboard {props.stage}: HMAC key that signs page cursors",
                "Rotated by `make rotate-cursor-key`: the previous version verifies during a cursor's lifetime",
                removal,
            )
            if props.is_prod
            else None
        )
        # Signs receipts and closing summaries (Ed25519): {"seed", "retired"}, the seed generated here, retired keys'
        # public halves added by `make rotate-receipt-key` (lambda_src/cdk_leaderboard_lambda/domain/receipt_keys.py).
        # In production only: a secret is 0.40 USD a month and dev's budget is 10 at idle, so outside production the
        # functions derive the key from the digest key, which never rotates (a bare seed: no retired keys; the same key
        # as before the digest key had a name of its own; docs/PROVING.md).
        self.receipt_secret = (
            None
            if not props.is_prod
            else secretsmanager.Secret(
                scope,
                "ReceiptSigningSecret",
                description=f"Leaderboard {props.stage}: Ed25519 key that signs receipts and closing summaries",
                generate_secret_string=secretsmanager.SecretStringGenerator(
                    secret_string_template='{"retired":[]}',
                    generate_string_key="seed",
                    exclude_punctuation=True,
                    password_length=64,
                ),
                removal_policy=removal,
            )
        )
        if self.receipt_secret is not None:
            acknowledge(
                self.receipt_secret,
                "SMG4",
                "Rotated by `make rotate-receipt-key`: the old key's public half must stay listed in the JWKS, which a "
                "rotation Lambda replacing the value would drop",
            )
        # Each key's value is generated into its own secret; the template only references it.
        self.game_key_secret = _key_secret(
            scope, "GameKeySecret", f"Leaderboard {props.stage}: game-server API key", removal
        )
        self.admin_key_secret = _key_secret(
            scope, "AdminKeySecret", f"Leaderboard {props.stage}: admin API key", removal
        )


def _signing_secret(
    scope: Construct, id: str, description: str, rotation: str, removal: RemovalPolicy
) -> secretsmanager.Secret:
    """A per-deployment HMAC key (64 characters) that no template or person sees; `rotation`: why SMG4's
    automatic rotation is not needed."""
    secret = secretsmanager.Secret(
        scope,
        id,
        description=description,
        generate_secret_string=secretsmanager.SecretStringGenerator(exclude_punctuation=True, password_length=64),
        removal_policy=removal,
    )
    acknowledge(secret, "SMG4", rotation)
    return secret


def _adopted_secret(scope: Construct, id: str, arn_or_name: str) -> tuple[secretsmanager.ISecret, str, str]:
    """A secret the stack does not own: the secret, what a function reads it by (GetSecretValue takes its complete
    ARN or its name), and the resource a grant names (by name: any of the six characters Secrets Manager appends)."""
    if arn_or_name.startswith("arn:"):
        return secretsmanager.Secret.from_secret_complete_arn(scope, id, arn_or_name), arn_or_name, arn_or_name
    secret = secretsmanager.Secret.from_secret_name_v2(scope, id, arn_or_name)
    return secret, arn_or_name, f"{secret.secret_arn}-??????"


def _key_secret(scope: Construct, id: str, description: str, removal: RemovalPolicy) -> secretsmanager.Secret:
    secret = secretsmanager.Secret(
        scope,
        id,
        description=description,
        # API Gateway takes 20 to 128 characters.
        generate_secret_string=secretsmanager.SecretStringGenerator(exclude_punctuation=True, password_length=40),
        removal_policy=removal,
    )
    acknowledge(secret, "SMG4", "Rotated by `make rotate-key`: a new API key needs API Gateway, not a rotation Lambda")
    return secret


class ApiKeys:
    """The game-server and admin keys with their usage plans (`usage_plans`, by access class), on the stage.

    The functions tell the classes apart by each class's secret (its ARN in their environment), never by a key's
    id: a rotation makes a new key, with a new id.
    """

    def __init__(self, api: apigw.SpecRestApi, *, props: LeaderboardProps, secrets: Secrets) -> None:
        self.usage_plans = {
            routes.GAME: self._key_and_plan(
                api,
                routes.GAME,
                secrets.game_key_secret,
                description="Game servers: score submissions",
                throttle=apigw.ThrottleSettings(
                    rate_limit=props.throttles.game_key_rate_limit, burst_limit=props.throttles.game_key_burst_limit
                ),
                daily_quota=props.throttles.game_key_daily_quota,
            ),
            routes.ADMIN: self._key_and_plan(
                api,
                routes.ADMIN,
                secrets.admin_key_secret,
                description="Operators and the dashboard: boards, snapshots, the simulator",
                throttle=apigw.ThrottleSettings(
                    rate_limit=props.throttles.admin_key_rate_limit, burst_limit=props.throttles.admin_key_burst_limit
                ),
                daily_quota=props.throttles.admin_key_daily_quota,
            ),
        }

    def _key_and_plan(
        self,
        api: apigw.SpecRestApi,
        access: str,
        secret: secretsmanager.ISecret,
        *,
        description: str,
        throttle: apigw.ThrottleSettings,
        daily_quota: int,
    ) -> apigw.UsagePlan:
        """One API key class: its key (value from its secret), and its usage plan with throttle and quota.

        API Gateway accepts any key of any plan attached to the stage on every keyed method: the functions
        refuse a key of the other class (403), by its value.
        """
        title = pascal(access)
        key = apigw.ApiKey(
            api,  # the scope RestApi.add_api_key uses: the key keeps its logical id
            f"{title}Key",
            description=f"{description}; its value lives only in Secrets Manager",
            # A {{resolve:secretsmanager:...}} reference in the template, never the value itself.
            value=secret.secret_value.unsafe_unwrap(),
            # No stage keys (add_api_key's): the usage plan ties the key to the stage, which depends on every
            # function. (The functions name the key's secret, not the key, so neither could form a cycle.)
        )
        plan = api.add_usage_plan(
            f"{title}Plan",
            description=description,
            throttle=throttle,
            quota=apigw.QuotaSettings(limit=daily_quota, period=apigw.Period.DAY),
        )
        plan.add_api_stage(stage=api.deployment_stage)
        plan.add_api_key(key)
        return plan
