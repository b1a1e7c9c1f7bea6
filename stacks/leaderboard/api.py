"""The five functions on one hand-written role, and the REST API built from the route table."""

from __future__ import annotations

import json
import re
from typing import Sequence

from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_ssm as ssm
from constructs import Construct

from .data import LeaderboardTables
from .nag import acknowledge
from .paths import LAMBDA_SRC, routes, schema
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


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


def _json_schema(spec: dict) -> apigw.JsonSchema:
    """A route table JSON Schema (plain dict, draft 4 keywords) as API Gateway's model schema."""
    kwargs: dict = {}
    for key, value in spec.items():
        name = re.sub(r"([A-Z])", r"_\1", key).lower()  # minLength -> min_length
        if key == "type":
            value = apigw.JsonSchemaType[value.upper()]
        elif key == "properties":
            value = {k: _json_schema(v) for k, v in value.items()}
        elif key == "items":
            value = _json_schema(value)
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
        removal = props.effective_removal_policy
        log_groups = {
            f.name: logs.LogGroup(self, f"{_pascal(f.name)}Logs", retention=props.log_retention, removal_policy=removal)
            for f in routes.FUNCTIONS
        }
        self.role = self._shared_role(tables, list(log_groups.values()))
        environment = {
            "SCORES_TABLE": tables.scores.table_name,
            "SNAPSHOTS_TABLE": tables.snapshots.table_name,
            "RANK_INDEX": schema.RANK_INDEX,
            "CORS_ALLOWED_ORIGINS": ",".join(cors_origins),
            "ENABLE_SIMULATOR": str(props.simulator_enabled).lower(),
            "PERIOD_RETENTION_DAYS": str(props.period_retention_days),
            "DECLARED_BOARDS": json.dumps(list(props.boards), separators=(",", ":")),
        }
        code = lambda_.Code.from_asset(str(LAMBDA_SRC), exclude=CODE_EXCLUDES)
        powertools = lambda_.LayerVersion.from_layer_version_arn(
            self, "PowertoolsLayer", ssm.StringParameter.value_for_string_parameter(self, POWERTOOLS_LAYER_PARAMETER)
        )
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
                timeout=Duration.seconds(f.timeout_seconds),
                environment=environment,
                log_group=log_groups[f.name],
                logging_format=lambda_.LoggingFormat.JSON,
                tracing=lambda_.Tracing.ACTIVE,
            )
            for f in routes.FUNCTIONS
        }
        self.api_key_secret = secretsmanager.Secret(
            self,
            "ApiKeySecret",
            description=f"Leaderboard {props.stage}: the API key that write routes require",
            generate_secret_string=secretsmanager.SecretStringGenerator(exclude_punctuation=True, password_length=40),
            removal_policy=removal,
        )
        acknowledge(
            self.api_key_secret, "SMG4", "Rotating the key means re-reading it on the dashboard: manual, see README"
        )
        self.rest_api = self._rest_api(props, cors_origins)

    def _shared_role(self, tables: LeaderboardTables, log_groups: list[logs.LogGroup]) -> iam.Role:
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
                resources=[tables.scores.table_stream_arn],
            ),
            iam.PolicyStatement(
                sid="SnapshotsAppendRead",
                # No UpdateItem or DeleteItem: the history is append-only.
                actions=["dynamodb:PutItem", "dynamodb:Query"],
                resources=[tables.snapshots.table_arn],
            ),
            iam.PolicyStatement(
                sid="OwnLogGroups",
                actions=["logs:CreateLogStream", "logs:PutLogEvents"],
                resources=[lg.log_group_arn for lg in log_groups],
            ),
            iam.PolicyStatement(
                sid="XRayTraces",
                # X-Ray has no resource-level permissions for these actions: "*" is the narrowest possible.
                actions=["xray:PutTraceSegments", "xray:PutTelemetryRecords"],
                resources=["*"],
            ),
        ]
        role = iam.Role(
            self,
            "FunctionRole",
            description="Shared execution role of the leaderboard functions",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            inline_policies={"leaderboard": iam.PolicyDocument(statements=statements)},
        )
        acknowledge(role, "IAM5[Resource::*]", "Only the X-Ray statement: X-Ray has no resource-level permissions")
        return role

    def _rest_api(self, props: LeaderboardProps, cors_origins: Sequence[str]) -> apigw.RestApi:
        access_logs = logs.LogGroup(
            self, "AccessLogs", retention=props.log_retention, removal_policy=props.effective_removal_policy
        )
        api = apigw.RestApi(
            self,
            "RestApi",
            rest_api_name=f"leaderboard-{props.stage}",
            description="Real-time leaderboard API",
            endpoint_types=[apigw.EndpointType.REGIONAL],
            cloud_watch_role=False,  # execution logging would need an account-wide role; access logs suffice
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
        acknowledge(
            stage, "APIG6", "JSON access logs are on; execution logs would need an account-wide CloudWatch role"
        )
        acknowledge(stage, "APIG3", "No WAF by default (from 5 USD/month); stage throttling and the write key guard it")
        self._gateway_responses(api, cors_origins)
        validator = api.add_request_validator(
            "RequestValidator", validate_request_body=True, validate_request_parameters=True
        )
        integrations = {
            name: apigw.LambdaIntegration(fn, allow_test_invoke=False) for name, fn in self.functions.items()
        }
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
            why = "Writes need the API key of a usage plan" if route.needs_key else "Public read by design"
            acknowledge(method, "APIG4", why)
            acknowledge(method, "COG4", f"{why}; players have no Cognito identity here")
        for path in sorted({r.path for r in routes.ROUTES}):
            self._method_not_allowed(api.root.resource_for_path(path), cors_origins)

        key = api.add_api_key(
            "WriteKey",
            description="Write routes (POST, DELETE); its value lives only in Secrets Manager",
            # A {{resolve:secretsmanager:...}} reference in the template, never the value itself.
            value=self.api_key_secret.secret_value.unsafe_unwrap(),
        )
        plan = api.add_usage_plan(
            "WritePlan",
            description="Clients that may call the write routes",
            throttle=apigw.ThrottleSettings(
                rate_limit=props.throttle_rate_limit, burst_limit=props.throttle_burst_limit
            ),
        )
        plan.add_api_stage(stage=api.deployment_stage)
        plan.add_api_key(key)
        return api

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
        """ANY on a route's path answers 405 for the methods the route table does not define."""
        body = json.dumps({"error": routes.METHOD_NOT_ALLOWED.message})
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
                            "method.response.header.Access-Control-Allow-Origin": self._allow_origin(cors_origins)
                        },
                    )
                ],
            ),
            method_responses=[
                apigw.MethodResponse(
                    status_code=status, response_parameters={"method.response.header.Access-Control-Allow-Origin": True}
                )
            ],
        )
        for rule in ("APIG4", "COG4"):
            acknowledge(method, rule, "Mock 405 answer for undefined methods: no backend, no data")
