"""Operations: alarms on what hurts players, one SNS topic they all notify, and one CloudWatch dashboard.

Written with aws_cloudwatch directly rather than cdk-monitoring-constructs (10.3.3 works with our aws-cdk-lib and
imports offline): that library gives every alarm and its dashboard a physical name (AlarmName/DashboardName from a
prefix; two stacks in one account would need care not to clash), its whole API is marked experimental, it adds
1.7 s of jsii loading to every synth, and it has nothing for several of our figures anyway (transaction conflicts,
the instance's status check, our own EMF metrics). What is left is a page of plain alarms.


Split the cdk-monitoring-constructs way: metric factories (monitoring_metrics.py), the alarms with their thresholds
(monitoring_alarms.py) and the dashboard's layout (monitoring_layout.py); this construct makes the topic and puts
them together, area by area.
"""

from __future__ import annotations

from collections.abc import Mapping

from aws_cdk import Duration, RemovalPolicy, Stack
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from aws_cdk import aws_sqs as sqs
from constructs import Construct

from . import monitoring_alarms as alarms
from . import monitoring_layout as layout
from . import monitoring_metrics as figures
from .live_events_api import LiveUpdates
from .nag import acknowledge
from .paths import routes
from .props import LeaderboardProps
from .tables import LeaderboardTables


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
        api: apigw.SpecRestApi,
        live: LiveUpdates | None,
        failure_queues: Mapping[str, sqs.IQueue] = {},  # noqa: B006 (read only)
        instance: ec2.Instance | None = None,
    ) -> None:
        super().__init__(scope, id)
        self._essential_only = props.effective_monitoring_level == "essential"
        self.alarm_topic = self._topic(props)
        if props.monitoring.alarm_email:
            self.alarm_topic.add_subscription(subscriptions.EmailSubscription(props.monitoring.alarm_email))
        factory = alarms.AlarmFactory(self, self.alarm_topic, essential_only=self._essential_only)

        # Area by area: the figures, their alarms (in the order the alarm list shows them), their row of graphs.
        api_figures = figures.api_metrics(api.deployment_stage)
        alarms.api_alarms(factory, api_figures)
        function_figures = figures.function_metrics(functions)
        alarms.function_alarms(factory, function_figures)
        table_figures = figures.scores_table_metrics(tables.scores.table_name)
        alarms.scores_table_alarms(factory, table_figures)
        rows = [
            layout.api_row(api_figures),
            layout.functions_row(function_figures),
            layout.scores_table_row(table_figures),
            layout.service_row(figures.service_totals(functions)),
        ]
        rank_counter = functions[routes.RANK_COUNTER.name]
        counter_age = figures.stream_iterator_age(rank_counter)
        alarms.rank_counter_lag_alarm(factory, counter_age)
        rows.append(layout.rank_counter_row(counter_age, figures.counter_lag_reported(rank_counter)))
        key_graph: list[cw.IWidget] = []
        if live is not None:  # live off: no live alarms or graphs (the idle broadcaster keeps its function ones)
            live_figures = figures.live_metrics(live.api.api_id)
            broadcaster_age = figures.stream_iterator_age(functions[routes.LIVE_BROADCASTER.name])
            alarms.live_alarms(factory, live_figures, broadcaster_age)
            alarms.live_spend_alarm(factory, live_figures, props.live.hourly_budget_usd)
            key_days_left = figures.live_key_days_left(functions[routes.PERIOD_CLOSER.name])
            alarms.live_key_alarm(factory, key_days_left)
            rows.append(layout.live_row(live_figures, broadcaster_age))
            key_graph = [layout.live_key_graph(key_days_left)]
        waiting = [(name, figures.failed_batches(queue)) for name, queue in failure_queues.items()]
        for name, metric in waiting:
            # a live batch given up on heals with the next change (the whole top is published again): not paged
            # at "essential", where its alarm metric goes to the live key's renewal instead
            alarms.failed_batches_alarm(factory, name, metric, essential=name != routes.LIVE_BROADCASTER.name)
        rows.append(layout.failures_row(waiting) + key_graph)
        if instance is not None:
            instance_figures = figures.instance_metrics(instance)
            alarms.instance_alarm(factory, instance_figures)
            rows.append(layout.instance_row(instance_figures))
        self.alarms: list[cw.Alarm] = factory.alarms
        self.operations_dashboard: cw.Dashboard | None = None
        if self._essential_only:
            return
        self.operations_dashboard = layout.operations_dashboard(
            self, "Dashboard", stage=props.stage, alarms=self.alarms, rows=rows
        )

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
