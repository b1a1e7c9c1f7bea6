"""Leaderboard: tables, the functions on one role, the REST API with its two keys, the dashboard and the alarms."""

from __future__ import annotations

from typing import Any, cast

from aws_cdk import Duration, Stack
from aws_cdk import aws_appsync as appsync
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_dynamodb as ddb
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from constructs import Construct

from . import function_access
from .api import LeaderboardApi
from .dashboard import Dashboard
from .edge import Edge
from .live_events_api import LiveUpdates
from .monitoring import LeaderboardMonitoring
from .nag import acknowledge
from .paths import routes
from .props import LeaderboardProps
from .rank_counter_stream import RankCounterSource
from .season import SeasonClosing
from .tables import LeaderboardTables

FIVE_MINUTES = Duration.minutes(5)


class Leaderboard(Construct):
    """A real-time multi-period leaderboard: two DynamoDB tables, Lambda functions on one least-privilege role behind
    a REST API with a game-server key and an admin key, the rank counters, a dashboard (CloudFront, Nginx on EC2)
    and alarms.

    Settings are keyword arguments, the fields of `LeaderboardProps` (or one `props=` object), related ones in
    groups (`throttles=Throttles(...)`, `monitoring=Monitoring(...)`, `live=Live(...)`, `waf=Waf(...)`); every one
    has a default, so `Leaderboard(self, "Leaderboard")` is a complete, working leaderboard. The reference:
    docs/CONFIGURATION.md.

    Attributes: `api` (a SpecRestApi: the route table's imported OpenAPI document), `live_api` (the AppSync Event
    API of live updates) and `live_url` (its real-time wss:// URL), both None with `live=Live(enabled=False)`,
    `edge` and `edge_url` (CloudFront in front of the API's public reads: the API's paths, cached),
    `scores_table` and `snapshots_table` (also `tables`; the `existing_*` ones where given), `functions` (by name, e.g.
    "score-submit"), `role` (the functions' one role), `game_key_secret` and `admin_key_secret`, `dashboard`,
    `vpc`, `alarm_topic` and `operations_dashboard` (None where turned off).
    """

    def __init__(self, scope: Construct, id: str, props: LeaderboardProps | None = None, **settings: Any) -> None:
        if props is not None and settings:
            raise TypeError("pass either props= or keyword settings, not both")
        props = props or LeaderboardProps(**settings)
        super().__init__(scope, id)
        self.props = props
        self.tables = LeaderboardTables(
            self,
            "Tables",
            removal_policy=props.effective_removal_policy,
            deletion_protection=props.is_prod,
            overrides=props.table_overrides,
            existing_scores=props.existing_scores_table,
            existing_snapshots=props.existing_snapshots_table,
        )
        self.scores_table: ddb.ITable = self.tables.scores
        self.snapshots_table: ddb.ITable = self.tables.snapshots
        self.api_construct = LeaderboardApi(
            self, "Api", props=props, tables=self.tables, cors_origins=self._cors_origins(props)
        )
        self.api = self.api_construct.rest_api
        self.functions: dict[str, lambda_.Function] = self.api_construct.functions
        self.role: iam.Role = self.api_construct.role
        self.game_key_secret = self.api_construct.game_key_secret
        self.admin_key_secret = self.api_construct.admin_key_secret
        # The public reads' cache (CloudFront), with or without the dashboard.
        self.edge: Edge | None = (
            Edge(self, "Edge", rest_api=self.api, proof_secret=self.api_construct.edge_proof_secret)
            if props.edge
            else None
        )
        self.edge_url: str | None = self.edge.url if self.edge else None
        # The parts below receive the functions they work with and say what they need of the shared role and of
        # the functions' environment; this is the one place that hands it over (Functions.allow, .add_environment).
        functions = self.api_construct.functions_part
        self.rank_counter = RankCounterSource(
            self, "RankCounter", tables=self.tables, function=self.functions[routes.RANK_COUNTER.name]
        )
        functions.allow(self.rank_counter.role_statements)
        # Live off (Live(enabled=False)): no Event API and nothing that serves it; the live-broadcaster function
        # stays, idle (no trigger, no environment), so the function registry and the route table do not fork.
        self.live: LiveUpdates | None = None
        if props.live.enabled:
            self.live = LiveUpdates(
                self,
                "Live",
                props=props,
                tables=self.tables,
                broadcaster=self.functions[routes.LIVE_BROADCASTER.name],
                renewer=self.functions[routes.PERIOD_CLOSER.name],  # the live key's renewal: a scheduled job
                authorizer=self.functions[routes.LIVE_AUTHORIZER.name],  # its own door: not a function of the REST API
            )
            # In the role's scoped policy, not its inline one: the Event API names the authorizer function, so its
            # ARN in the inline policy would be a cycle (function -> role -> API -> function).
            functions.scoped_policy.add_statements(*self.live.role_statements)
            acknowledge(
                functions.scoped_policy,
                "IAM5[Resource::*]",
                "appsync:UpdateApiKey has no resource type in the Service Authorization Reference: '*', for the "
                "period-closer function only (lambda:SourceFunctionArn)",
            )
            self.live.mapping.node.add_dependency(functions.scoped_policy)  # its failure queue's send
            functions.add_environment(self.live.broadcaster_environment, [routes.LIVE_BROADCASTER.name])
            functions.add_environment(self.live.discovery_environment, [routes.LEADERBOARD_ADMIN.name])
            functions.add_environment(self.live.renewal_environment, [routes.PERIOD_CLOSER.name])
            functions.add_environment(self.live.authorizer_environment, [routes.SCORE_SUBMIT.name])
            # Live tokens a client: with the REST API's WAF, the viewer address the edge wrote, trusted on the edge's
            # proof, which the token route's function reads (operations/live_access.client_of).
            proof = self.api_construct.edge_proof_secret
            if proof is not None:
                functions.scoped_policy.add_statements(
                    *function_access.statements(
                        [function_access.edge_proof_grant(proof.secret_arn)],
                        {name: function.function_arn for name, function in self.functions.items()},
                    )
                )
                functions.add_environment(
                    {"EDGE_PROOF_SECRET_ARN": proof.secret_arn}, sorted(function_access.LIVE_TOKEN_ISSUERS)
                )
        self.live_api: appsync.EventApi | None = self.live.api if self.live else None
        self.live_url: str | None = self.live.realtime_url if self.live else None
        self.season = SeasonClosing(
            self,
            "Season",
            role=self.role,
            closer=self.functions[routes.PERIOD_CLOSER.name],
            existing_bus=props.existing_event_bus,
        )
        self.season.schedule.node.add_dependency(functions.scoped_policy)  # its first run reads the receipt key
        if self.live:
            self.season.schedule.add_target(self.live.renewal_target)  # the live key's renewal (UpdateApiKey)
        # The closer publishes the closings, and so does the admin function (POST .../periods/{period_id}/close).
        functions.add_environment(
            self.season.environment,
            # score-submit: a quarantined score's Leaderboard Score Pending event
            [routes.PERIOD_CLOSER.name, routes.LEADERBOARD_ADMIN.name, routes.SCORE_SUBMIT.name],
        )
        self.dashboard: Dashboard | None = None
        if props.dashboard:
            # The instance first, then the distribution in front of it (its VPC origin names the instance).
            self.dashboard = Dashboard(
                self,
                "Dashboard",
                props=props,
                api_host=f"{self.api.rest_api_id}.execute-api.{Stack.of(self).region}.{Stack.of(self).url_suffix}",
                api_stage=self.api.deployment_stage.stage_name,
                api_url=self.api.url,
                admin_key_secret=self.api_construct.admin_key_secret,
                # /api/ reads through the edge: the instance then depends on the edge's distribution, which
                # depends on the REST API only (the dashboard's own distribution comes after the instance).
                edge_host=self.edge.distribution.distribution_domain_name if self.edge else None,
                # The page connects to the Event API's realtime endpoint itself; Nginx's CSP names exactly it.
                live_realtime_url=self.live_url or "",  # empty: live off, the CSP names no AppSync host
            )
        self.monitoring: LeaderboardMonitoring | None = None
        if props.monitoring.enabled:
            self.monitoring = LeaderboardMonitoring(
                self,
                "Monitoring",
                props=props,
                tables=self.tables,
                functions=self.functions,
                api=self.api,
                live=self.live,
                failure_queues={
                    routes.RANK_COUNTER.name: self.rank_counter.failures,
                    **({routes.LIVE_BROADCASTER.name: self.live.failures} if self.live else {}),
                },
                instance=self.dashboard.instance if self.dashboard else None,
            )
        self.vpc: ec2.IVpc | None = self.dashboard.vpc if self.dashboard else None
        self.alarm_topic: sns.ITopic | None = self.monitoring.alarm_topic if self.monitoring else None
        self.operations_dashboard = self.monitoring.operations_dashboard if self.monitoring else None

    # Grants, written by hand like the functions' role: exact actions, the rank index by name (never index/*).

    def grant_read_scores(self, grantee: iam.IGrantable) -> iam.Grant:
        """Read the live scores table and query its rank index (GetItem, BatchGetItem, Query)."""
        return iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["dynamodb:BatchGetItem", "dynamodb:GetItem", "dynamodb:Query"],
            resource_arns=[self.scores_table.table_arn, self.tables.rank_index_arn],
        )

    def grant_read_snapshots(self, grantee: iam.IGrantable) -> iam.Grant:
        """Read the snapshot archive (GetItem, Query)."""
        return iam.Grant.add_to_principal(
            grantee=grantee,
            actions=["dynamodb:GetItem", "dynamodb:Query"],
            resource_arns=[self.snapshots_table.table_arn],
        )

    def grant_stream_read(self, grantee: iam.IGrantable) -> iam.Grant:
        """Consume the scores table's stream (every change of an entry, old and new image).

        A DynamoDB stream takes at most two readers per shard (more may be throttled), and this one has two: the
        rank counters and live updates (one with live off). A third reader slows them; give it a Kinesis data
        stream of the table."""
        return iam.Grant.add_to_principal(
            grantee=grantee,
            actions=[
                "dynamodb:DescribeStream",
                "dynamodb:GetRecords",
                "dynamodb:GetShardIterator",
                "dynamodb:ListStreams",
            ],
            resource_arns=[cast(str, self.scores_table.table_stream_arn)],  # the table has a stream
        )

    # Metrics of the API and of each function, for your own alarms and dashboards.

    def metric_api_requests(self, *, period: Duration = FIVE_MINUTES, **options: Any) -> cw.Metric:
        """Requests to the API stage (Sum)."""
        return self.api.deployment_stage.metric_count(period=period, statistic="Sum", **options)

    def metric_api_server_errors(self, *, period: Duration = FIVE_MINUTES, **options: Any) -> cw.Metric:
        """Share of requests answered 5xx (Average of 5XXError: 0.01 is 1 %)."""
        return self.api.deployment_stage.metric_server_error(period=period, statistic="Average", **options)

    def metric_api_client_errors(self, *, period: Duration = FIVE_MINUTES, **options: Any) -> cw.Metric:
        """Share of requests answered 4xx (Average of 4XXError)."""
        return self.api.deployment_stage.metric_client_error(period=period, statistic="Average", **options)

    def metric_api_latency(
        self, *, statistic: str = "p99", period: Duration = FIVE_MINUTES, **options: Any
    ) -> cw.Metric:
        """End-to-end latency of the API stage (ms), p99 unless told."""
        return self.api.deployment_stage.metric_latency(period=period, statistic=statistic, **options)

    def _function(self, name: str) -> lambda_.Function:
        if name not in self.functions:
            raise KeyError(f"no function {name!r}; the functions are {', '.join(sorted(self.functions))}")
        return self.functions[name]

    def metric_function_errors(self, name: str, **options: Any) -> cw.Metric:
        """Crashes, timeouts and out-of-memory of one function (Sum); `name` as in `functions`, e.g. "score-submit"."""
        return self._function(name).metric_errors(**options)

    def metric_function_invocations(self, name: str, **options: Any) -> cw.Metric:
        return self._function(name).metric_invocations(**options)

    def metric_function_throttles(self, name: str, **options: Any) -> cw.Metric:
        return self._function(name).metric_throttles(**options)

    def metric_function_duration(self, name: str, **options: Any) -> cw.Metric:
        """Run time of one function (ms, Average unless told)."""
        return self._function(name).metric_duration(**options)

    @staticmethod
    def _cors_origins(props: LeaderboardProps) -> list[str]:
        if props.cors_origins:
            return list(props.cors_origins)
        # The dashboard itself calls its own same-origin /api/ proxy and needs no CORS. Prod with a domain of its
        # own allows that HTTPS origin only, for a page that would call the API directly. Without one the
        # dashboard's origin is CloudFront's name, known only once the distribution exists, which comes after the
        # instance, which needs the API: "*", as everywhere outside prod. CORS is not what protects the API: its
        # keys are, which no browser sends on its own, and there are no cookies.
        if props.is_prod and props.dashboard and props.domain_name:
            return [f"https://{props.domain_name}"]
        return ["*"]
