"""Operations: alarms on what hurts players, one SNS topic they all notify, and one CloudWatch dashboard.

Written with aws_cloudwatch directly rather than cdk-monitoring-constructs (10.3.3 works with our aws-cdk-lib and
imports offline): that library gives every alarm and its dashboard a physical name (AlarmName/DashboardName from a
prefix; two stacks in one account would need care not to clash), its whole API is marked experimental, it adds
1.7 s of jsii loading to every synth, and it has nothing for several of our figures anyway (transaction conflicts,
the instance's status check, our own EMF metrics). What is left is a page of plain alarms.

Thresholds, in one place below, follow one rule: page on what players feel, sustained, not on a blip.
- Error figures are rates (share of requests or invocations), so the same threshold holds at 1 and 1,000 requests/s;
  latency is a percentile; throttles are counts on purpose (see THROTTLE_MINUTES).
- "M of N" periods absorb single bad minutes (a cold start, one retried throttle) but not an outage.
- Missing data is "not breaching" where silence means no traffic (no requests, no errors), and "breaching" only for
  the instance, where silence means it is stopped.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_cloudwatch_actions as cw_actions
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from .data import LeaderboardTables
from .live import LiveUpdates
from .nag import acknowledge
from .paths import live_channels, metrics, routes, schema
from .props import LeaderboardProps

ONE_MINUTE = Duration.minutes(1)
FIVE_MINUTES = Duration.minutes(5)

# API 5xx: more than 1 % of requests in 2 of 3 five-minute periods. A 99.9 % monthly target allows 0.1 % errors:
# 1 % is ten times that burn rate, and two bad periods out of three rule out a single deploy or cold-start blip.
# API Gateway's Average of 5XXError is the error rate itself (each request counts 0 or 1).
API_5XX_RATE = 0.01
# API p99 latency: above 1 s for 15 minutes. Warm requests take tens of milliseconds (a few DynamoDB calls); a cold
# start can take a second or two, and at low traffic p99 IS the cold start. So percentiles are only judged on
# periods with enough requests to mean something: CloudWatch's rule for p99 is at least 1,000 samples (3.3
# requests/s over 5 minutes); quieter periods leave the alarm as it is, and the 5xx and function alarms cover them.
API_P99_MS = 1000
# Function errors: above 1 % of invocations in 2 of 3 five-minute periods. The handler wrapper turns exceptions into
# 500 responses, so Lambda counts an error only for a crash, a timeout or running out of memory: each one is a defect,
# and a broken deploy (import error) fails every invocation, which trips this at any traffic.
FUNCTION_ERROR_RATE_PERCENT = 1
# Throttles (Lambda and DynamoDB): any throttling in 3 of 5 minutes. A count, not a rate, on purpose: nothing here
# is provisioned, so throttling means a ceiling was hit (the account's Lambda concurrency, a DynamoDB partition or
# index partition, on-demand's twice-the-previous-peak burst) and it only gets worse as traffic grows. The SDK
# retries absorb an isolated throttle, hence three minutes out of five.
THROTTLE_MINUTES = 3
THROTTLE_WINDOW_MINUTES = 5
# Transaction conflicts: more than 25 % of TransactWriteItems attempts rejected for 15 minutes. Transactions only
# ever share items when the same player submits twice at once (or two rank-counter batches split one bucket), so
# conflicts should be rare; a quarter of all attempts means every write pays retries (latency, twice the write units
# per transaction): look for a client hammering one player. DynamoDB counts conflicts per item: an upper bound.
CONFLICT_PERCENT = 25
# Rank counters: the rank-counter function's stream iterator age (how old the newest records are when Lambda hands
# them over) above 60 s for 5 minutes. Normally it is a second or two (the batching window plus a recount); past a
# minute, ranks and totals are a minute behind the writes and the function is failing or cannot keep up.
COUNTER_LAG_SECONDS = 60
# Live updates: the live-broadcaster function's stream iterator age above 30 s for 5 minutes. A publish normally
# reaches viewers within a second or two of the write (at most one a second per board period, one publish each);
# past half a minute the dashboards' "live" tables are stale while saying they are live: the broadcaster fails, or
# the changes keep coming faster than it publishes. (Records older than a minute are dropped.)
LIVE_LAG_SECONDS = 30
# The dashboard instance: its status check failing for 5 minutes in a row (a reboot passes within that); no data
# at all means the instance is stopped or gone, which is an outage of the dashboard too.
INSTANCE_FAILED_MINUTES = 5


def _pascal(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("-"))


class LeaderboardMonitoring(Construct):
    """Alarms on the API, every function, the scores table and its rank index, the rank counters' and the live
    pushes' lag, and the dashboard instance; they notify `alarm_topic`. `operations_dashboard` shows the same
    figures, the live Event API's publishes, deliveries and connections, and the service's own EMF metrics."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        props: LeaderboardProps,
        tables: LeaderboardTables,
        functions: Mapping[str, lambda_.IFunction],
        api: apigw.RestApi,
        live: LiveUpdates,
        failure_queues: Mapping[str, sqs.IQueue] = {},  # noqa: B006 (read only)
        instance: ec2.Instance | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._essential_only = props.effective_monitoring_level == "essential"
        self.alarms: list[cw.Alarm] = []
        self.alarm_topic = self._topic(props)
        if props.alarm_email:
            self.alarm_topic.add_subscription(subscriptions.EmailSubscription(props.alarm_email))

        rows = [self._api(api), self._functions(functions), self._scores_table(tables), self._service(functions)]
        rows.append(self._rank_counter(functions[routes.RANK_COUNTER.name]))
        rows.append(self._live(live, functions[routes.LIVE_BROADCASTER.name]))
        rows.append(self._failures(failure_queues))
        if instance is not None:
            rows.append(self._instance(instance))
        self.operations_dashboard: cw.Dashboard | None = None
        if self._essential_only:
            return
        self.operations_dashboard = cw.Dashboard(self, "Dashboard", default_interval=Duration.hours(6))
        self.operations_dashboard.add_widgets(
            cw.TextWidget(
                markdown=f"## Leaderboard {props.stage}: operations\n"
                "Every alarm notifies the stack's alarm topic (output `AlarmTopicArn`), when it fires and when it "
                f"clears. Service metrics are in namespace `{metrics.NAMESPACE}`, per function; for one board, query "
                'the functions\' log groups with Logs Insights (`filter board = "..."`).',
                width=8,
                height=6,
            ),
            cw.AlarmStatusWidget(title="Alarms", alarms=self.alarms, width=16, height=6),
        )
        for row in rows:
            self.operations_dashboard.add_widgets(*row)

    @property
    def dashboard_url(self) -> str | None:
        if self.operations_dashboard is None:
            return None
        region = Stack.of(self).region
        return (
            f"https://{region}.console.aws.amazon.com/cloudwatch/home?region={region}"
            f"#dashboards/dashboard/{self.operations_dashboard.dashboard_name}"
        )

    def _topic(self, props: LeaderboardProps) -> sns.Topic:
        """An encrypted, TLS-only topic that CloudWatch alarms of this account and region may publish to."""
        stack = Stack.of(self)
        from_our_alarms = {
            "StringEquals": {"aws:SourceAccount": stack.account},
            "ArnLike": {"aws:SourceArn": f"arn:{stack.partition}:cloudwatch:{stack.region}:{stack.account}:alarm:*"},
        }
        cloudwatch = iam.ServicePrincipal("cloudwatch.amazonaws.com")
        if self._essential_only:
            # No key of our own (1 USD a month, a tenth of an idle dev stack): SNS encrypts at rest with its
            # service keys only through a KMS key CloudWatch may use, and alarm notifications carry alarm states,
            # names and figures, no player data. TLS only, and only this account's alarms may publish.
            topic = sns.Topic(self, "AlarmTopic", display_name=f"Leaderboard {props.stage} alarms", enforce_ssl=True)
            acknowledge(topic, "SNS2", "Essential monitoring: alarm states only, no data; TLS only (enforce_ssl)")
            self._allow_alarms(topic, cloudwatch, from_our_alarms)
            return topic
        # A key of our own: CloudWatch cannot publish to a topic encrypted with the AWS managed aws/sns key (its
        # policy cannot grant CloudWatch), and alarms would fail silently. It protects notifications in flight only,
        # nothing to keep once the stack is gone, so it is scheduled for deletion with the stack in every stage.
        key = kms.Key(
            self,
            "AlarmTopicKey",
            description=f"Leaderboard {props.stage}: encrypts the alarm topic",
            enable_key_rotation=True,
            pending_window=Duration.days(7),
            removal_policy=RemovalPolicy.DESTROY,
        )
        key.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchAlarmsUseKey",
                principals=[cloudwatch],
                actions=["kms:Decrypt", "kms:GenerateDataKey*"],
                resources=["*"],  # in a key policy, "*" is this key
                conditions=from_our_alarms,
            )
        )
        topic = sns.Topic(
            self, "AlarmTopic", display_name=f"Leaderboard {props.stage} alarms", master_key=key, enforce_ssl=True
        )
        self._allow_alarms(topic, cloudwatch, from_our_alarms)
        return topic

    @staticmethod
    def _allow_alarms(topic: sns.Topic, cloudwatch: iam.IPrincipal, from_our_alarms: dict) -> None:
        # enforce_ssl gives the topic a policy of its own, which replaces the default one that let the account's
        # alarms publish: say it again, for CloudWatch alarms of this account only.
        topic.add_to_resource_policy(
            iam.PolicyStatement(
                sid="CloudWatchAlarmsPublish",
                principals=[cloudwatch],
                actions=["sns:Publish"],
                resources=[topic.topic_arn],
                conditions=from_our_alarms,
            )
        )

    def _alarm(
        self,
        id: str,
        metric: cw.IMetric,
        *,
        threshold: float,
        periods: tuple[int, int],
        description: str,
        comparison: cw.ComparisonOperator = cw.ComparisonOperator.GREATER_THAN_THRESHOLD,
        missing: cw.TreatMissingData = cw.TreatMissingData.NOT_BREACHING,
        low_samples: str | None = None,
        essential: bool = False,
    ) -> cw.Alarm | None:
        """An alarm (name generated by CloudFormation) that notifies the topic when it fires and when it clears.
        At the "essential" level only the essential ones exist (see ESSENTIAL in props.py)."""
        if self._essential_only and not essential:
            return None
        datapoints, evaluation_periods = periods
        alarm = cw.Alarm(
            self,
            id,
            metric=metric,
            threshold=threshold,
            comparison_operator=comparison,
            datapoints_to_alarm=datapoints,
            evaluation_periods=evaluation_periods,
            treat_missing_data=missing,
            evaluate_low_sample_count_percentile=low_samples,
            alarm_description=description,
        )
        action = cw_actions.SnsAction(self.alarm_topic)
        alarm.add_alarm_action(action)
        alarm.add_ok_action(action)
        self.alarms.append(alarm)
        return alarm

    def _api(self, api: apigw.RestApi) -> list[cw.IWidget]:
        stage = api.deployment_stage
        # Alarms get unlabelled metrics: those render as plain single-metric alarms (Statistic/ExtendedStatistic).
        server_errors = stage.metric_server_error(statistic="Average", period=FIVE_MINUTES)
        client_errors = stage.metric_client_error(statistic="Average", period=FIVE_MINUTES)
        latency = {p: stage.metric_latency(statistic=p, period=FIVE_MINUTES) for p in ("p50", "p90", "p99")}
        self._alarm(
            "Api5xxRate",
            server_errors,
            threshold=API_5XX_RATE,
            periods=(2, 3),
            description=f"More than {API_5XX_RATE:.0%} of API requests answered 5xx in 2 of 3 five-minute periods. "
            "Check the function error alarms and the API's access logs.",
            essential=True,
        )
        self._alarm(
            "ApiLatencyP99",
            latency["p99"],
            threshold=API_P99_MS,
            periods=(3, 3),
            low_samples="ignore",
            essential=True,
            description=f"API p99 latency above {API_P99_MS} ms for 15 minutes (judged only with 1,000+ requests "
            "per period). Look for DynamoDB throttling, transaction conflicts or slow functions on the dashboard.",
        )
        return [
            _graph("API requests", [stage.metric_count(statistic="Sum", period=FIVE_MINUTES, label="requests")]),
            _graph(
                "API error rates (0-1)",
                [server_errors.with_(label="5xx"), client_errors.with_(label="4xx")],
                threshold=API_5XX_RATE,
            ),
            _graph("API latency (ms)", [m.with_(label=p) for p, m in latency.items()], threshold=API_P99_MS),
        ]

    def _functions(self, functions: Mapping[str, lambda_.IFunction]) -> list[cw.IWidget]:
        error_rates, throttles, durations = [], [], []
        for index, (name, fn) in enumerate(functions.items()):
            # Ids unique per function: several of these expressions share one graph.
            errors, invocations = f"errors{index}", f"invocations{index}"
            rate = cw.MathExpression(
                expression=f"IF({invocations} > 0, 100 * {errors} / {invocations}, 0)",
                using_metrics={
                    errors: fn.metric_errors(statistic="Sum", period=FIVE_MINUTES),
                    invocations: fn.metric_invocations(statistic="Sum", period=FIVE_MINUTES),
                },
                label=name,
                period=FIVE_MINUTES,
            )
            throttled = fn.metric_throttles(statistic="Sum", period=ONE_MINUTE)
            self._alarm(
                f"{_pascal(name)}ErrorRate",
                rate,
                threshold=FUNCTION_ERROR_RATE_PERCENT,
                periods=(2, 3),
                description=f"{name}: more than {FUNCTION_ERROR_RATE_PERCENT} % of invocations crashed, timed out or "
                "ran out of memory in 2 of 3 five-minute periods. Read the function's log group.",
            )
            self._alarm(
                f"{_pascal(name)}Throttles",
                throttled,
                threshold=0,
                periods=(THROTTLE_MINUTES, THROTTLE_WINDOW_MINUTES),
                description=f"{name} was throttled in {THROTTLE_MINUTES} of {THROTTLE_WINDOW_MINUTES} minutes: the "
                "account's Lambda concurrency is exhausted. Raise the quota or lower the stage's throttling.",
            )
            error_rates.append(rate)
            throttles.append(throttled.with_(label=name))
            durations.append(fn.metric_duration(statistic="p99", period=FIVE_MINUTES, label=name))
        return [
            _graph("Function errors (% of invocations)", error_rates, threshold=FUNCTION_ERROR_RATE_PERCENT),
            _graph("Function throttles", throttles),
            _graph("Function duration p99 (ms)", durations),
        ]

    def _scores_table(self, tables: LeaderboardTables) -> list[cw.IWidget]:
        table_name = tables.scores.table_name

        def dynamodb(metric: str, *, statistic="Sum", period=ONE_MINUTE, **dimensions) -> cw.Metric:
            return cw.Metric(
                namespace="AWS/DynamoDB",
                metric_name=metric,
                dimensions_map={"TableName": table_name, **dimensions},
                statistic=statistic,
                period=period,
            )

        index = {"GlobalSecondaryIndexName": schema.RANK_INDEX}
        # The table's throttle events leave out its index's: DynamoDB reports those under both dimensions.
        throttle_events = {
            "ScoresReadThrottles": ("scores table reads", dynamodb("ReadThrottleEvents")),
            "ScoresWriteThrottles": ("scores table writes", dynamodb("WriteThrottleEvents")),
            "RankIndexReadThrottles": ("rank index reads", dynamodb("ReadThrottleEvents", **index)),
            "RankIndexWriteThrottles": ("rank index writes", dynamodb("WriteThrottleEvents", **index)),
        }
        for alarm_id, (what, metric) in throttle_events.items():
            self._alarm(
                alarm_id,
                metric,
                threshold=0,
                periods=(THROTTLE_MINUTES, THROTTLE_WINDOW_MINUTES),
                description=f"DynamoDB throttled {what} in {THROTTLE_MINUTES} of {THROTTLE_WINDOW_MINUTES} "
                "minutes. A hot board (one index partition takes about 1,000 writes/s) needs `shards`; a sudden "
                "burst to twice the previous peak passes by itself.",
            )
        conflicts = dynamodb("TransactionConflict", period=FIVE_MINUTES)
        transactions = dynamodb(
            "SuccessfulRequestLatency", statistic="SampleCount", period=FIVE_MINUTES, Operation="TransactWriteItems"
        )
        conflict_share = cw.MathExpression(
            # No conflict datapoint: no data, not breaching. Conflicts and no successful transaction: 100 %.
            expression="100 * conflicts / (conflicts + FILL(transactions, 0))",
            using_metrics={"conflicts": conflicts, "transactions": transactions},
            label="conflicts (% of transaction attempts)",
            period=FIVE_MINUTES,
        )
        self._alarm(
            "TransactionConflicts",
            conflict_share,
            threshold=CONFLICT_PERCENT,
            periods=(3, 3),
            description=f"More than {CONFLICT_PERCENT} % of score transactions were rejected by a conflicting write "
            "for 15 minutes: writers of one board keep meeting on its rank counters. Give the board `shards`.",
        )
        capacity = [
            dynamodb("ConsumedReadCapacityUnits").with_(label="table reads"),
            dynamodb("ConsumedWriteCapacityUnits").with_(label="table writes"),
            dynamodb("ConsumedReadCapacityUnits", **index).with_(label="rank index reads"),
            dynamodb("ConsumedWriteCapacityUnits", **index).with_(label="rank index writes"),
        ]
        return [
            _graph("DynamoDB throttle events", [m.with_(label=what) for what, m in throttle_events.values()]),
            _graph(
                "Transaction conflicts",
                [conflict_share],
                right=[conflicts.with_(label="conflicts (items)")],
                threshold=CONFLICT_PERCENT,
            ),
            _graph("Consumed capacity (units/min)", capacity),
        ]

    def _stream_lag(
        self, alarm_id: str, consumer: lambda_.IFunction, *, seconds: int, title: str, description: str, right=()
    ) -> cw.GraphWidget:
        """A stream consumer's lag behind the writes: its iterator age (how old the newest records are when Lambda
        hands them over), alarmed above `seconds` for 5 minutes, and its graph."""
        iterator_age = consumer.metric("IteratorAge", statistic="Maximum", period=ONE_MINUTE)
        self._alarm(
            alarm_id,
            iterator_age,
            threshold=seconds * 1000,
            periods=(5, 5),
            description=description,
            essential=alarm_id == "RankCounterLag",  # ranks behind; a late live push is not paged outside "full"
        )
        return _graph(
            title, [iterator_age.with_(label="stream iterator age (ms)")], right=right, threshold=seconds * 1000
        )

    def _failures(self, queues: Mapping[str, sqs.IQueue]) -> list[cw.IWidget]:
        """A batch a stream consumer gave up on (its dead-letter queue holds a record of it): alarmed at once, since
        those changes were never counted or pushed (a later write into the same ranges recounts them)."""
        graphs: list[cw.IWidget] = []
        for name, queue in queues.items():
            waiting = queue.metric_approximate_number_of_messages_visible(period=FIVE_MINUTES, statistic="Maximum")
            self._alarm(
                f"{_pascal(name)}FailedBatches",
                waiting,
                threshold=0,
                periods=(1, 1),
                description=f"The {name} function gave up on a stream batch after its retries: its dead-letter "
                "queue names the shard and sequence numbers. Read the function's log group for the error.",
                essential=True,
            )
            graphs.append(_graph(f"{name}: batches given up on", [waiting.with_(label="records in its DLQ")]))
        return graphs

    def _rank_counter(self, fn: lambda_.IFunction) -> list[cw.IWidget]:
        """How far the rank counters lag the writes: the stream's iterator age, and what the function reports."""
        counted = cw.Metric(
            namespace=metrics.NAMESPACE,
            metric_name=metrics.COUNTER_LAG,
            dimensions_map={metrics.FUNCTION_DIMENSION: fn.function_name},
            statistic="Maximum",
            period=ONE_MINUTE,
            label="oldest record when counted (s)",
        )
        return [
            self._stream_lag(
                "RankCounterLag",
                fn,
                seconds=COUNTER_LAG_SECONDS,
                title="Rank counters: lag behind the writes",
                description=f"The rank counters are more than {COUNTER_LAG_SECONDS} s behind the writes for 5 "
                "minutes: ranks and totals lag. Read the rank-counter function's log group (errors retry the batch "
                "until they pass) and its duration.",
                right=[counted],
            )
        ]

    def _live(self, live: LiveUpdates, broadcaster: lambda_.IFunction) -> list[cw.IWidget]:
        """AppSync Events: the broadcaster's publishes (the HTTP endpoint's errors), deliveries and connections
        (the real-time endpoint's), and how far the publishes lag the writes. Metric names and dimensions: AWS
        AppSync Events' "CloudWatch metrics" page (docs.aws.amazon.com/appsync/latest/eventapi/cw-metrics.html):
        the HTTP endpoint's per EventAPIId, the real-time endpoint's per EventAPIId and ChannelNamespaceName."""
        api_id = {"EventAPIId": live.api.api_id}
        namespace = {**api_id, "ChannelNamespaceName": live_channels.NAMESPACE}

        def appsync_metric(name: str, dimensions: dict, statistic: str = "Sum") -> cw.Metric:
            return cw.Metric(
                namespace="AWS/AppSync",
                metric_name=name,
                dimensions_map=dimensions,
                statistic=statistic,
                period=FIVE_MINUTES,
            )

        # Only the broadcaster uses the HTTP endpoint (clients subscribe over the WebSocket): any error there is a
        # failed publish (4xx: signature, permission or body; 5xx: AppSync's side).
        publish_errors = cw.MathExpression(
            expression="client + server",
            using_metrics={
                "client": appsync_metric("4XXError", api_id),
                "server": appsync_metric("5XXError", api_id),
            },
            period=FIVE_MINUTES,
        )
        self._alarm(
            "LivePublishErrors",
            publish_errors,
            threshold=0,
            periods=(2, 3),
            description="AppSync Events refused the broadcaster's publishes in 2 of 3 five-minute periods: live "
            "viewers get no new tops. Read the live-broadcaster function's log group (PublishFailed names the "
            "status and AppSync's answer: 403 is the role's appsync:EventPublish or the signature).",
        )
        delivery_errors = appsync_metric("PublishDataMessageServerError", namespace)
        self._alarm(
            "LiveDeliveryErrors",
            delivery_errors,
            threshold=0,
            periods=(2, 3),
            description="AppSync Events failed to deliver events to subscribers in 2 of 3 five-minute periods "
            "(its own errors, not the clients'). Check the AWS Health Dashboard for AppSync in this region.",
        )
        connected = appsync_metric("ConnectSuccess", namespace)
        refused = appsync_metric("ConnectClientError", namespace)
        refused_share = cw.MathExpression(
            expression="IF(ok + refused > 0, refused / (ok + refused), 0)",
            using_metrics={"ok": connected, "refused": refused},
            period=FIVE_MINUTES,
        )
        self._alarm(
            "LiveConnectionsRefused",
            refused_share,
            threshold=0.5,
            periods=(3, 3),
            description="More than half of the live WebSocket connections were refused for 15 minutes: most "
            "likely the subscribe-only API key expired or was rotated away (props live_api_key_expires, "
            "live_api_key_generation); clients then fall back to polling.",
        )
        return [
            _graph(
                "Live: publishes and their errors (per 5 min)",
                [
                    appsync_metric("4XXError", api_id).with_(label="4xx"),
                    appsync_metric("5XXError", api_id).with_(label="5xx"),
                ],
            ),
            _graph(
                "Live: connections and deliveries",
                [
                    appsync_metric("ActiveConnections", namespace).with_(label="active connections"),
                    appsync_metric("ActiveSubscriptions", namespace).with_(label="active subscriptions"),
                ],
                right=[
                    connected.with_(label="connections made"),
                    appsync_metric("PublishDataMessageSuccess", namespace).with_(label="delivered"),
                    delivery_errors.with_(label="delivery errors"),
                    refused.with_(label="connections refused"),
                    appsync_metric("ConnectServerError", namespace).with_(label="connection errors"),
                ],
            ),
            self._stream_lag(
                "LivePushLag",
                broadcaster,
                seconds=LIVE_LAG_SECONDS,
                title="Live publishes: lag behind the writes",
                description=f"Live updates are more than {LIVE_LAG_SECONDS} s behind the writes for 5 minutes: "
                "pages that follow a board live show a stale top. Read the live-broadcaster function's log group "
                "and its duration.",
            ),
        ]

    def _service(self, functions: Mapping[str, lambda_.IFunction]) -> list[cw.IWidget]:
        """The service's own EMF metrics over every function that emits them (the dimension): counts are summed,
        other statistics (a lag's Maximum) take the largest."""
        widgets: list[cw.IWidget] = []
        for name, title, statistic in SERVICE_METRICS:
            per_function = {
                f"f{i}": cw.Metric(
                    namespace=metrics.NAMESPACE,
                    metric_name=name,
                    dimensions_map={metrics.FUNCTION_DIMENSION: fn.function_name},
                    statistic=statistic,
                    period=FIVE_MINUTES,
                )
                for i, fn in enumerate(functions.values())
            }
            combine = "SUM" if statistic == "Sum" else "MAX"
            total = cw.MathExpression(
                expression=f"{combine}([{','.join(per_function)}])",
                using_metrics=per_function,
                label=name,
                period=FIVE_MINUTES,
            )
            widgets.append(_graph(title, [total]))
        return widgets

    def _instance(self, instance: ec2.Instance) -> list[cw.IWidget]:
        def ec2_metric(metric: str, statistic: str, period: Duration) -> cw.Metric:
            return cw.Metric(
                namespace="AWS/EC2",
                metric_name=metric,
                dimensions_map={"InstanceId": instance.instance_id},
                statistic=statistic,
                period=period,
            )

        status = ec2_metric("StatusCheckFailed", "Maximum", ONE_MINUTE)
        self._alarm(
            "DashboardInstanceStatus",
            status,
            threshold=1,
            comparison=cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
            periods=(INSTANCE_FAILED_MINUTES, INSTANCE_FAILED_MINUTES),
            missing=cw.TreatMissingData.BREACHING,
            description=f"The dashboard instance failed its status check for {INSTANCE_FAILED_MINUTES} minutes, or "
            "is stopped. Reboot it, or let CloudFormation replace it.",
            essential=True,
        )
        return [
            _graph("Dashboard instance status check", [status.with_(label="failed")], threshold=1),
            _graph("Dashboard instance CPU (%)", [ec2_metric("CPUUtilization", "Average", FIVE_MINUTES)]),
        ]


def _graph(title: str, left, *, right=(), threshold: float | None = None) -> cw.GraphWidget:
    """A third of the dashboard's width; `threshold` draws the alarm's line."""
    annotations = [cw.HorizontalAnnotation(value=threshold, label="alarm")] if threshold is not None else []
    return cw.GraphWidget(
        title=title,
        left=list(left),
        right=list(right),
        left_annotations=annotations,
        left_y_axis=cw.YAxisProps(min=0),
        width=8,
    )


# The service's own metrics on the dashboard, one graph each: (name in metrics.py, title, statistic).
# Add a line for a new one, e.g. (metrics.STREAM_LAG, "Stream consumer lag (ms)", "Maximum").
SERVICE_METRICS: list[tuple[str, str, str]] = [
    (metrics.SUBMISSIONS, "Score submissions (per 5 min)", "Sum"),
    (metrics.RANK_READS, "Rank computations (per 5 min)", "Sum"),
    (metrics.WRITE_RETRIES, "Write retries after a conflict (per 5 min)", "Sum"),
    (metrics.COUNTER_RECOUNTS, "Rank counter recounts (per 5 min)", "Sum"),
]
