"""Metric factories of the operations page: each area's figures as CloudWatch metrics and math expressions, made
once and read by both the alarms (monitoring_alarms.py) and the dashboard's layout (monitoring_layout.py).

Alarms get unlabelled metrics (those render as plain single-metric alarms: Statistic/ExtendedStatistic); the
layout labels them (`with_(label=...)`) for its graphs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from aws_cdk import Duration
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sqs as sqs

from .paths import limits, live_channels, metrics, schema

ONE_MINUTE = Duration.minutes(1)
FIVE_MINUTES = Duration.minutes(5)
LATENCY_PERCENTILES = ("p50", "p90", "p99")

# The service's own metrics on the dashboard, one graph each: (name in metrics.py, title, statistic).
# Add a line for a new one, e.g. (metrics.STREAM_LAG, "Stream consumer lag (ms)", "Maximum").
SERVICE_METRICS: tuple[tuple[str, str, str], ...] = (
    (metrics.SUBMISSIONS, "Score submissions (per 5 min)", "Sum"),
    (metrics.RANK_READS, "Rank computations (per 5 min)", "Sum"),
    (metrics.WRITE_RETRIES, "Write retries after a conflict (per 5 min)", "Sum"),
    (metrics.COUNTER_RECOUNTS, "Rank counter recounts (per 5 min)", "Sum"),
)


@dataclass(frozen=True)
class ApiMetrics:
    requests: cw.Metric
    server_errors: cw.Metric  # Average of 5XXError: the share of requests (each counts 0 or 1)
    client_errors: cw.Metric
    latency: Mapping[str, cw.Metric]  # by percentile


def api_metrics(stage: apigw.Stage) -> ApiMetrics:
    return ApiMetrics(
        requests=stage.metric_count(statistic="Sum", period=FIVE_MINUTES, label="requests"),
        server_errors=stage.metric_server_error(statistic="Average", period=FIVE_MINUTES),
        client_errors=stage.metric_client_error(statistic="Average", period=FIVE_MINUTES),
        latency={p: stage.metric_latency(statistic=p, period=FIVE_MINUTES) for p in LATENCY_PERCENTILES},
    )


@dataclass(frozen=True)
class FunctionMetrics:
    name: str
    error_rate: cw.MathExpression  # % of invocations
    throttles: cw.Metric
    duration_p99: cw.Metric


def function_metrics(functions: Mapping[str, lambda_.IFunction]) -> list[FunctionMetrics]:
    figures = []
    for index, (name, fn) in enumerate(functions.items()):
        # Ids unique per function: several of these expressions share one graph.
        errors, invocations = f"errors{index}", f"invocations{index}"
        figures.append(
            FunctionMetrics(
                name=name,
                error_rate=cw.MathExpression(
                    expression=f"IF({invocations} > 0, 100 * {errors} / {invocations}, 0)",
                    using_metrics={
                        errors: fn.metric_errors(statistic="Sum", period=FIVE_MINUTES),
                        invocations: fn.metric_invocations(statistic="Sum", period=FIVE_MINUTES),
                    },
                    label=name,
                    period=FIVE_MINUTES,
                ),
                throttles=fn.metric_throttles(statistic="Sum", period=ONE_MINUTE),
                duration_p99=fn.metric_duration(statistic="p99", period=FIVE_MINUTES, label=name),
            )
        )
    return figures


@dataclass(frozen=True)
class TableMetrics:
    # alarm id -> (what is throttled, metric)
    throttle_events: Mapping[str, tuple[str, cw.Metric]]
    conflicts: cw.Metric
    conflict_share: cw.MathExpression  # % of transaction attempts
    capacity: Sequence[cw.Metric]  # labelled


def scores_table_metrics(table_name: str) -> TableMetrics:
    def dynamodb(metric: str, *, statistic: str = "Sum", period: Duration = ONE_MINUTE, **dimensions: str) -> cw.Metric:
        return cw.Metric(
            namespace="AWS/DynamoDB",
            metric_name=metric,
            dimensions_map={"TableName": table_name, **dimensions},
            statistic=statistic,
            period=period,
        )

    index: dict[str, Any] = {"GlobalSecondaryIndexName": schema.RANK_INDEX}
    conflicts = dynamodb("TransactionConflict", period=FIVE_MINUTES)
    transactions = dynamodb(
        "SuccessfulRequestLatency", statistic="SampleCount", period=FIVE_MINUTES, Operation="TransactWriteItems"
    )
    return TableMetrics(
        # The table's throttle events leave out its index's: DynamoDB reports those under both dimensions.
        throttle_events={
            "ScoresReadThrottles": ("scores table reads", dynamodb("ReadThrottleEvents")),
            "ScoresWriteThrottles": ("scores table writes", dynamodb("WriteThrottleEvents")),
            "RankIndexReadThrottles": ("rank index reads", dynamodb("ReadThrottleEvents", **index)),
            "RankIndexWriteThrottles": ("rank index writes", dynamodb("WriteThrottleEvents", **index)),
        },
        conflicts=conflicts,
        conflict_share=cw.MathExpression(
            # No conflict datapoint: no data, not breaching. Conflicts and no successful transaction: 100 %.
            expression="100 * conflicts / (conflicts + FILL(transactions, 0))",
            using_metrics={"conflicts": conflicts, "transactions": transactions},
            label="conflicts (% of transaction attempts)",
            period=FIVE_MINUTES,
        ),
        capacity=[
            dynamodb("ConsumedReadCapacityUnits").with_(label="table reads"),
            dynamodb("ConsumedWriteCapacityUnits").with_(label="table writes"),
            dynamodb("ConsumedReadCapacityUnits", **index).with_(label="rank index reads"),
            dynamodb("ConsumedWriteCapacityUnits", **index).with_(label="rank index writes"),
        ],
    )


def stream_iterator_age(consumer: lambda_.IFunction) -> cw.Metric:
    """How old the newest records are when Lambda hands them to a stream consumer (ms)."""
    return consumer.metric("IteratorAge", statistic="Maximum", period=ONE_MINUTE)


def counter_lag_reported(fn: lambda_.IFunction) -> cw.Metric:
    """What the rank-counter function reports of its own lag (EMF, seconds)."""
    return cw.Metric(
        namespace=metrics.NAMESPACE,
        metric_name=metrics.COUNTER_LAG,
        dimensions_map={metrics.FUNCTION_DIMENSION: fn.function_name},
        statistic="Maximum",
        period=ONE_MINUTE,
        label="oldest record when counted (s)",
    )


def live_key_days_left(renewer: lambda_.IFunction) -> cw.Metric:
    """Days the live API key is valid for after each successful renewal (EMF; none when a renewal fails)."""
    return cw.Metric(
        namespace=metrics.NAMESPACE,
        metric_name=metrics.LIVE_KEY_DAYS_LEFT,
        dimensions_map={metrics.FUNCTION_DIMENSION: renewer.function_name},
        statistic="Minimum",
        period=Duration.hours(limits.LIVE_KEY_ALARM_HOURS),  # no label: a label renders the alarm as Metrics[]
    )


def failed_batches(queue: sqs.IQueue) -> cw.Metric:
    """Records of given-up stream batches waiting in a consumer's dead-letter queue."""
    return queue.metric_approximate_number_of_messages_visible(period=FIVE_MINUTES, statistic="Maximum")


