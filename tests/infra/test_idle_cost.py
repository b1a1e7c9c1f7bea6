"""What each stage costs a month at idle, by us-east-1 list prices, computed from its synthesized template.

docs/OPERATIONS.md's cost table states these figures: a change that adds an alarm metric, a secret or a dashboard
metric changes a figure here first, and that page with it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.infra.test_monitoring import reads

HOURS_A_MONTH = 730
INSTANCE_HOURLY = {"t4g.nano": 0.0042, "t4g.micro": 0.0084, "t3.nano": 0.0052}
PUBLIC_IPV4_HOURLY = 0.005
GP3_GB_MONTH = 0.08
SECRET_MONTH = 0.40
ALARM_METRIC_MONTH = 0.10
DASHBOARD_MONTH = 3.00  # list price; an account's first 3 dashboards of up to 50 metrics each are free
KMS_KEY_MONTH = 1.00
FREE_DASHBOARD_METRICS = 50
WEB_ACL_MONTH = 5.00
WAF_RULE_MONTH = 1.00  # plus 0.60 per million requests inspected: traffic, not idle

# The figures docs/OPERATIONS.md's table states (stage -> item -> USD/month), rounded to the cent.
STATED = {
    "dev": {"instance": 3.07, "ipv4": 3.65, "ebs": 0.64, "secrets": 2.00, "alarms": 0.60, "dashboard": 0.00,
            "kms": 0.00, "waf": 0.00, "total": 9.96},
    "prod": {"instance": 6.13, "ipv4": 3.65, "ebs": 0.64, "secrets": 3.20, "alarms": 5.20, "dashboard": 3.00,
             "kms": 1.00, "waf": 13.00, "total": 35.82},
}  # fmt: skip


def of_type(template: dict, kind: str) -> list[dict]:
    return [r["Properties"] for r in template["Resources"].values() if r["Type"] == kind]


def _count_metric_rows(body) -> int:
    """Metric rows in a dashboard body (a Fn::Join of strings and tokens): each row is one billed metric."""
    if isinstance(body, dict) and "Fn::Join" in body:
        text = "".join(part if isinstance(part, str) else "TOKEN" for part in body["Fn::Join"][1])
    else:
        text = body
    widgets = json.loads(text)["widgets"]
    return sum(len(w["properties"].get("metrics", [])) for w in widgets)


def public_ipv4_addresses(template: dict) -> int:
    """Elastic IPs and instances given a public address at launch: AWS bills every public IPv4 address alike."""
    launched = [
        i for i in of_type(template, "AWS::EC2::Instance")
        if any(n.get("AssociatePublicIpAddress") for n in i.get("NetworkInterfaces", []))
    ]  # fmt: skip
    return len(of_type(template, "AWS::EC2::EIP")) + len(launched)


def idle_cost(template: dict) -> dict:
    (instance,) = of_type(template, "AWS::EC2::Instance")
    instance_type = instance["InstanceType"]
    ebs_gb = sum(d["Ebs"]["VolumeSize"] for d in instance["BlockDeviceMappings"])
    alarm_metrics = sum(len(reads(a)) for a in of_type(template, "AWS::CloudWatch::Alarm"))
    dashboards = of_type(template, "AWS::CloudWatch::Dashboard")
    cost = {
        "instance": INSTANCE_HOURLY[instance_type] * HOURS_A_MONTH,
        "ipv4": public_ipv4_addresses(template) * PUBLIC_IPV4_HOURLY * HOURS_A_MONTH,
        "ebs": ebs_gb * GP3_GB_MONTH,
        "secrets": len(of_type(template, "AWS::SecretsManager::Secret")) * SECRET_MONTH,
        "alarms": alarm_metrics * ALARM_METRIC_MONTH,
        "dashboard": len(dashboards) * DASHBOARD_MONTH,
        "kms": len(of_type(template, "AWS::KMS::Key")) * KMS_KEY_MONTH,
        "waf": sum(
            WEB_ACL_MONTH + WAF_RULE_MONTH * len(acl["Rules"]) for acl in of_type(template, "AWS::WAFv2::WebACL")
        ),
    }
    cost = {k: round(v, 2) for k, v in cost.items()}
    cost["total"] = round(sum(cost.values()), 2)
    return cost


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_the_idle_cost_of_each_stage_is_what_the_operations_page_states(stage, dev_template_json, prod_template_json):
    template = {"dev": dev_template_json, "prod": prod_template_json}[stage]
    assert idle_cost(template) == STATED[stage]


def test_dev_idles_at_10_usd_a_month_or_less(dev_template_json):
    """The issue's budget: dev by list prices, whatever the account's free allowances."""
    assert idle_cost(dev_template_json)["total"] <= 10.00


def test_the_essential_level_keeps_the_alarms_that_page_on_what_players_feel(dev_template_json):
    """dev (the "essential" level): API 5xx rate and p99 latency, rank counters behind, a batch given up on by the
    rank counter, the live key not renewed (a lapsed key blocks deploys; the live broadcaster's lost batches heal
    with the next change), the instance down; all notify the topic, which is TLS only; no dashboard, no key."""
    alarms = of_type(dev_template_json, "AWS::CloudWatch::Alarm")
    read = sorted((m["namespace"], m["name"]) for a in alarms for m in reads(a))
    assert read == sorted(
        [
            ("AWS/ApiGateway", "5XXError"),
            ("AWS/ApiGateway", "Latency"),
            ("AWS/Lambda", "IteratorAge"),
            ("AWS/SQS", "ApproximateNumberOfMessagesVisible"),
            ("Leaderboard", "LiveKeyDaysLeft"),
            ("AWS/EC2", "StatusCheckFailed"),
        ]
    )
    assert all(a["AlarmActions"] and a["OKActions"] for a in alarms)
    (topic,) = of_type(dev_template_json, "AWS::SNS::Topic")
    assert "KmsMasterKeyId" not in topic
    (policy,) = of_type(dev_template_json, "AWS::SNS::TopicPolicy")
    assert any(
        s.get("Condition", {}).get("Bool") == {"aws:SecureTransport": "false"}
        for s in policy["PolicyDocument"]["Statement"]
    )
    assert not of_type(dev_template_json, "AWS::CloudWatch::Dashboard")
    assert (
        "OperationsDashboardUrl" not in dev_template_json["Outputs"] and "AlarmTopicArn" in dev_template_json["Outputs"]
    )


def test_the_operations_dashboard_of_prod_is_billed(prod_template_json):
    """Over 50 metrics a dashboard is billed even within an account's first three (3.00 a month)."""
    (dashboard,) = of_type(prod_template_json, "AWS::CloudWatch::Dashboard")
    assert _count_metric_rows(dashboard["DashboardBody"]) > FREE_DASHBOARD_METRICS


def test_the_operations_pages_cost_table_states_these_totals():
    """docs/OPERATIONS.md's cost table has a dev and a prod column; its total row states the figures this file
    computes (the alarm row's count is checked against the template in test_monitoring.py)."""
    page = (Path(__file__).resolve().parents[2] / "docs" / "OPERATIONS.md").read_text()
    (row,) = [line for line in page.splitlines() if line.startswith("| **total**")]
    assert f"**≈ {STATED['dev']['total']:.2f}**" in row and f"**≈ {STATED['prod']['total']:.2f}**" in row


def test_live_updates_cost_nothing_at_idle(prod_template_json):
    """AppSync Events bills per operation (publish, delivery) and per connection-minute: the Event API, its
    namespace and key cost nothing at idle. A GraphQL-style API cache or a custom domain would bill by the hour
    (not in the table above), so the template holds neither."""
    kinds = sorted(r["Type"] for r in prod_template_json["Resources"].values() if r["Type"].startswith("AWS::AppSync"))
    assert kinds == ["AWS::AppSync::Api", "AWS::AppSync::ApiKey", "AWS::AppSync::ChannelNamespace"]
