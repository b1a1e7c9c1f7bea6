"""The functions on one hand-written role, and the REST API built from the route table, with its two keys."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, cast

from aws_cdk import ArnFormat, CfnResource, Duration, Names, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_ssm as ssm
from aws_cdk import aws_wafv2 as wafv2
from constructs import Construct

from .data import LeaderboardTables
from .nag import acknowledge, arn_prefix
from .paths import LAMBDA_SRC, routes, schema
from .players import erasure_statements
from .props import LeaderboardProps

# Lambda defaults in one place.
RUNTIME = lambda_.Runtime.PYTHON_3_14
ARCHITECTURE = lambda_.Architecture.ARM_64
CODE_EXCLUDES = ["**/__pycache__", "**/*.pyc"]
CORS_HEADERS = ["Content-Type", "X-Api-Key", "Authorization", "Idempotency-Key"]
# Powertools (idempotency) comes from AWS's public layer, its ARN read from a public SSM parameter at
# deploy time: nothing to bundle, no Docker. Same version as requirements-dev.txt (a test checks).
POWERTOOLS_VERSION = "3.37.0"
POWERTOOLS_LAYER_PARAMETER = f"/aws/service/powertools/python/arm64/python3.14/{POWERTOOLS_VERSION}"
# What API Gateway needs to write access (and execution) logs, as in AWS's managed policy for this role,
# minus its reads: the role is account-wide, every API of the region logs through it.
API_GATEWAY_LOGGING_ACTIONS = [
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:DescribeLogGroups",
    "logs:DescribeLogStreams",
    "logs:PutLogEvents",
]
# CloudFront puts the viewer's address in it (appended, so the first address is the client's own or what the client
# claimed: a per-client limit on it is a guard against a careless client, not a forger).
FORWARDED_FOR_HEADER = "X-Forwarded-For"
# Each function is told the id of each key class (requestContext.identity.apiKeyId, which API Gateway fills on
# every method that requires a key) and refuses a key of the wrong class with 403, before any work. A usage plan's
# zero per-method throttle would refuse it too, but as a 429, which tells a misconfigured client to retry forever.
KEY_ID_VARIABLES = {routes.GAME: "GAME_API_KEY_ID", routes.ADMIN: "ADMIN_API_KEY_ID"}


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def _json_schema(spec: dict) -> apigw.JsonSchema:
    """A route table JSON Schema (plain dict, draft 4 keywords) as API Gateway's model schema."""
    kwargs: dict = {}
    for key, value in spec.items():
        name = "not_" if key == "not" else re.sub(r"([A-Z])", r"_\1", key).lower()  # minLength -> min_length
        if key == "type":
            value = apigw.JsonSchemaType[value.upper()]
        elif key == "properties":
            value = {k: _json_schema(v) for k, v in value.items()}
        elif key in ("items", "not"):
            value = _json_schema(value)
        elif key == "dependencies":  # each a list of names, or a schema
            value = {k: v if isinstance(v, list) else _json_schema(v) for k, v in value.items()}
        kwargs[name] = value
    return apigw.JsonSchema(schema=apigw.JsonSchemaVersion.DRAFT4, **kwargs)


