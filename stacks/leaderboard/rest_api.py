"""The REST API built from the route table: its stage with access logs and throttles, a method per route on the
functions, request models and validation, API Gateway's own error answers, the 405 mocks, and the account's API
Gateway logging role.

`RestApi` builds into the scope it is given (the construct `Api`), keeping the logical ids deployments have (a
construct of its own would be a level more in every path below it: tests/infra/test_stateful_ids.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from aws_cdk import ArnFormat, Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from .nag import acknowledge, arn_prefix
from .naming import pascal
from .paths import routes
from .props import LeaderboardProps

CORS_HEADERS = ("Content-Type", "X-Api-Key", "Authorization", "Idempotency-Key")
# What API Gateway needs to write access (and execution) logs, as in AWS's managed policy for this role,
# minus its reads: the role is account-wide, every API of the region logs through it.
API_GATEWAY_LOGGING_ACTIONS = (
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:DescribeLogGroups",
    "logs:DescribeLogStreams",
    "logs:PutLogEvents",
)


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


class RestApi:
    """`api` (apigw.RestApi) and `api_gateway_account` (None where the account has its logging role already).

    It receives the functions and grants API Gateway their invocation (one permission per function for the stage);
    the keys and the WAF are built on it afterwards (api_keys.py, waf.py).
    """

    def __init__(
        self,
        scope: Construct,
        *,
        props: LeaderboardProps,
        functions: Mapping[str, lambda_.IFunction],
        cors_origins: Sequence[str],
        api_name: str,
    ) -> None:
        self._scope = scope
        access_logs = logs.LogGroup(
            scope, "AccessLogs", retention=props.log_retention, removal_policy=props.effective_removal_policy
        )
        # Anonymous reads get their own per-method throttle (every method has its own bucket).
        public_reads = {
            f"{r.path}/{r.method}": apigw.MethodDeploymentOptions(
                throttling_rate_limit=props.throttles.public_read_rate_limit,
                throttling_burst_limit=props.throttles.public_read_burst_limit,
            )
            for r in routes.ROUTES
            if r.access == routes.PUBLIC
        }
        # The bearer routes (run starts, run-token scores) have no key, so no usage plan meters them: each its own
        # per-method bucket, as large as the game key's plan, which players' devices never share with game servers
        # (their score route is keyed: its own method and the key's plan), and in production the WAF's per-client
        # limit (waf.py) on every request to them.
        token_routes = {
            f"{r.path}/{r.method}": apigw.MethodDeploymentOptions(
                throttling_rate_limit=props.throttles.game_key_rate_limit,
                throttling_burst_limit=props.throttles.game_key_burst_limit,
            )
            for r in routes.ROUTES
            if r.access in routes.BEARER
        }
        self.api_gateway_account: apigw.CfnAccount | None = None
        api = self.api = apigw.RestApi(
            scope,
            "RestApi",
            rest_api_name=api_name,
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
                throttling_rate_limit=props.throttles.rate_limit,
                throttling_burst_limit=props.throttles.burst_limit,
                method_options={**public_reads, **token_routes},
                tracing_enabled=True,
                metrics_enabled=True,  # per-method metrics (billed as custom metrics, only for methods in use)
            ),
        )
        # The CORS preflight on each route's path only, not on every resource (the root, /players, /erasures, the
        # {run_id} under runs ...: no route there, nothing to preflight; the local gateway answers them 404): fewer
        # resources against CloudFormation's 500 per stack (tests/infra/conftest.py's users' app holds two APIs).
        preflight = {
            "allow_origins": list(cors_origins),
            "allow_methods": sorted({r.method for r in routes.ROUTES} | {"OPTIONS"}),
            "allow_headers": list(CORS_HEADERS),
            "max_age": Duration.hours(1),
        }
        stage = self.stage = api.deployment_stage
        if not props.account_has_api_gateway_logging_role:
            self.api_gateway_account = self._account_logging_role(stage)
        acknowledge(stage, "APIG6", "JSON access logs are on; execution logs would log request data of every call")
        self._gateway_responses(api, cors_origins)
        validator = api.add_request_validator(
            "RequestValidator", validate_request_body=True, validate_request_parameters=True
        )
        integrations = {name: _lambda_proxy(fn) for name, fn in functions.items()}
        body_models: dict[int, apigw.Model] = {}
        for path in dict.fromkeys(r.path for r in routes.ROUTES):  # each path once, in the table's order
            api.root.resource_for_path(path).add_cors_preflight(**preflight)
        for route in routes.ROUTES:
            resource = api.root.resource_for_path(route.path)
            models = None
            if route.body is not None:
                # One model per body: the routes that share one (a game server's score, a run's) share it, named
                # after the first of them (its logical id as before).
                model = body_models.get(id(route.body))
                if model is None:
                    model = body_models[id(route.body)] = api.add_model(
                        "".join(pascal(p.strip("{}")) for p in route.path.split("/")) + "Body",
                        content_type="application/json",
                        schema=_json_schema(routes.thaw(route.body.schema)),  # the frozen model as plain JSON
                    )
                models = {"application/json": model}
            method = resource.add_method(
                route.method,
                integrations[route.function.name],
                api_key_required=route.needs_key,
                request_validator=validator,
                # The bearer routes' Authorization, present and not blank, or API Gateway's 401 (its parameter check,
                # BAD_REQUEST_PARAMETERS below) and no invocation: a request with no credential costs no Lambda.
                # Required query parameters are the function's to check (a 400 naming them), so that response means
                # "no credential" and nothing else.
                request_parameters={f"method.request.header.{h}": True for h in route.required_headers} or None,
                request_models=models,
            )
            why = (
                f"Needs the {route.access} API key (usage plan)"
                if route.needs_key
                else "Public read by design"
                if route.access == routes.PUBLIC
                else "A bearer token (its header required by API Gateway), verified first: devices hold no key"
            )
            acknowledge(method, "APIG4", why)
            acknowledge(method, "COG4", f"{why}; players have no Cognito identity here")
        for path in sorted({r.path for r in routes.ROUTES}):
            self._method_not_allowed(api.root.resource_for_path(path), cors_origins)
        # One invoke permission per function, for this stage's methods, instead of CDK's one per method: the same
        # reach in practice (API Gateway invokes a function only from the methods integrated with it) and 20 fewer
        # resources per leaderboard against CloudFormation's 500 per stack.
        for name in sorted({r.function.name for r in routes.ROUTES}):
            functions[name].add_permission(
                "RestApiInvoke",
                principal=iam.ServicePrincipal("apigateway.amazonaws.com"),
                source_arn=api.arn_for_execute_api(method="*", path="/*", stage=stage.stage_name),
            )

    def _account_logging_role(self, stage: apigw.Stage) -> apigw.CfnAccount:
        """The account's API Gateway CloudWatch role, without which a stage with access logs fails to create.

        It is account-wide (one per region): kept when the stack is deleted, so that other APIs of the
        account keep logging; a stack in an account that has one sets `account_has_api_gateway_logging_role`.
        """
        role = iam.Role(
            self._scope,
            "ApiGatewayLoggingRole",
            description="API Gateway's account-wide CloudWatch Logs role (kept when the leaderboard stack is deleted)",
            assumed_by=iam.ServicePrincipal("apigateway.amazonaws.com"),
            inline_policies={
                "push-logs": iam.PolicyDocument(
                    statements=[
                        iam.PolicyStatement(
                            actions=list(API_GATEWAY_LOGGING_ACTIONS),
                            resources=[
                                Stack.of(self._scope).format_arn(
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
            f"IAM5[Resource::{arn_prefix(self._scope, 'logs')}:log-group:*]",
            "Account-wide role: every API of the region writes its own log groups through it",
        )
        account = apigw.CfnAccount(self._scope, "ApiGatewayAccount", cloud_watch_role_arn=role.role_arn)
        account.apply_removal_policy(RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE)
        stage.node.add_dependency(account)
        return account

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
            apigw.ResponseType.BAD_REQUEST_PARAMETERS: routes.MISSING_CREDENTIALS,
        }
        challenge = {routes.BEARER_CHALLENGE[0]: f"'{routes.BEARER_CHALLENGE[1]}'"}  # RFC 6750's, on the 401
        for response_type, error in fixed.items():
            api.add_gateway_response(
                f"{pascal(response_type.response_type.lower().replace('_', '-'))}Response",
                type=response_type,
                status_code=str(error.status),
                response_headers={**headers, **(challenge if error is routes.MISSING_CREDENTIALS else {})},
                templates={"application/json": json.dumps({"error": error.message})},
            )
        # $context.error.messageString is the message already quoted for JSON.
        for response_type in (apigw.ResponseType.DEFAULT_4_XX, apigw.ResponseType.DEFAULT_5_XX):
            api.add_gateway_response(
                f"{pascal(response_type.response_type.lower().replace('_', '-'))}Response",
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
    (RestApi adds one per function for the whole stage)."""
    return apigw.Integration(
        type=apigw.IntegrationType.AWS_PROXY, integration_http_method="POST", uri=lambda_invocation_uri(fn)
    )
