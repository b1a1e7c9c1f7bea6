"""Operations in the template: the alarms (one concern per test), their topic, the dashboard, detailed API metrics."""

from __future__ import annotations

import json
import re
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from cdk_leaderboard import LeaderboardProps, Monitoring

from cdk_leaderboard_lambda.shared import schema
from cdk_leaderboard_lambda.web import routes
from stacks.app_builder import build_app, cdk_json_context, stack_name
from stacks.leaderboard_stack import LeaderboardStack
from tests.cloudwatch_dashboard import dashboard_body, metric_rows


@pytest.fixture(scope="module")
def template() -> Template:
    """dev at the "full" level (every alarm and the dashboard): production's default, dev's is "essential"."""
    context = cdk_json_context()
    stages = context["stages"]
    app = build_app(
        "dev", context={"stages": {**stages, "dev": {**stages["dev"], "monitoring": {"level": "full"}}}}, nag=False
    )
    return Template.from_json(app.synth().get_stack_by_name(stack_name("dev")).template)


def _variant(**props) -> dict:
    app = cdk.App(context=cdk_json_context())
    stack = LeaderboardStack(app, "leaderboard-variant", props=LeaderboardProps(stage="variant", **props))
    return Template.from_stack(stack).to_json()


@pytest.fixture(scope="module")
def emailed_without_instance() -> dict:
    return _variant(dashboard=False, monitoring=Monitoring(alarm_email="ops@example.com", level="full"))


@pytest.fixture(scope="module")
def unmonitored() -> dict:
    return _variant(monitoring=Monitoring(enabled=False))


def of_type(template: dict, type_: str) -> dict[str, dict]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == type_}


def alarms(template: dict) -> dict[str, dict]:
    return {k: r["Properties"] for k, r in of_type(template, "AWS::CloudWatch::Alarm").items()}


def reads(alarm: dict) -> list[dict]:
    """The metrics an alarm reads, as {namespace, name, dimensions, stat}, whether single-metric or math."""
    if "MetricName" in alarm:
        dims = {d["Name"]: d["Value"] for d in alarm.get("Dimensions", [])}
        stat = alarm.get("Statistic") or alarm.get("ExtendedStatistic")
        return [{"namespace": alarm["Namespace"], "name": alarm["MetricName"], "dimensions": dims, "stat": stat}]
    out = []
    for query in alarm["Metrics"]:
        if "MetricStat" in query:
            metric = query["MetricStat"]["Metric"]
            dims = {d["Name"]: d["Value"] for d in metric.get("Dimensions", [])}
            stat = query["MetricStat"]["Stat"]
            out.append(
                {"namespace": metric["Namespace"], "name": metric["MetricName"], "dimensions": dims, "stat": stat}
            )
    return out


def alarms_on(template: dict, name: str, **dimensions) -> dict[str, dict]:
    """Alarms reading metric `name` with exactly these dimensions (values as they appear in the template)."""
    return {
        k: a
        for k, a in alarms(template).items()
        if any(m["name"] == name and m["dimensions"] == dimensions for m in reads(a))
    }


def api_name(template: dict) -> str:
    (api,) = of_type(template, "AWS::ApiGateway::RestApi").values()
    return api["Properties"]["Name"]


def ref(template: dict, type_: str, contains: str = "") -> dict:
    (logical_id,) = [k for k in of_type(template, type_) if contains in k]
    return {"Ref": logical_id}


