"""The functions of the route table's registry on one hand-written role, with their log groups, code and layer.

`Functions` builds into the scope it is given (the construct `Api`) instead of being a construct of its own: a level
more in the construct tree would change the logical id of every log group below it, which CloudFormation would
replace (tests/infra/test_stateful_ids.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from aws_cdk import CfnResource, Duration
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from . import function_access, lambda_asset
from .api_keys import Secrets
from .nag import acknowledge
from .naming import pascal
from .paths import LAMBDA_SRC, routes
from .props import LeaderboardProps
from .tables import LeaderboardTables

# Lambda defaults in one place.
RUNTIME = lambda_.Runtime.PYTHON_3_14
ARCHITECTURE = lambda_.Architecture.ARM_64
# Powertools (idempotency) comes from AWS's public layer, its ARN read from a public SSM parameter at
# deploy time: nothing to bundle, no Docker. Same version as requirements-dev.txt (a test checks).
POWERTOOLS_VERSION = "3.37.0"
POWERTOOLS_LAYER_PARAMETER = f"/aws/service/powertools/python/arm64/python3.14/{POWERTOOLS_VERSION}"


class Functions:
    """Every function of `routes.FUNCTIONS` (`by_name`), on the one shared `role`, each with its own log group.

    The other parts of the construct never touch the role or the functions: they say what they need (statements,
    environment variables) and the composition root (construct.py) hands it over through `allow` and
    `add_environment`, the only two ways in.
    """

    def __init__(
        self,
        scope: Construct,
        *,
        props: LeaderboardProps,
        tables: LeaderboardTables,
        environment: Mapping[str, str],
        secrets: Secrets,
    ) -> None:
        removal = props.effective_removal_policy
        self.log_groups: dict[str, logs.LogGroup] = {
            f.name: logs.LogGroup(scope, f"{pascal(f.name)}Logs", retention=props.log_retention, removal_policy=removal)
            for f in routes.FUNCTIONS
        }
        self.role_policy = iam.PolicyDocument(
            statements=_shared_statements(tables, list(self.log_groups.values()), secrets.digest_key_grant_arn)
        )
        self.role = iam.Role(
            scope,
            "FunctionRole",
            description="Shared execution role of the leaderboard functions",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            inline_policies={"leaderboard": self.role_policy},
        )
        acknowledge(self.role, "IAM5[Resource::*]", "Only the X-Ray statement: X-Ray has no resource-level permissions")
        # lambda_src and the locked third-party packages, for the functions' platform (lambda_asset.py)
        code = lambda_asset.code(LAMBDA_SRC)
        # A pinned ARN (prop) skips the public parameter, e.g. when AWS has not published it in a region.
        powertools_arn = props.powertools_layer_arn or ssm.StringParameter.value_for_string_parameter(
            scope, POWERTOOLS_LAYER_PARAMETER
        )
        powertools = lambda_.LayerVersion.from_layer_version_arn(scope, "PowertoolsLayer", powertools_arn)
        # CDK would append its own statements (X-Ray) to a role it is handed; ours is complete already.
        fixed_role = self.role.without_policy_updates()
        self.by_name: dict[str, lambda_.Function] = {
            f.name: lambda_.Function(
                scope,
                pascal(f.name),
                description=f.description,
                runtime=RUNTIME,
                architecture=ARCHITECTURE,
                handler=f.handler,
                code=code,
                layers=[powertools],
                role=fixed_role,
                memory_size=props.lambda_memory_mb,
                reserved_concurrent_executions=props.reserved_concurrency.get(f.name),
                timeout=Duration.seconds(f.timeout_seconds),
                environment=dict(environment),
                log_group=self.log_groups[f.name],
                logging_format=lambda_.LoggingFormat.JSON,
                tracing=lambda_.Tracing.ACTIVE,
            )
            for f in routes.FUNCTIONS
        }
        for function in self.by_name.values():
            for name, value in props.function_overrides.items():
                cast(CfnResource, function.node.default_child).add_property_override(name, value)
        # The keys and the snapshot archive's changes, each for the functions that need it, and the scores table's
        # writes denied to the public read functions (function_access.py). A policy of its own, attached once the
        # functions exist: their ARNs in the role's inline policy would be a cycle (a function depends on its role).
        # What starts calling the functions waits for it (`scoped_policy`).
        self.scoped_policy = iam.Policy(
            scope,
            "FunctionScopedPolicy",
            roles=[self.role],
            statements=function_access.statements(
                [
                    *function_access.secret_grants(
                        token=secrets.token_secret.secret_arn,
                        cursor=(secrets.cursor_secret or secrets.token_secret).secret_arn,
                        game_key=secrets.game_key_secret.secret_arn,
                        admin_key=secrets.admin_key_secret.secret_arn,
                        receipt=None if secrets.receipt_secret is None else secrets.receipt_secret.secret_arn,
                    ),
                    *function_access.snapshot_grants(tables.snapshots.table_arn),
                    *function_access.scores_grants(tables.scores.table_arn),
                ],
                {name: function.function_arn for name, function in self.by_name.items()},
            ),
        )

    def allow(self, statements: Sequence[iam.PolicyStatement]) -> None:
        """More statements in the shared role's one inline policy (what another part of the construct needs)."""
        self.role_policy.add_statements(*statements)

    def add_environment(self, variables: Mapping[str, str], names: Sequence[str] | None = None) -> None:
        """Environment variables for the functions named (every function when `names` is None)."""
        for name in self.by_name if names is None else names:
            for key, value in variables.items():
                self.by_name[name].add_environment(key, value)


