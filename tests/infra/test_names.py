"""Side by side: two leaderboards in one stack, and two stages in one account, share no physical name."""

from __future__ import annotations

from collections import Counter

import pytest

from stacks.app_builder import build_app, stack_name

# Properties that name a resource in the account and region (a literal there must be unique).
NAME_PROPERTIES = {
    "AWS::ApiGateway::RestApi": ("Name",),
    "AWS::ApiGateway::ApiKey": ("Name",),
    "AWS::ApiGateway::UsagePlan": ("UsagePlanName",),
    "AWS::CloudFront::ResponseHeadersPolicy": ("ResponseHeadersPolicyConfig", "Name"),
    "AWS::CloudWatch::Alarm": ("AlarmName",),
    "AWS::CloudWatch::Dashboard": ("DashboardName",),
    "AWS::DynamoDB::Table": ("TableName",),
    "AWS::EC2::LaunchTemplate": ("LaunchTemplateName",),
    "AWS::IAM::Role": ("RoleName",),
    "AWS::KMS::Alias": ("AliasName",),
    "AWS::Lambda::Function": ("FunctionName",),
    "AWS::Logs::LogGroup": ("LogGroupName",),
    "AWS::SecretsManager::Secret": ("Name",),
    "AWS::SNS::Topic": ("TopicName",),
    "AWS::WAFv2::WebACL": ("Name",),
}


def physical_names(template: dict) -> list[str]:
    names = []
    for resource in template["Resources"].values():
        value = resource.get("Properties", {})
        for key in NAME_PROPERTIES.get(resource["Type"], ("-",)):
            value = value.get(key) if isinstance(value, dict) else None
        if value is not None:
            names.append(value if isinstance(value, str) else repr(value))
    return names


def metric_keys(template: dict) -> list[str]:
    """What alarms and WAF metrics are keyed by: the API's name, the WAF metric names."""
    keys = []
    for resource in template["Resources"].values():
        props = resource.get("Properties", {})
        if resource["Type"] == "AWS::CloudWatch::Alarm":
            keys += [d["Value"] for d in props.get("Dimensions", []) if d["Name"] == "ApiName"]
        if resource["Type"] == "AWS::WAFv2::WebACL":
            keys += [props["VisibilityConfig"]["MetricName"]]
            keys += [r["VisibilityConfig"]["MetricName"] for r in props["Rules"]]
    return keys


def test_two_leaderboards_in_one_stack_share_no_name_nor_metric(users_app):
    """The user's app (conftest.py): Arcade and Racing in one stack, each with a WAF and a dashboard, synthesized with
    cdk-nag."""
    template = users_app.synth().get_stack_by_name("games").template
    apis = [r for r in template["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi"]
    assert len(apis) == 2
    instances = [r for r in template["Resources"].values() if r["Type"] == "AWS::EC2::Instance"]
    assert len(instances) == 2  # both dashboards: their launch templates and addresses are named too
    names = physical_names(template)
    assert len(names) >= 2, names
    assert not [n for n, count in Counter(names).items() if count > 1]
    keys = metric_keys(template)
    assert len(set(keys) & {apis[0]["Properties"]["Name"], apis[1]["Properties"]["Name"]}) == 2
    waf_metrics = [k for k in keys if k.endswith("-api")]
    assert len(waf_metrics) == len(set(waf_metrics)) == 2


def test_two_stages_in_one_account_share_no_name(dev_template_json, prod_template_json):
    names = physical_names(dev_template_json) + physical_names(prod_template_json)
    assert names
    assert not [n for n, count in Counter(names).items() if count > 1]


@pytest.fixture(scope="module")
def production_named_template() -> dict:
    """A stage whose name says production and whose settings are none: dev's defaults."""
    app = build_app("production-eu", context={"stages": {"production-eu": {}}}, nag=False)
    return app.synth().get_stack_by_name(stack_name("production-eu")).template


def test_a_third_stage_with_the_same_settings_shares_no_name_either(dev_template_json, production_named_template):
    """A second dev-like stage (say, a developer's own) differs from dev only by its stack name."""
    names = physical_names(dev_template_json) + physical_names(production_named_template)
    assert not [n for n, count in Counter(names).items() if count > 1]


def test_production_is_a_prop_not_a_stage_name(production_named_template):
    tables = [r for r in production_named_template["Resources"].values() if r["Type"] == "AWS::DynamoDB::Table"]
    assert tables and all(t["DeletionPolicy"] == "Delete" for t in tables)
    # Only the tables are read: a stage without the dashboard, the edge and alarms synthesizes in a fraction of the time
    lean = {"production": True, "dashboard": False, "edge": False, "monitoring": {"enabled": False}}
    app = build_app("dev", context={"stages": {"dev": lean}}, nag=False)
    prod = app.synth().get_stack_by_name(stack_name("dev")).template
    tables = [r for r in prod["Resources"].values() if r["Type"] == "AWS::DynamoDB::Table"]
    assert tables and all(
        t["DeletionPolicy"] == "RetainExceptOnCreate" and t["Properties"]["DeletionProtectionEnabled"] for t in tables
    )