def test_api_5xx_alarm_is_a_rate_sustained_over_ten_minutes(template):
    """Average of 5XXError is the share of requests answered 5xx: above 1 % in 2 of 3 five-minute periods."""
    t = template.to_json()
    stage = ref(t, "AWS::ApiGateway::Stage")
    (alarm,) = alarms_on(t, "5XXError", ApiName=api_name(t), Stage=stage).values()
    assert (alarm["Statistic"], alarm["Period"], alarm["Threshold"]) == ("Average", 300, 0.01)
    assert (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"]) == (2, 3)
    assert alarm["ComparisonOperator"] == "GreaterThanThreshold"
    assert alarm["TreatMissingData"] == "notBreaching"  # no requests, no errors


def test_api_latency_alarm_is_p99_judged_only_on_enough_requests(template):
    """p99 above 1 s for 15 minutes; periods with fewer than 1,000 requests (cold starts) do not count."""
    t = template.to_json()
    (alarm,) = alarms_on(t, "Latency", ApiName=api_name(t), Stage=ref(t, "AWS::ApiGateway::Stage")).values()
    assert (alarm["ExtendedStatistic"], alarm["Threshold"], alarm["Period"]) == ("p99", 1000, 300)
    assert alarm["EvaluateLowSampleCountPercentile"] == "ignore"
    assert (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"]) == (3, 3)


def test_every_function_has_an_error_rate_alarm(template):
    """Errors divided by invocations of that one function, above 1 % in 2 of 3 five-minute periods."""
    t = template.to_json()
    functions = of_type(t, "AWS::Lambda::Function")
    assert len(functions) == len(routes.FUNCTIONS)
    for logical_id in functions:
        (alarm,) = alarms_on(t, "Errors", FunctionName={"Ref": logical_id}).values()
        metrics = {m["name"]: m for m in reads(alarm)}
        assert metrics["Invocations"]["dimensions"] == {"FunctionName": {"Ref": logical_id}}
        (expression,) = [q["Expression"] for q in alarm["Metrics"] if "Expression" in q]
        assert "100 *" in expression and "/" in expression
        assert alarm["Threshold"] == 1 and (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"]) == (2, 3)
        assert alarm["TreatMissingData"] == "notBreaching"


def test_every_function_has_a_throttle_alarm(template):
    """Any throttling in 3 of 5 minutes: the account's concurrency is the ceiling and it only gets lower."""
    t = template.to_json()
    for logical_id in of_type(t, "AWS::Lambda::Function"):
        (alarm,) = alarms_on(t, "Throttles", FunctionName={"Ref": logical_id}).values()
        assert (alarm["Statistic"], alarm["Period"], alarm["Threshold"]) == ("Sum", 60, 0)
        assert alarm["ComparisonOperator"] == "GreaterThanThreshold"
        assert (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"]) == (3, 5)


@pytest.mark.parametrize("metric", ["ReadThrottleEvents", "WriteThrottleEvents"])
def test_scores_table_and_its_rank_index_each_have_a_throttle_alarm(template, metric):
    """The table's throttle events leave out the index's, so both get an alarm, on reads and on writes."""
    t = template.to_json()
    table = ref(t, "AWS::DynamoDB::Table", "Scores")
    on_table = alarms_on(t, metric, TableName=table)
    on_index = alarms_on(t, metric, TableName=table, GlobalSecondaryIndexName=schema.RANK_INDEX)
    assert len(on_table) == len(on_index) == 1
    for alarm in [*on_table.values(), *on_index.values()]:
        assert (alarm["Statistic"], alarm["Period"], alarm["Threshold"]) == ("Sum", 60, 0)
        assert (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"]) == (3, 5)


def test_transaction_conflict_alarm_is_a_share_of_transaction_attempts(template):
    """DynamoDB's TransactionConflict against successful TransactWriteItems: above 25 % for 15 minutes."""
    t = template.to_json()
    table = ref(t, "AWS::DynamoDB::Table", "Scores")
    (alarm,) = alarms_on(t, "TransactionConflict", TableName=table).values()
    metrics = {m["name"]: m for m in reads(alarm)}
    assert metrics["TransactionConflict"]["stat"] == "Sum"
    transactions = metrics["SuccessfulRequestLatency"]
    assert transactions["dimensions"] == {"TableName": table, "Operation": "TransactWriteItems"}
    assert transactions["stat"] == "SampleCount"
    assert alarm["Threshold"] == 25 and (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"]) == (3, 3)


def test_instance_status_alarm_exists_only_with_a_dashboard_instance(template, emailed_without_instance):
    """A failed status check for 5 minutes, or no data at all (a stopped instance); none without an instance."""
    t = template.to_json()
    instance = ref(t, "AWS::EC2::Instance")
    (alarm,) = alarms_on(t, "StatusCheckFailed", InstanceId=instance).values()
    assert (alarm["Statistic"], alarm["Threshold"], alarm["ComparisonOperator"]) == (
        "Maximum",
        1,
        "GreaterThanOrEqualToThreshold",
    )
    assert (alarm["DatapointsToAlarm"], alarm["EvaluationPeriods"], alarm["Period"]) == (5, 5, 60)
    assert alarm["TreatMissingData"] == "breaching"
    assert not any(m["namespace"] == "AWS/EC2" for a in alarms(emailed_without_instance).values() for m in reads(a))


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_every_alarm_notifies_the_topic_when_it_fires_and_when_it_clears(stage, template, prod_template):
    """All alarms, in every stage, reach the one topic; CloudFormation names them (no physical names to clash)."""
    t = (template if stage == "dev" else prod_template).to_json()
    topic = ref(t, "AWS::SNS::Topic")
    found = alarms(t)
    # API 5xx and latency, errors and throttles per function, 4 DynamoDB throttles, conflicts, the rank
    # counters' lag, the live publishes' lag, the live Event API's publish errors, delivery errors and refused
    # connections, the instance, the two stream consumers' dead-letter queues, the live key's renewal, the live
    # spend.
    assert len(found) == 2 + 2 * len(routes.FUNCTIONS) + 4 + 1 + 1 + 1 + 3 + 1 + 2 + 1 + 1
    for logical_id, alarm in found.items():
        assert alarm["AlarmActions"] == [topic] and alarm["OKActions"] == [topic], logical_id
        assert "AlarmName" not in alarm, logical_id
        assert alarm["AlarmDescription"], logical_id


def test_alarm_topic_is_encrypted_with_a_rotated_key_cloudwatch_may_use(template):
    """A customer managed key: CloudWatch cannot publish to a topic under the AWS managed aws/sns key."""
    t = template.to_json()
    ((topic_id, topic),) = of_type(t, "AWS::SNS::Topic").items()
    ((key_id, key),) = of_type(t, "AWS::KMS::Key").items()
    assert topic["Properties"]["KmsMasterKeyId"] == {"Fn::GetAtt": [key_id, "Arn"]}
    assert key["Properties"]["EnableKeyRotation"] is True
    (statement,) = [
        s
        for s in key["Properties"]["KeyPolicy"]["Statement"]
        if s["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    ]
    assert sorted(statement["Action"]) == ["kms:Decrypt", "kms:GenerateDataKey*"]
    assert statement["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert ":alarm:*" in json.dumps(statement["Condition"]["ArnLike"]["aws:SourceArn"])


def test_alarm_topic_takes_tls_only_and_only_this_accounts_alarms(template):
    """Its policy denies publishing without TLS, and lets CloudWatch alarms of this account publish, nobody else."""
    t = template.to_json()
    topic = ref(t, "AWS::SNS::Topic")
    (policy,) = of_type(t, "AWS::SNS::TopicPolicy").values()
    assert policy["Properties"]["Topics"] == [topic]
    statements = policy["Properties"]["PolicyDocument"]["Statement"]
    (deny,) = [s for s in statements if s["Effect"] == "Deny"]
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}} and deny["Principal"] == "*"
    (allow,) = [s for s in statements if s["Effect"] == "Allow"]
    assert allow["Principal"] == {"Service": "cloudwatch.amazonaws.com"} and allow["Action"] == "sns:Publish"
    assert allow["Condition"]["StringEquals"] == {"aws:SourceAccount": {"Ref": "AWS::AccountId"}}
    assert ":cloudwatch:" in json.dumps(allow["Condition"]["ArnLike"]["aws:SourceArn"])


def test_alarm_email_prop_subscribes_the_address(template, emailed_without_instance):
    """With alarm_email the topic gets an e-mail subscription; without, none."""
    (subscription,) = of_type(emailed_without_instance, "AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == "ops@example.com"
    assert subscription["Properties"]["TopicArn"] == ref(emailed_without_instance, "AWS::SNS::Topic")
    assert of_type(template.to_json(), "AWS::SNS::Subscription") == {}


def test_alarm_email_is_checked_and_comes_from_the_stage_context():
    """A mistyped address would mean alarms that reach nobody: it fails synth instead."""
    with pytest.raises(ValueError, match="alarm_email"):
        LeaderboardProps(monitoring=Monitoring(alarm_email="ops-at-example.com"))
    props = LeaderboardProps.from_context("prod", {"monitoring": {"alarm_email": "ops@example.com"}})
    assert props.monitoring.alarm_email == "ops@example.com"


def test_monitoring_off_leaves_no_alarm_topic_key_or_dashboard(unmonitored):
    """monitoring: false saves their cost; the rest of the stack is unchanged."""
    for type_ in ("AWS::CloudWatch::Alarm", "AWS::CloudWatch::Dashboard", "AWS::SNS::Topic", "AWS::KMS::Key"):
        assert of_type(unmonitored, type_) == {}, type_
    assert "OperationsDashboardUrl" not in unmonitored["Outputs"]
    assert len(of_type(unmonitored, "AWS::Lambda::Function")) == len(routes.FUNCTIONS)


def test_dashboard_has_a_generated_name_and_every_alarm_on_top(template):
    """No DashboardName (stacks side by side in one account); the first row holds every alarm's state."""
    t = template.to_json()
    (dashboard,) = of_type(t, "AWS::CloudWatch::Dashboard").values()
    assert "DashboardName" not in dashboard["Properties"]
    alarm_widget = next(w for w in dashboard_body(t)["widgets"] if w["type"] == "alarm")
    assert alarm_widget["y"] == 0
    shown = [a["Fn::GetAtt"][0] for a in alarm_widget["properties"]["alarms"]]
    assert sorted(shown) == sorted(alarms(t))


def test_dashboard_graphs_every_figure_an_alarm_reads(template):
    """Each metric behind an alarm is on a graph, with the same dimensions."""
    t = template.to_json()
    graphed = set()
    for row in metric_rows(t):
        if isinstance(row[0], str):
            names = [v for v in row[2:] if not isinstance(v, dict) or "Ref" in v or "Fn::GetAtt" in v]
            dims = {names[i]: json.dumps(names[i + 1], sort_keys=True) for i in range(0, len(names) - 1, 2)}
            graphed.add((row[0], row[1], tuple(sorted(dims.items()))))
    for logical_id, alarm in alarms(t).items():
        for m in reads(alarm):
            dims = tuple(sorted((k, json.dumps(v, sort_keys=True)) for k, v in m["dimensions"].items()))
            assert (m["namespace"], m["name"], dims) in graphed, (logical_id, m)


def test_dashboard_url_and_topic_are_stack_outputs_with_stable_ids(template):
    """Outputs OperationsDashboardUrl (the console URL of the generated dashboard) and AlarmTopicArn."""
    t = template.to_json()
    url = json.dumps(t["Outputs"]["OperationsDashboardUrl"]["Value"])
    assert "console.aws.amazon.com/cloudwatch" in url and json.dumps(ref(t, "AWS::CloudWatch::Dashboard")) in url
    assert t["Outputs"]["AlarmTopicArn"]["Value"] == ref(t, "AWS::SNS::Topic")


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_api_stage_sends_detailed_per_method_metrics(stage, template, prod_template):
    """MetricsEnabled on every method of the stage ("/*", "*"), next to its throttling settings."""
    t = (template if stage == "dev" else prod_template).to_json()
    (stage_resource,) = of_type(t, "AWS::ApiGateway::Stage").values()
    (settings,) = [s for s in stage_resource["Properties"]["MethodSettings"] if s["ResourcePath"] == "/*"]
    assert settings["HttpMethod"] == "*" and settings["MetricsEnabled"] is True


def test_the_rank_counters_lag_alarm_reads_the_stream_iterator_age(template):
    """The rank-counter function's IteratorAge (ms, maximum) above a minute for 5 minutes: ranks lag the writes."""
    t = template.to_json()
    (lag,) = [a for logical_id, a in alarms(t).items() if "RankCounterLag" in logical_id]
    assert lag["MetricName"] == "IteratorAge" and lag["Statistic"] == "Maximum"
    assert lag["Threshold"] == 60_000 and (lag["DatapointsToAlarm"], lag["EvaluationPeriods"]) == (5, 5)


def test_the_live_push_lag_alarm_reads_the_broadcasters_stream_iterator_age(template):
    """The live-broadcaster function's IteratorAge (ms, maximum) above 30 s for 5 minutes: live tables are stale."""
    t = template.to_json()
    broadcaster = ref(t, "AWS::Lambda::Function", "LiveBroadcaster")
    (lag,) = alarms_on(t, "IteratorAge", FunctionName=broadcaster).values()
    assert lag["Statistic"] == "Maximum" and lag["Threshold"] == 30_000
    assert (lag["DatapointsToAlarm"], lag["EvaluationPeriods"]) == (5, 5)


def _event_api_alarms(t) -> dict[str, dict]:
    names = ("LivePublishErrors", "LiveDeliveryErrors", "LiveConnectionsRefused")
    return {logical_id: a for logical_id, a in alarms(t).items() if any(n in logical_id for n in names)}


def _metric_stats(alarm: dict) -> dict[str, dict]:
    """id -> MetricStat.Metric of an alarm on a math expression."""
    return {m["Id"]: m["MetricStat"]["Metric"] for m in alarm["Metrics"] if "MetricStat" in m}


def test_the_event_api_s_publish_errors_delivery_errors_and_refused_connections_are_alarmed(template):
    """AppSync Events' own metrics (namespace AWS/AppSync): the HTTP endpoint's 4XXError + 5XXError per EventAPIId
    (only the broadcaster publishes there), the real-time endpoint's PublishDataMessageServerError and the share of
    ConnectClientError per EventAPIId and ChannelNamespaceName (an expired API key refuses every client)."""
    t = template.to_json()
    api = {"Fn::GetAtt": [ref(t, "AWS::AppSync::Api")["Ref"], "ApiId"]}
    found = _event_api_alarms(t)
    by_name = {
        next(n for n in ("PublishErrors", "DeliveryErrors", "ConnectionsRefused") if n in k): a
        for k, a in found.items()
    }
    assert set(by_name) == {"PublishErrors", "DeliveryErrors", "ConnectionsRefused"} and len(found) == 3

    publish = _metric_stats(by_name["PublishErrors"])
    assert {m["MetricName"] for m in publish.values()} == {"4XXError", "5XXError"}
    for metric in publish.values():
        assert metric["Namespace"] == "AWS/AppSync" and metric["Dimensions"] == [{"Name": "EventAPIId", "Value": api}]
    assert by_name["PublishErrors"]["Threshold"] == 0

    delivery = by_name["DeliveryErrors"]
    assert delivery["Namespace"] == "AWS/AppSync" and delivery["MetricName"] == "PublishDataMessageServerError"
    assert {d["Name"]: d["Value"] for d in delivery["Dimensions"]} == {
        "EventAPIId": api,
        "ChannelNamespaceName": "leaderboard",
    }

    refused = by_name["ConnectionsRefused"]
    assert {m["MetricName"] for m in _metric_stats(refused).values()} == {"ConnectSuccess", "ConnectClientError"}
    assert refused["Threshold"] == 0.5 and (refused["DatapointsToAlarm"], refused["EvaluationPeriods"]) == (3, 3)


def test_the_event_api_s_connections_and_deliveries_are_graphed(template):
    t = template.to_json()
    graphed = {row[1] for row in metric_rows(t) if row[0] == "AWS/AppSync"}
    assert {"ActiveConnections", "ActiveSubscriptions", "PublishDataMessageSuccess", "ConnectServerError"} <= graphed
    assert not [row for row in metric_rows(t) if row[0] == "AWS/ApiGateway" and "ApiId" in row]  # no WebSocket API


def test_the_operations_pages_alarm_cost_counts_the_alarm_metrics_of_the_template(prod_template):
    """CloudWatch bills each metric an alarm reads: docs/OPERATIONS.md's cost table must count what the template holds
    (production's, the "full" level; dev's "essential" level is in tests/infra/test_idle_cost.py)."""
    t = prod_template.to_json()
    billed = sum(len(reads(a)) for a in alarms(t).values())
    page = (Path(__file__).resolve().parents[2] / "docs" / "OPERATIONS.md").read_text()
    (stated,) = re.findall(r"CloudWatch alarms: (\d+) alarm metrics at 0\.10", page)
    assert int(stated) == billed
