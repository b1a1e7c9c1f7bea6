"""Live updates: the WebSocket API (subscribe to a board period's top), its connections table's permissions on the
shared role, and the live-broadcaster function as a second consumer of the scores table's stream
(lambda_src/leaderboard/live.py and broadcasting.py)."""

from __future__ import annotations

import json

from aws_cdk import Duration, Names, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_event_sources as event_sources
from aws_cdk import aws_logs as logs
from constructs import Construct

from .api import lambda_invocation_uri
from .counting import entry_changes, failure_queue
from .data import LeaderboardTables
from .nag import acknowledge, arn_prefix
from .paths import routes
from .props import LeaderboardProps

# Access log fields of a WebSocket stage ($context variables of API Gateway's WebSocket APIs).
ACCESS_LOG_FORMAT = {
    "requestId": "$context.requestId",
    "ip": "$context.identity.sourceIp",
    "requestTime": "$context.requestTime",
    "eventType": "$context.eventType",
    "routeKey": "$context.routeKey",
    "status": "$context.status",
    "connectionId": "$context.connectionId",
    "integrationError": "$context.integrationErrorMessage",
}


class LiveUpdates(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        props: LeaderboardProps,
        tables: LeaderboardTables,
        role: iam.Role,
        role_policy: iam.PolicyDocument,
        functions: dict[str, lambda_.Function],
        api_gateway_account: apigw.CfnAccount | None,
    ) -> None:
        super().__init__(scope, id)
        connections = functions[routes.LIVE_CONNECTIONS.name]
        broadcaster = functions[routes.LIVE_BROADCASTER.name]

        # One integration and one invoke permission for the five routes (CDK's Lambda integration makes one of
        # each per route: eight more resources per leaderboard against CloudFormation's 500).
        integration = _FunctionIntegration("LiveConnectionsIntegration", connections)

        # Routes from the route table: the message's "action" selects one; $default answers unknown actions.
        self.api = apigwv2.WebSocketApi(
            self,
            "WebSocketApi",
            api_name=Names.unique_resource_name(self, max_length=100, separator="-", allowed_special_characters="-"),
            description="Live updates of the leaderboard: subscribe to a board period's top 25",
            route_selection_expression=routes.LIVE_ROUTE_SELECTION,
            connect_route_options=apigwv2.WebSocketRouteOptions(integration=integration),
            disconnect_route_options=apigwv2.WebSocketRouteOptions(integration=integration),
            default_route_options=apigwv2.WebSocketRouteOptions(integration=integration, return_response=True),
        )
        for route in routes.LIVE_ROUTES:
            if route not in (routes.LIVE_CONNECT, routes.LIVE_DISCONNECT, routes.LIVE_DEFAULT):
                self.api.add_route(
                    route, integration=integration, return_response=route in routes.LIVE_ANSWERING_ROUTES
                )
        self.stage = apigwv2.WebSocketStage(
            self,
            "Stage",
            web_socket_api=self.api,
            stage_name=props.stage,
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(rate_limit=props.live_rate_limit, burst_limit=props.live_burst_limit),
        )
        access_logs = logs.LogGroup(
            self, "AccessLogs", retention=props.log_retention, removal_policy=props.effective_removal_policy
        )
        cfn_stage: apigwv2.CfnStage = self.stage.node.default_child
        cfn_stage.access_log_settings = apigwv2.CfnStage.AccessLogSettingsProperty(
            destination_arn=access_logs.log_group_arn, format=json.dumps(ACCESS_LOG_FORMAT, separators=(",", ":"))
        )
        if api_gateway_account is not None:  # access logs need the account's API Gateway CloudWatch role
            self.stage.node.add_dependency(api_gateway_account)
        connections.add_permission(
            "LiveApiInvoke",
            principal=iam.ServicePrincipal("apigateway.amazonaws.com"),
            source_arn=Stack.of(self).format_arn(service="execute-api", resource=self.api.api_id, resource_name="*"),
        )
        # The URL clients connect to, and the management endpoint the broadcaster posts to.
        self.url = self.stage.url
        self.callback_url = self.stage.callback_url

        for function in (connections, broadcaster):
            function.add_environment("CONNECTIONS_TABLE", tables.connections.table_name)
            function.add_environment("LIVE_CONNECTIONS_URL", self.callback_url)

        # The shared role's own inline policy: the connections table and its index by name, and pushing to this
        # stage's connections (POST: post_to_connection) only.
        manage_arn = Stack.of(self).format_arn(
            service="execute-api",
            resource=self.api.api_id,
            resource_name=f"{props.stage}/POST/@connections/*",
        )
        role_policy.add_statements(
            iam.PolicyStatement(
                sid="LiveConnectionsReadWrite",
                # Put/Delete: connections and subscriptions; Update: a connection's topics (the limit) and the
                # claim of a push; Get: the last push; Query: a connection's items.
                actions=[
                    "dynamodb:DeleteItem",
                    "dynamodb:GetItem",
                    "dynamodb:PutItem",
                    "dynamodb:Query",
                    "dynamodb:UpdateItem",
                ],
                resources=[tables.connections.table_arn],
            ),
            iam.PolicyStatement(
                sid="LiveSubscribersQuery", actions=["dynamodb:Query"], resources=[tables.subscribers_index_arn]
            ),
            iam.PolicyStatement(sid="LivePush", actions=["execute-api:ManageConnections"], resources=[manage_arn]),
        )
        acknowledge(
            role,
            f"IAM5[Resource::{arn_prefix(self, 'execute-api')}:<{self._api_logical_id()}>"
            f"/{props.stage}/POST/@connections/*]",
            "Connection ids are made per connection at run time: POST to this stage's connections is the narrowest",
        )
        for route in self.api.node.find_all():
            if isinstance(route, apigwv2.CfnRoute):
                acknowledge(route, "APIG4", "Live reads are public by design, like the REST API's reads")

        # The second consumer of the scores table's stream (a shard serves two readers at once; rank-counter is the
        # first). No batching window: a change is pushed as soon as the stream has it; the push itself waits out the
        # rest of a second since the last one, so a burst still makes one push a second.
        self.failures = failure_queue(self, "BroadcasterFailures", role_policy)
        self.mapping = lambda_.EventSourceMapping(
            self,
            "BroadcasterMapping",
            target=broadcaster,
            event_source_arn=tables.scores.table_stream_arn,
            # Only what happens from now on matters to a live view: nothing of the stream's last 24 h is replayed.
            starting_position=lambda_.StartingPosition.LATEST,
            batch_size=100,
            max_batching_window=Duration.seconds(0),
            # A push that keeps failing is given up quickly: the next change pushes the whole top again, while a
            # batch retried for long would hold the shard's later changes back.
            retry_attempts=2,
            max_record_age=Duration.minutes(1),
            on_failure=event_sources.SqsDlq(self.failures),
            filters=entry_changes(),
        )

    def _api_logical_id(self) -> str:
        return Stack.of(self).get_logical_id(self.api.node.default_child)


class _FunctionIntegration(apigwv2.WebSocketRouteIntegration):
    """A Lambda proxy integration that adds no permission of its own (LiveUpdates adds one for the whole API), so
    that the routes can share it: CDK creates the integration once, at the first route bound to it."""

    def __init__(self, id: str, function: lambda_.IFunction) -> None:
        super().__init__(id)
        self._function = function

    def bind(self, options: apigwv2.WebSocketRouteIntegrationBindOptions) -> apigwv2.WebSocketRouteIntegrationConfig:
        return apigwv2.WebSocketRouteIntegrationConfig(
            type=apigwv2.WebSocketIntegrationType.AWS_PROXY, uri=lambda_invocation_uri(self._function)
        )