def _shared_statements(
    tables: LeaderboardTables, log_groups: list[logs.LogGroup], digest_secret_arn: str
) -> list[iam.PolicyStatement]:
    """What every function of the one execution role may do: exactly the actions they use (what only some of them
    may do is in the role's scoped policy: function_access.py)."""
    return [
        iam.PolicyStatement(
            sid="ScoresReadWrite",
            # UpdateItem: keep-best/latest/increment (also inside TransactWriteItems); Query: a player's
            # boards and the board list; GetItem/BatchGetItem: a board, an entry, increment's read;
            # PutItem/DeleteItem: board configs and idempotency records; BatchWriteItem: seeding, purges. Its writes
            # are denied to the public read functions (function_access.scores_grants).
            actions=[
                "dynamodb:BatchGetItem",
                "dynamodb:BatchWriteItem",
                "dynamodb:DeleteItem",
                "dynamodb:GetItem",
                "dynamodb:PutItem",
                "dynamodb:Query",
                "dynamodb:UpdateItem",
            ],
            resources=[tables.scores.table_arn],
        ),
        iam.PolicyStatement(sid="RankIndexQuery", actions=["dynamodb:Query"], resources=[tables.rank_index_arn]),
        iam.PolicyStatement(
            sid="ScoresStreamRead",
            # Lambda reads the stream for the rank-counter function with the function's own role.
            actions=[
                "dynamodb:DescribeStream",
                "dynamodb:GetRecords",
                "dynamodb:GetShardIterator",
                "dynamodb:ListStreams",
            ],
            resources=[cast(str, tables.scores.table_stream_arn)],  # the table has a stream
        ),
        iam.PolicyStatement(
            sid="OwnLogGroups",
            actions=["logs:CreateLogStream", "logs:PutLogEvents"],
            resources=[lg.log_group_arn for lg in log_groups],
        ),
        iam.PolicyStatement(
            sid="DigestKeyRead",
            # Player ids are hashed under it (item_keys.py) on most paths: every function reads it, once per cold start,
            # the current value only (it never rotates). Outside production also the receipt key's seed.
            actions=["secretsmanager:GetSecretValue"],
            resources=[digest_secret_arn],
        ),
        iam.PolicyStatement(
            sid="XRayTraces",
            # X-Ray has no resource-level permissions for these actions: "*" is the narrowest possible.
            actions=["xray:PutTraceSegments", "xray:PutTelemetryRecords"],
            resources=["*"],
        ),
    ]
