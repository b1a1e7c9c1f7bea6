"""The operations dashboard's layout: a row of graphs per area, from the same metrics as the alarms
(monitoring_metrics.py), each graph a third of the page wide with the alarm's threshold drawn on it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cw
from constructs import Construct

from .monitoring_alarms import (
    API_5XX_RATE,
    API_P99_MS,
    CONFLICT_PERCENT,
    COUNTER_LAG_SECONDS,
    FUNCTION_ERROR_RATE_PERCENT,
    LIVE_LAG_SECONDS,
)
from .monitoring_metrics import ApiMetrics, FunctionMetrics, InstanceMetrics, LiveMetrics, TableMetrics
from .paths import limits, metrics

Row = list[cw.IWidget]


def graph(
    title: str, left: Iterable[cw.IMetric], *, right: Iterable[cw.IMetric] = (), threshold: float | None = None
) -> cw.GraphWidget:
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


def api_row(api: ApiMetrics) -> Row:
    return [
        graph("API requests", [api.requests]),
        graph(
            "API error rates (0-1)",
            [api.server_errors.with_(label="5xx"), api.client_errors.with_(label="4xx")],
            threshold=API_5XX_RATE,
        ),
        graph("API latency (ms)", [m.with_(label=p) for p, m in api.latency.items()], threshold=API_P99_MS),
    ]


def functions_row(functions: Sequence[FunctionMetrics]) -> Row:
    return [
        graph(
            "Function errors (% of invocations)",
            [fn.error_rate for fn in functions],
            threshold=FUNCTION_ERROR_RATE_PERCENT,
        ),
        graph("Function throttles", [fn.throttles.with_(label=fn.name) for fn in functions]),
        graph("Function duration p99 (ms)", [fn.duration_p99 for fn in functions]),
    ]


def scores_table_row(table: TableMetrics) -> Row:
    return [
        graph("DynamoDB throttle events", [m.with_(label=what) for what, m in table.throttle_events.values()]),
        graph(
            "Transaction conflicts",
            [table.conflict_share],
            right=[table.conflicts.with_(label="conflicts (items)")],
            threshold=CONFLICT_PERCENT,
        ),
        graph("Consumed capacity (units/min)", table.capacity),
    ]


def service_row(totals: Sequence[tuple[str, cw.MathExpression]]) -> Row:
    return [graph(title, [total]) for title, total in totals]


def stream_lag_graph(
    title: str, iterator_age: cw.Metric, *, seconds: int, right: Iterable[cw.IMetric] = ()
) -> cw.GraphWidget:
    return graph(title, [iterator_age.with_(label="stream iterator age (ms)")], right=right, threshold=seconds * 1000)


def rank_counter_row(iterator_age: cw.Metric, counted: cw.Metric) -> Row:
    """How far the rank counters lag the writes: the stream's iterator age, and what the function reports."""
    return [
        stream_lag_graph(
            "Rank counters: lag behind the writes", iterator_age, seconds=COUNTER_LAG_SECONDS, right=[counted]
        )
    ]


def live_row(live: LiveMetrics, iterator_age: cw.Metric) -> Row:
    """AppSync Events: the broadcaster's publishes, deliveries and connections, and how far the publishes lag."""
    return [
        graph(
            "Live: publishes and their errors (per 5 min)",
            [live.publish_4xx.with_(label="4xx"), live.publish_5xx.with_(label="5xx")],
        ),
        graph(
            "Live: connections and deliveries",
            [
                live.active_connections.with_(label="active connections"),
                live.active_subscriptions.with_(label="active subscriptions"),
            ],
            right=[
                live.connected.with_(label="connections made"),
                live.delivered.with_(label="delivered"),
                live.delivery_errors.with_(label="delivery errors"),
                live.refused.with_(label="connections refused"),
                live.connection_errors.with_(label="connection errors"),
            ],
        ),
        stream_lag_graph("Live publishes: lag behind the writes", iterator_age, seconds=LIVE_LAG_SECONDS),
    ]


def live_key_graph(days_left: cw.IMetric) -> cw.GraphWidget:
    return graph(
        "Live API key: days left after each renewal",
        [days_left.with_(label="days left")],
        threshold=limits.LIVE_KEY_VALID_DAYS - 2,
    )


def failures_row(waiting: Sequence[tuple[str, cw.Metric]]) -> Row:
    return [graph(f"{name}: batches given up on", [m.with_(label="records in its DLQ")]) for name, m in waiting]


def instance_row(instance: InstanceMetrics) -> Row:
    return [
        graph("Dashboard instance status check", [instance.status_check_failed.with_(label="failed")], threshold=1),
        graph("Dashboard instance CPU (%)", [instance.cpu]),
    ]


def operations_dashboard(
    scope: Construct, id: str, *, stage: str, alarms: Sequence[cw.IAlarm], rows: Iterable[Row]
) -> cw.Dashboard:
    """The page: a note and every alarm's state on top, then one row per area."""
    dashboard = cw.Dashboard(scope, id, default_interval=Duration.hours(6))
    dashboard.add_widgets(
        cw.TextWidget(
            markdown=f"## Leaderboard {stage}: operations\n"
            "Every alarm notifies the stack's alarm topic (output `AlarmTopicArn`), when it fires and when it "
            f"clears. Service metrics are in namespace `{metrics.NAMESPACE}`, per function; for one board, query "
            'the functions\' log groups with Logs Insights (`filter board = "..."`).',
            width=8,
            height=6,
        ),
        cw.AlarmStatusWidget(title="Alarms", alarms=list(alarms), width=16, height=6),
    )
    for row in rows:
        dashboard.add_widgets(*row)
    return dashboard