class LeaderboardApi(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        props: LeaderboardProps,
        tables: LeaderboardTables,
        cors_origins: Sequence[str],
    ) -> None:
        super().__init__(scope, id)
        # Physical names unique per stack and construct path: two leaderboards in one stack, or two stages in one
        # account, never share a name (nor the metrics keyed by it, such as API Gateway's ApiName).
        self.unique_name = Names.unique_resource_name(
            self, max_length=100, separator="-", allowed_special_characters="-"
        )
        removal = props.effective_removal_policy
        self._removal = removal
        self.api_gateway_account: apigw.CfnAccount | None = None
        log_groups = {
            f.name: logs.LogGroup(self, f"{_pascal(f.name)}Logs", retention=props.log_retention, removal_policy=removal)
            for f in routes.FUNCTIONS
        }
        # Signs page cursors (HMAC), so a client cannot forge one; one per deployment.
        self.cursor_secret = self._signing_secret(
            "CursorSecret",
            f"Leaderboard {props.stage}: HMAC key that signs page cursors",
            "A new value only invalidates the page cursors in flight: put one when needed",
        )
        # Signs player and run tokens (HS256); rotated by putting a new value: the previous version (AWSPREVIOUS)
        # still verifies for TOKEN_KEY_GRACE_SECONDS (longer than a player token lives).
        self.token_secret = self._signing_secret(
            "TokenSigningSecret",
            f"Leaderboard {props.stage}: HMAC key that signs player and run tokens",
            "Rotated by putting a new value (docs/API.md): the previous one verifies during a grace period",
        )
        # Each key's value is generated into its own secret; the template only references it.
        self.game_key_secret = self._key_secret("GameKeySecret", f"Leaderboard {props.stage}: game-server API key")
        self.admin_key_secret = self._key_secret("AdminKeySecret", f"Leaderboard {props.stage}: admin API key")
        self.role = self._shared_role(
            tables, list(log_groups.values()), self.cursor_secret, [self.token_secret, self.game_key_secret]
        )
        environment = {
            "SCORES_TABLE": tables.scores.table_name,
            "SNAPSHOTS_TABLE": tables.snapshots.table_name,
            "RANK_INDEX": schema.RANK_INDEX,
            "CORS_ALLOWED_ORIGINS": ",".join(cors_origins),
            "ENABLE_SIMULATOR": str(props.simulator_enabled).lower(),
            "PERIOD_RETENTION_DAYS": str(props.period_retention_days),
            "DECLARED_BOARDS": json.dumps([board.as_body() for board in props.boards], separators=(",", ":")),
            "MAX_BOARDS": str(props.max_boards),
            "CURSOR_SECRET_ARN": self.cursor_secret.secret_arn,
            "TOKEN_SIGNING_SECRET_ARN": self.token_secret.secret_arn,
            "TOKEN_ISSUER": self.unique_name,  # a token of another deployment is refused even if keys were shared
            # The game key compared by value where API Gateway requires no key (routes.GAME_OR_RUN)
            "GAME_KEY_SECRET_ARN": self.game_key_secret.secret_arn,
        }
        code = lambda_.Code.from_asset(str(LAMBDA_SRC), exclude=CODE_EXCLUDES)
        # A pinned ARN (prop) skips the public parameter, e.g. when AWS has not published it in a region.
        powertools_arn = props.powertools_layer_arn or ssm.StringParameter.value_for_string_parameter(
            self, POWERTOOLS_LAYER_PARAMETER
        )
        powertools = lambda_.LayerVersion.from_layer_version_arn(self, "PowertoolsLayer", powertools_arn)
        # CDK would append its own statements (X-Ray) to a role it is handed; ours is complete already.
        fixed_role = self.role.without_policy_updates()
        self.functions: dict[str, lambda_.Function] = {
            f.name: lambda_.Function(
                self,
                _pascal(f.name),
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
                environment=environment,
                log_group=log_groups[f.name],
                logging_format=lambda_.LoggingFormat.JSON,
                tracing=lambda_.Tracing.ACTIVE,
            )
            for f in routes.FUNCTIONS
        }
        for function in self.functions.values():
            for name, value in props.function_overrides.items():
                cast(CfnResource, function.node.default_child).add_property_override(name, value)
        self.rest_api = self._rest_api(props, cors_origins)

    def _signing_secret(self, id: str, description: str, rotation: str) -> secretsmanager.Secret:
        """A per-deployment HMAC key (64 characters) that no template or person sees; `rotation`: why SMG4's
        automatic rotation is not needed."""
        secret = secretsmanager.Secret(
            self,
            id,
            description=description,
            generate_secret_string=secretsmanager.SecretStringGenerator(exclude_punctuation=True, password_length=64),
            removal_policy=self._removal,
        )
        acknowledge(secret, "SMG4", rotation)
        return secret

    def _key_secret(self, id: str, description: str) -> secretsmanager.Secret:
        secret = secretsmanager.Secret(
            self,
            id,
            description=description,
            # API Gateway takes 20 to 128 characters.
            generate_secret_string=secretsmanager.SecretStringGenerator(exclude_punctuation=True, password_length=40),
            removal_policy=self._removal,
        )
        acknowledge(
            secret, "SMG4", "Rotated by `make rotate-key`: a new API key needs API Gateway, not a rotation Lambda"
        )
        return secret

    def _shared_role(
        self,
        tables: LeaderboardTables,
        log_groups: list[logs.LogGroup],
        cursor_secret: secretsmanager.ISecret,
        rotating_secrets: list[secretsmanager.ISecret],
    ) -> iam.Role:
        """One execution role for every function, exactly the actions they use."""
        statements = [
            iam.PolicyStatement(
                sid="ScoresReadWrite",
                # UpdateItem: keep-best/latest/increment (also inside TransactWriteItems); Query: a player's
                # boards and the board list; GetItem/BatchGetItem: a board, an entry, increment's read;
                # PutItem/DeleteItem: board configs and idempotency records; BatchWriteItem: seeding, purges.
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
                sid="SnapshotsAppendRead",
                # No UpdateItem or DeleteItem: the history is append-only.
                actions=["dynamodb:PutItem", "dynamodb:Query"],
                resources=[tables.snapshots.table_arn],
            ),
            *erasure_statements(tables),
            iam.PolicyStatement(
                sid="OwnLogGroups",
                actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[lg.log_group_arn for lg in log_groups],
            ),
            iam.PolicyStatement(
                sid="CursorSecretRead",
                actions=["secretsmanager:GetSecretValue"],
                resources=[cursor_secret.secret_arn],
            ),
            iam.PolicyStatement(
                sid="RotatingSecretsRead",
                # The current and previous versions (keyring.py): the token signing key, the game key's value.
                actions=["secretsmanager:GetSecretValue", "secretsmanager:ListSecretVersionIds"],
                resources=[s.secret_arn for s in rotating_secrets],
            ),
            iam.PolicyStatement(
                sid="XRayTraces",
                # X-Ray has no resource-level permissions for these actions: "*" is the narrowest possible.
                actions=["xray:PutTraceSegments", "xray:PutTelemetryRecords"],
                resources=["*"],
            ),
        ]
        # Kept: other parts of the construct (live updates) add their statements to this same inline policy.
        self.role_policy = iam.PolicyDocument(statements=statements)
        role = iam.Role(
            self,
            "FunctionRole",
            description="Shared execution role of the leaderboard functions",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            inline_policies={"leaderboard": self.role_policy},
        )
        acknowledge(role, "IAM5[Resource::*]", "Only the X-Ray statement: X-Ray has no resource-level permissions")
        return role

    def _rest_api(self, props: LeaderboardProps, cors_origins: Sequence[str]) -> apigw.RestApi:
        access_logs = logs.LogGroup(
            self, "AccessLogs", retention=props.log_retention, removal_policy=props.effective_removal_policy
        )
        # Anonymous reads get their own per-method throttle (every method has its own bucket).
        public_reads = {
            f"{r.path}/{r.method}": apigw.MethodDeploymentOptions(
                throttling_rate_limit=props.public_read_rate_limit,
                throttling_burst_limit=props.public_read_burst_limit,
            )
            for r in routes.ROUTES
            if r.access == routes.PUBLIC
        }
        # The token routes have no key, so no usage plan meters them: their own per-method bucket, as large as the
        # game key's plan (the ceiling game servers had on the score route), and in production the WAF's
        # per-client limit (_web_acl) on every request with a bearer token.
        token_routes = {
            f"{r.path}/{r.method}": apigw.MethodDeploymentOptions(
                throttling_rate_limit=props.game_key_rate_limit, throttling_burst_limit=props.game_key_burst_limit
            )
            for r in routes.ROUTES
            if r.access in (routes.PLAYER, routes.GAME_OR_RUN)
        }
        api = apigw.RestApi(
            self,
            "RestApi",
            rest_api_name=self.unique_name,
            description="Real-time leaderboard API",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            # Access logs need the account's API Gateway CloudWatch role: _account_logging_role, not CDK's
            # (that one attaches a managed policy).
            cloud_watch_role=False,
            deploy_options=apigw.StageOptions(
                stage_name=props.stage,
                access_log_destination=apigw.LogGroupLogDestination(access_logs),
                access_log_format=apigw.AccessLogFormat.json_with_standard_fields(
                    caller=False,
                    http_method=True,
                    ip=True,
                    protocol=True,
                    request_time=True,
                    resource_path=True,
                    response_length=True,
                    status=True,
                    user=False,
                ),
                throttling_rate_limit=props.throttle_rate_limit,
                throttling_burst_limit=props.throttle_burst_limit,
                method_options={**public_reads, **token_routes},
                tracing_enabled=True,
                metrics_enabled=True,  # per-method metrics (billed as custom metrics, only for methods in use)
            ),
            default_cors_preflight_options=apigw.CorsOptions(
                allow_origins=list(cors_origins),
                allow_methods=sorted({r.method for r in routes.ROUTES} | {"OPTIONS"}),
                allow_headers=CORS_HEADERS,
                max_age=Duration.hours(1),
            ),
        )
        stage = api.deployment_stage
        if not props.account_has_api_gateway_logging_role:
            self._account_logging_role(stage)
        acknowledge(stage, "APIG6", "JSON access logs are on; execution logs would log request data of every call")
        self._web_acl(props, stage)
        self._gateway_responses(api, cors_origins)
        validator = api.add_request_validator(
            "RequestValidator", validate_request_body=True, validate_request_parameters=True
        )
        integrations = {name: _lambda_proxy(fn) for name, fn in self.functions.items()}
        for route in routes.ROUTES:
            resource = api.root.resource_for_path(route.path)
            models = None
            if route.body_schema is not None:
                model = api.add_model(
                    "".join(_pascal(p.strip("{}")) for p in route.path.split("/")) + "Body",
                    content_type="application/json",
                    schema=_json_schema(route.body_schema),
                )
                models = {"application/json": model}
            method = resource.add_method(
                route.method,
                integrations[route.function.name],
                api_key_required=route.needs_key,
                request_validator=validator,
                request_parameters={f"method.request.querystring.{q}": True for q in route.required_query},
                request_models=models,
            )
            why = (
                f"Needs the {route.access} API key (usage plan)"
                if route.needs_key
                else "Public read by design"
                if route.access == routes.PUBLIC
                else "A bearer token (or the game key by value) that the function checks first: devices hold no key"
            )
            acknowledge(method, "APIG4", why)
            acknowledge(method, "COG4", f"{why}; players have no Cognito identity here")
        for path in sorted({r.path for r in routes.ROUTES}):
            self._method_not_allowed(api.root.resource_for_path(path), cors_origins)
        # One invoke permission per function, for this stage's methods, instead of CDK's one per method: the same
        # reach in practice (API Gateway invokes a function only from the methods integrated with it) and 20 fewer
        # resources per leaderboard against CloudFormation's 500 per stack.
        for name in sorted({r.function.name for r in routes.ROUTES}):
            self.functions[name].add_permission(
                "RestApiInvoke",
                principal=iam.ServicePrincipal("apigateway.amazonaws.com"),
                source_arn=api.arn_for_execute_api(method="*", path="/*", stage=stage.stage_name),
            )

        self.usage_plans = {
            routes.GAME: self._key_and_plan(
                api,
                routes.GAME,
                self.game_key_secret,
                description="Game servers: score submissions",
                throttle=apigw.ThrottleSettings(
                    rate_limit=props.game_key_rate_limit, burst_limit=props.game_key_burst_limit
                ),
                daily_quota=props.game_key_daily_quota,
            ),
            routes.ADMIN: self._key_and_plan(
                api,
                routes.ADMIN,
                self.admin_key_secret,
                description="Operators and the dashboard: boards, snapshots, the simulator",
                throttle=apigw.ThrottleSettings(
                    rate_limit=props.admin_key_rate_limit, burst_limit=props.admin_key_burst_limit
                ),
                daily_quota=props.admin_key_daily_quota,
            ),
        }
        return api

    def _key_and_plan(
        self,
        api: apigw.RestApi,
        access: str,
        secret: secretsmanager.ISecret,
        *,
        description: str,
        throttle: apigw.ThrottleSettings,
        daily_quota: int,
    ) -> apigw.UsagePlan:
        """One API key class: its key (value from its secret), and its usage plan with throttle and quota.

        API Gateway accepts any key of any plan attached to the stage on every keyed method: the functions
        refuse a key of the other class (403), told each key's id in their environment.
        """
        title = _pascal(access)
        key = apigw.ApiKey(
            api,  # the scope RestApi.add_api_key uses: the key keeps its logical id
            f"{title}Key",
            description=f"{description}; its value lives only in Secrets Manager",
            # A {{resolve:secretsmanager:...}} reference in the template, never the value itself.
            value=secret.secret_value.unsafe_unwrap(),
            # No stage keys (add_api_key's): the usage plan ties the key to the stage. A stage key would make
            # the key depend on the stage, hence on every function, whose environment names the key's id: a cycle.
        )
        for function in self.functions.values():
            function.add_environment(KEY_ID_VARIABLES[access], key.key_id)
        plan = api.add_usage_plan(
            f"{title}Plan",
            description=description,
            throttle=throttle,
            quota=apigw.QuotaSettings(limit=daily_quota, period=apigw.Period.DAY),
        )
        plan.add_api_stage(stage=api.deployment_stage)
        plan.add_api_key(key)
        return plan

    def _account_logging_role(self, stage: apigw.Stage) -> None:
        """The account's API Gateway CloudWatch role, without which a stage with access logs fails to create.

        It is account-wide (one per region): kept when the stack is deleted, so that other APIs of the
        account keep logging; a stack in an account that has one sets `account_has_api_gateway_logging_role`.
        """
        role = iam.Role(
            self,
            "ApiGatewayLoggingRole",
            description="API Gateway's account-wide CloudWatch Logs role (kept when the leaderboard stack is deleted)",
            assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
            inline_policies={
                "push-logs": iam.PolicyDocument(
                    statements=[
                        iam.PolicyStatement(
                            actions=API_GATEWAY_LOGGING_ACTIONS,
                            resources=[
                                Stack.of(self).format_arn(
                                    service="logs",
                                    resource="log-group",
                                    resource_name="*",
                                    arn_format=ArnFormat.COLON_RESOURCE_NAME,
                                )
                            ],
                        )
                    ]
                )
            },
        )
        role.apply_removal_policy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)  # see props.py
        acknowledge(
            role,
            f"IAM5[Resource::{arn_prefix(self, 'logs')}:log-group:*]",
            "Account-wide role: every API of the region writes its own log groups through it",
        )
        account = apigw.CfnAccount(self, "ApiGatewayAccount", cloud_watch_role_arn=role.role_arn)
        account.apply_removal_policy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
        stage.node.add_dependency(account)
        self.api_gateway_account = account  # the WebSocket stage's access logs need it too

    def _web_acl(self, props: LeaderboardProps, stage: apigw.Stage) -> None:
        """A regional WAF web ACL on the stage (on in production by default): per client, a rate limit on reads, so
        that one caller cannot take a public method's whole throttle bucket (which all callers share). Through the
        edge every request comes from CloudFront's addresses, so there the client is the viewer's address that
        CloudFront puts first in X-Forwarded-For; a request without that header is counted by its source address.
        Writes are left to their key's usage plan (a game server sends many from one address); requests with a bearer
        token (players' devices: run starts, run-token submissions, which no usage plan meters) count with the
        reads."""
        limit = props.effective_waf_limit
        if limit is None:
            acknowledge(
                stage,
                "APIG3",
                "WAF is off outside production (about 7 USD/month): per-method throttles and usage plans",
            )
            return

        def visibility(name: str) -> wafv2.CfnWebACL.VisibilityConfigProperty:
            return wafv2.CfnWebACL.VisibilityConfigProperty(
                cloud_watch_metrics_enabled=True,
                metric_name=f"{self.unique_name}-{name}",
                sampled_requests_enabled=True,
            )

        reads = wafv2.CfnWebACL.StatementProperty(
            byte_match_statement=wafv2.CfnWebACL.ByteMatchStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(method={}),
                positional_constraint="EXACTLY",
                search_string="GET",
                text_transformations=[wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")],
            )
        )
        forwarded = wafv2.CfnWebACL.StatementProperty(  # the documented test for a header's presence
            size_constraint_statement=wafv2.CfnWebACL.SizeConstraintStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(
                    single_header={"Name": FORWARDED_FOR_HEADER.lower()}
                ),
                comparison_operator="GT",
                size=0,
                text_transformations=[wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")],
            )
        )
        bearer = wafv2.CfnWebACL.StatementProperty(  # a player's device: a run start or a run-token submission
            size_constraint_statement=wafv2.CfnWebACL.SizeConstraintStatementProperty(
                field_to_match=wafv2.CfnWebACL.FieldToMatchProperty(single_header={"Name": "authorization"}),
                comparison_operator="GT",
                size=0,
                text_transformations=[wafv2.CfnWebACL.TextTransformationProperty(priority=0, type="NONE")],
            )
        )
        reads = wafv2.CfnWebACL.StatementProperty(
            or_statement=wafv2.CfnWebACL.OrStatementProperty(statements=[reads, bearer])
        )
        not_forwarded = wafv2.CfnWebACL.StatementProperty(
            not_statement=wafv2.CfnWebACL.NotStatementProperty(statement=forwarded)
        )

        def rate_rule(name: str, priority: int, **rate: Any) -> wafv2.CfnWebACL.RuleProperty:
            return wafv2.CfnWebACL.RuleProperty(
                name=name,
                priority=priority,
                action=wafv2.CfnWebACL.RuleActionProperty(block={}),
                statement=wafv2.CfnWebACL.StatementProperty(
                    rate_based_statement=wafv2.CfnWebACL.RateBasedStatementProperty(
                        limit=limit, evaluation_window_sec=300, **rate
                    )
                ),
                visibility_config=visibility(name),
            )

        acl = wafv2.CfnWebACL(
            self,
            "WebAcl",
            scope="REGIONAL",
            description=f"Leaderboard {props.stage}: per-client rate limit on the API reads",
            default_action=wafv2.CfnWebACL.DefaultActionProperty(allow={}),
            visibility_config=visibility("api"),
            rules=[
                rate_rule(
                    "RateLimitPerIp",
                    0,
                    aggregate_key_type="IP",
                    scope_down_statement=wafv2.CfnWebACL.StatementProperty(
                        and_statement=wafv2.CfnWebACL.AndStatementProperty(statements=[reads, not_forwarded])
                    ),
                ),
                rate_rule(
                    "RateLimitPerForwardedIp",
                    1,
                    aggregate_key_type="FORWARDED_IP",
                    # Only requests that carry the header are counted (WAF skips the rule otherwise); one whose
                    # first address is not an address is blocked.
                    forwarded_ip_config=wafv2.CfnWebACL.ForwardedIPConfigurationProperty(
                        header_name=FORWARDED_FOR_HEADER, fallback_behavior="MATCH"
                    ),
                    scope_down_statement=reads,
                ),
            ],
        )
        wafv2.CfnWebACLAssociation(self, "WebAclAssociation", resource_arn=stage.stage_arn, web_acl_arn=acl.attr_arn)

    @staticmethod
    def _allow_origin(cors_origins: Sequence[str]) -> str:
        # Gateway and mock responses carry one static origin: "*" or the first allowed one.
        return "'*'" if "*" in cors_origins else f"'{cors_origins[0]}'"

    def _gateway_responses(self, api: apigw.RestApi, cors_origins: Sequence[str]) -> None:
        """Errors API Gateway answers itself: JSON {"error"}, with CORS headers, same as the handlers'."""
        headers = {"Access-Control-Allow-Origin": self._allow_origin(cors_origins), "Vary": "'Origin'"}
        fixed = {
            apigw.ResponseType.INVALID_API_KEY: routes.INVALID_API_KEY,
            apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN: routes.UNKNOWN_ROUTE,
            apigw.ResponseType.THROTTLED: routes.THROTTLED,
        }
        for response_type, error in fixed.items():
            api.add_gateway_response(
                f"{_pascal(response_type.response_type.lower().replace('_', '-'))}Response",
                type=response_type,
                status_code=str(error.status),
                response_headers=headers,
                templates={"application/json": json.dumps({"error": error.message})},
            )
        # $context.error.messageString is the message already quoted for JSON.
        for response_type in (apigw.ResponseType.DEFAULT_4_XX, apigw.ResponseType.DEFAULT_5_XX):
            api.add_gateway_response(
                f"{_pascal(response_type.response_type.lower().replace('_', '-'))}Response",
                type=response_type,
                response_headers=headers,
                templates={"application/json": '{"error": $context.error.messageString}'},
            )

    def _method_not_allowed(self, resource: apigw.Resource, cors_origins: Sequence[str]) -> None:
        """ANY on a route's path answers 405, with the path's methods in `Allow` (RFC 9110), for the methods the
        route table does not define."""
        body = json.dumps({"error": routes.METHOD_NOT_ALLOWED.message})
        allowed = ", ".join(sorted({r.method for r in routes.ROUTES if r.path == resource.path} | {"OPTIONS"}))
        status = str(routes.METHOD_NOT_ALLOWED.status)
        method = resource.add_method(
            "ANY",
            apigw.MockIntegration(
                request_templates={"application/json": json.dumps({"statusCode": routes.METHOD_NOT_ALLOWED.status})},
                integration_responses=[
                    apigw.IntegrationResponse(
                        status_code=status,
                        response_templates={"application/json": body},
                        response_parameters={
                            "method.response.header.Access-Control-Allow-Origin": self._allow_origin(cors_origins),
                            "method.response.header.Allow": f"'{allowed}'",
                        },
                    )
                ],
            ),
            method_responses=[
                apigw.MethodResponse(
                    status_code=status,
                    response_parameters={
                        "method.response.header.Access-Control-Allow-Origin": True,
                        "method.response.header.Allow": True,
                    },
                )
            ],
        )
        for rule in ("APIG4", "COG4"):
            acknowledge(method, rule, "Mock 405 answer for undefined methods: no backend, no data")


def lambda_invocation_uri(fn: lambda_.IFunction) -> str:
    """What API Gateway (REST or WebSocket) calls to invoke a function through a proxy integration."""
    return Stack.of(fn).format_arn(
        service="apigateway",
        account="lambda",
        resource="path/2015-03-31/functions",
        resource_name=f"{fn.function_arn}/invocations",
    )


def _lambda_proxy(fn: lambda_.IFunction) -> apigw.Integration:
    """A Lambda proxy integration, as apigw.LambdaIntegration makes it, without its invoke permission per method
    (LeaderboardApi adds one per function for the whole stage)."""
    return apigw.Integration(
        type=apigw.IntegrationType.AWS_PROXY, integration_http_method="POST", uri=lambda_invocation_uri(fn)
    )
