"""Side by side: two leaderboards in one stack, and two stages in one account, share no physical name."""

from __future__ import annotations

from collections import Counter

import aws_cdk as cdk
from aws_cdk import Validations
from cdk_leaderboard import Board, Leaderboard, Waf
from cdk_nag import AwsSolutionsChecks

from stacks.app_builder import build_app, cdk_json_context, stack_name

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


def two_in_one_stack() -> dict:
    app = cdk.App(context=cdk_json_context())
    stack = cdk.Stack(app, "games", synthesizer=cdk.DefaultStackSynthesizer(qualifier="games01"))
    Leaderboard(stack, "Arcade", waf=Waf(requests_per_5_minutes_per_ip=1000))
    Leaderboard(
        stack,
        "Racing",
        boards=[Board(board_id="lap", order="asc")],
        account_has_api_gateway_logging_role=True,  # the account-wide setting is the first one's
        waf=Waf(requests_per_5_minutes_per_ip=1000),
    )
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app.synth().get_stack_by_name("games").template  # raises on an unacknowledged cdk-nag finding


def test_two_leaderboards_in_one_stack_share_no_name_nor_metric():
    template = two_in_one_stack()
    apis = [r for r in template["Resources"].values() if r["Type"] == "AWS::ApiGateway::RestApi"]
    assert len(apis) == 2
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


def test_a_third_stage_with_the_same_settings_shares_no_name_either(dev_template_json):
    """A second dev-like stage (say, a developer's own) differs from dev only by its stack name."""
    app = build_app("alice", context={"stages": {"alice": {}}}, nag=False)
    alice = app.synth().get_stack_by_name(stack_name("alice")).template
    names = physical_names(dev_template_json) + physical_names(alice)
    assert not [n for n, count in Counter(names).items() if count > 1]


def test_production_is_a_prop_not_a_stage_name():
    app = build_app("production-eu", context={"stages": {"production-eu": {}, "dev": {"production": True}}}, nag=False)
    not_prod = app.synth().get_stack_by_name(stack_name("production-eu")).template
    tables = [r for r in not_prod["Resources"].values() if r["Type"] == "AWS::DynamoDB::Table"]
    assert all(t["DeletionPolicy"] == "Delete" for t in tables)
    app = build_app("dev", context={"stages": {"dev": {"production": True}}}, nag=False)
    prod = app.synth().get_stack_by_name(stack_name("dev")).template
    tables = [r for r in prod["Resources"].values() if r["Type"] == "AWS::DynamoDB::Table"]
    assert all(
        t["DeletionPolicy"] == "RetainExceptOnCreate" and t["Properties"]["DeletionProtectionEnabled"] for t in tables
    )
