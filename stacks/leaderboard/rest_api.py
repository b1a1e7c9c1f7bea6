"""The REST API: one OpenAPI document generated from the route table (web/deployed_api.py: a proxy integration per
route, API keys, request models and validation, CORS preflight and 405 mocks, API Gateway's own error answers)
imported as the API's body, its stage with access logs and per-method throttles, and the account's API Gateway
logging role.

`RestApi` builds into the scope it is given (the construct `Api`), keeping the logical ids deployments have (a
construct of its own would be a level more in every path below it: tests/infra/test_stateful_ids.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_cdk import ArnFormat, Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from .nag import acknowledge, arn_prefix
from .paths import deployed_api, routes
from .props import LeaderboardProps

CORS_HEADERS = ("Content-Type", "X-Api-Key", "Authorization", "Idempotency-Key")
CORS_MAX_AGE = Duration.hours(1)
# What API Gateway needs to write access (and execution) logs, as in AWS's managed policy for this role,
# minus its reads: the role is account-wide, every API of the region logs through it.
API_GATEWAY_LOGGING_ACTIONS = (
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:DescribeLogGroups",
    "logs:DescribeLogStreams",
    "logs:PutLogEvents",
)


class RestApi:
    """`api` (apigw.SpecRestApi), `definition` (the document it imports) and `api_gateway_account` (None where the
    account has its logging role already).

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
        # The whole API is one OpenAPI document generated from the route table (web/deployed_api.py): routes cost no
        # CloudFormation resources (a Resource per path and a Method per verb did: 154 of a dev stack's 248).
        definition = self.definition = deployed_api.definition(
            title=api_name,
            integration_uris={name: lambda_invocation_uri(fn) for name, fn in functions.items()},
            cors_origins=cors_origins,
            cors_headers=CORS_HEADERS,
            cors_max_age_seconds=int(CORS_MAX_AGE.to_seconds()),
        )
        api = self.api = apigw.SpecRestApi(
            scope,
            "RestApi",  # the logical ids of the API, its stage, keys and plans stay those deployments have
            api_definition=apigw.ApiDefinition.from_inline(definition),
            # Overwrite, not the default merge (for APIs created after March 2021): a route taken out of the table
            # leaves the API, and on the update from resources and methods the document replaces them all.
            mode=apigw.RestApiMode.OVERWRITE,
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
        # A new deployment whenever the document changes (CDK's SpecRestApi does not hash an inline body): the stage
        # moves to it after API Gateway has imported the document.
        api.latest_deployment.add_to_logical_id(definition)
        stage = self.stage = api.deployment_stage
        if not props.account_has_api_gateway_logging_role:
            self.api_gateway_account = self._account_logging_role(stage)
        acknowledge(stage, "APIG6", "JSON access logs are on; execution logs would log request data of every call")
        acknowledge(
            api,
            "APIG2",
            "Request validation is in the imported document (x-amazon-apigateway-request-validators, on every route)",
        )
        # One invoke permission per function, for this stage's methods, instead of one per method: the same reach in
        # practice (API Gateway invokes a function only from the methods integrated with it) and fewer resources
        # against CloudFormation's 500 per stack.
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


def lambda_invocation_uri(fn: lambda_.IFunction) -> str:
    """What API Gateway (REST or WebSocket) calls to invoke a function through a proxy integration."""
    return Stack.of(fn).format_arn(
        service="apigateway",
        account="lambda",
        resource="path/2015-03-31/functions",
        resource_name=f"{fn.function_arn}/invocations",
    )