@dataclass(frozen=True)
class LiveMetrics:
    """AppSync Events. Metric names and dimensions: AWS AppSync Events' "CloudWatch metrics" page
    (docs.aws.amazon.com/appsync/latest/eventapi/cw-metrics.html): the HTTP endpoint's per EventAPIId, the real-time
    endpoint's per EventAPIId and ChannelNamespaceName."""

    publish_4xx: cw.Metric
    publish_5xx: cw.Metric
    publish_errors: cw.MathExpression
    delivery_errors: cw.Metric
    delivered: cw.Metric
    connected: cw.Metric
    refused: cw.Metric
    refused_share: cw.MathExpression
    connection_errors: cw.Metric
    active_connections: cw.Metric
    active_subscriptions: cw.Metric
    hourly_spend: cw.MathExpression


# AppSync Events' list prices (docs/PERFORMANCE.md, "Cost of abusive live connections"): 1.00 USD per million
# operations (a delivery to one subscriber, a connect, a subscribe...), 0.08 USD per million connection-minutes.
EVENT_OPERATION_USD = 1.0e-6
CONNECTION_MINUTE_USD = 0.08e-6


def live_metrics(event_api_id: str) -> LiveMetrics:
    api_id = {"EventAPIId": event_api_id}
    namespace = {**api_id, "ChannelNamespaceName": live_channels.NAMESPACE}

    def appsync_metric(name: str, dimensions: Mapping[str, str], statistic: str = "Sum") -> cw.Metric:
        return cw.Metric(
            namespace="AWS/AppSync",
            metric_name=name,
            dimensions_map=dict(dimensions),
            statistic=statistic,
            period=FIVE_MINUTES,
        )

    connected = appsync_metric("ConnectSuccess", namespace)
    refused = appsync_metric("ConnectClientError", namespace)
    return LiveMetrics(
        publish_4xx=appsync_metric("4XXError", api_id),
        publish_5xx=appsync_metric("5XXError", api_id),
        # Only the broadcaster uses the HTTP endpoint (clients subscribe over the WebSocket): any error there is a
        # failed publish (4xx: signature, permission or body; 5xx: AppSync's side).
        publish_errors=cw.MathExpression(
            expression="client + server",
            using_metrics={
                "client": appsync_metric("4XXError", api_id),
                "server": appsync_metric("5XXError", api_id),
            },
            period=FIVE_MINUTES,
        ),
        delivery_errors=appsync_metric("PublishDataMessageServerError", namespace),
        delivered=appsync_metric("PublishDataMessageSuccess", namespace),
        connected=connected,
        refused=refused,
        refused_share=cw.MathExpression(
            expression="IF(ok + refused > 0, refused / (ok + refused), 0)",
            using_metrics={"ok": connected, "refused": refused},
            period=FIVE_MINUTES,
        ),
        connection_errors=appsync_metric("ConnectServerError", namespace),
        active_connections=appsync_metric("ActiveConnections", namespace),
        active_subscriptions=appsync_metric("ActiveSubscriptions", namespace),
        # USD an hour at this five minutes' pace: deliveries and connects are operations; the connections open
        # on average for five minutes are 5 connection-minutes each. A model of the bill, not the bill (subscribes,
        # refused connects and keep-alives are not counted here).
        hourly_spend=cw.MathExpression(
            expression=f"12 * ((delivered + connects) * {EVENT_OPERATION_USD} + open * 5 * {CONNECTION_MINUTE_USD})",
            using_metrics={
                "delivered": appsync_metric("PublishDataMessageSuccess", namespace),
                "connects": appsync_metric("ConnectSuccess", namespace),
                "open": appsync_metric("ActiveConnections", namespace, statistic="Average"),
            },
            label="Live spend (USD/hour, modelled)",
            period=FIVE_MINUTES,
        ),
    )


def service_totals(functions: Mapping[str, lambda_.IFunction]) -> list[tuple[str, cw.MathExpression]]:
    """The service's own EMF metrics over every function that emits them (the dimension), (title, total) per
    SERVICE_METRICS line: counts are summed, other statistics (a lag's Maximum) take the largest."""
    totals = []
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
        totals.append(
            (
                title,
                cw.MathExpression(
                    expression=f"{combine}([{','.join(per_function)}])",
                    using_metrics=per_function,
                    label=name,
                    period=FIVE_MINUTES,
                ),
            )
        )
    return totals


@dataclass(frozen=True)
class InstanceMetrics:
    status_check_failed: cw.Metric
    cpu: cw.Metric


def instance_metrics(instance: ec2.Instance) -> InstanceMetrics:
    def ec2_metric(metric: str, statistic: str, period: Duration) -> cw.Metric:
        return cw.Metric(
            namespace="AWS/EC2",
            metric_name=metric,
            dimensions_map={"InstanceId": instance.instance_id},
            statistic=statistic,
            period=period,
        )

    return InstanceMetrics(
        status_check_failed=ec2_metric("StatusCheckFailed", "Maximum", ONE_MINUTE),
        cpu=ec2_metric("CPUUtilization", "Average", FIVE_MINUTES),
    )
