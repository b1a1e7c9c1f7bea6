"""The outside review's template findings, each closed and held by a test on the synthesized template."""

from __future__ import annotations

import json

import pytest

from stacks.app_builder import build_app, stack_name
from tests.support.cloudfront import dashboard_only

CERTIFICATE = "arn:aws:acm:us-east-1:111111111111:certificate/12345678-1234-1234-1234-123456789012"


def of_type(template: dict, kind: str) -> dict:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def retained(template: dict) -> dict:
    return {k: r for k, r in template["Resources"].items() if r.get("DeletionPolicy", "Delete") != "Delete"}


def test_prod_retains_except_on_create(prod_template_json):
    """A first create that rolls back must not orphan what it made (names taken, the next try fails):
    every retained resource is RetainExceptOnCreate, and kept on replacement."""
    kept = retained(prod_template_json)
    kinds = {r["Type"] for r in kept.values()}
    assert {"AWS::DynamoDB::Table", "AWS::Logs::LogGroup", "AWS::SecretsManager::Secret", "AWS::IAM::Role"} <= kinds
    assert {r["DeletionPolicy"] for r in kept.values()} == {"RetainExceptOnCreate"}
    assert {r.get("UpdateReplacePolicy") for r in kept.values()} == {"Retain"}


def test_dev_retains_only_the_account_wide_logging_role_except_on_create(dev_template_json):
    kept = retained(dev_template_json)
    assert {r["Type"] for r in kept.values()} == {"AWS::IAM::Role", "AWS::ApiGateway::Account"}
    assert {r["DeletionPolicy"] for r in kept.values()} == {"RetainExceptOnCreate"}


def test_an_explicit_retain_prop_is_retain_except_on_create():
    # Only the tables are read: a stage without the dashboard, the edge and alarms synthesizes in a fraction of the time
    lean = {"dashboard": False, "edge": False, "monitoring": {"enabled": False}}
    app = build_app("keep", context={"stages": {"keep": {**lean, "removal_policy": "retain"}}}, nag=False)
    template = app.synth().get_stack_by_name(stack_name("keep")).template
    tables = of_type(template, "AWS::DynamoDB::Table").values()
    assert tables and {t["DeletionPolicy"] for t in tables} == {"RetainExceptOnCreate"}


def test_the_response_headers_policy_name_holds_the_region(dev_template_json):
    """CloudFront names are account-wide: the same stage deployed in a second region must not clash."""
    (policy,) = of_type(dev_template_json, "AWS::CloudFront::ResponseHeadersPolicy").values()
    name = policy["Properties"]["ResponseHeadersPolicyConfig"]["Name"]
    assert {"Ref": "AWS::Region"} in name["Fn::Join"][1]


def test_no_explicit_physical_name_of_an_account_wide_resource_lacks_the_region(dev_template_json):
    """Names of global resources (CloudFront policies, IAM) given explicitly carry the region."""
    global_kinds = {
        "AWS::CloudFront::ResponseHeadersPolicy": ("ResponseHeadersPolicyConfig", "Name"),
        "AWS::CloudFront::CachePolicy": ("CachePolicyConfig", "Name"),
        "AWS::CloudFront::OriginRequestPolicy": ("OriginRequestPolicyConfig", "Name"),
        "AWS::CloudFront::VpcOrigin": ("VpcOriginEndpointConfig", "Name"),
        "AWS::IAM::Role": ("RoleName",),
        "AWS::IAM::ManagedPolicy": ("ManagedPolicyName",),
    }
    for kind, path in global_kinds.items():
        for resource in of_type(dev_template_json, kind).values():
            value = resource["Properties"]
            for key in path:
                value = value.get(key) if isinstance(value, dict) else None
            if value is not None:
                assert "AWS::Region" in json.dumps(value), (kind, value)


@pytest.fixture(scope="module")
def custom_domain_template() -> dict:
    stage = {"production": True, "domain_name": "scores.example.com", "certificate_arn": CERTIFICATE}
    app = build_app("domain", context={"stages": {"domain": stage}})
    return app.synth().get_stack_by_name(stack_name("domain")).template


def test_a_domain_of_ones_own_gets_its_certificate_and_tls_1_2(custom_domain_template, dev_template_json):
    """domain_name + certificate_arn: the distribution answers for the name with the certificate, TLS 1.2 at least;
    in prod the API's CORS origin is the domain (a literal: no cycle with the distribution, built after the API).
    Nginx's same-origin check needs no setting: the distribution forwards the viewer's Host (test_access_control).
    Without them, CloudFront's default."""
    (distribution,) = dashboard_only(of_type(custom_domain_template, "AWS::CloudFront::Distribution")).values()
    config = distribution["Properties"]["DistributionConfig"]
    assert config["Aliases"] == ["scores.example.com"]
    assert config["ViewerCertificate"] == {
        "AcmCertificateArn": CERTIFICATE,
        "MinimumProtocolVersion": "TLSv1.2_2021",
        "SslSupportMethod": "sni-only",
    }
    functions = of_type(custom_domain_template, "AWS::Lambda::Function").values()
    cors = {f["Properties"]["Environment"]["Variables"].get("CORS_ALLOWED_ORIGINS") for f in functions} - {None}
    assert cors == {"https://scores.example.com"}
    (instance,) = of_type(custom_domain_template, "AWS::EC2::Instance").values()
    assert "DASHBOARD_ORIGIN" not in json.dumps(instance["Properties"]["UserData"])
    (default,) = dashboard_only(of_type(dev_template_json, "AWS::CloudFront::Distribution")).values()
    assert "Aliases" not in default["Properties"]["DistributionConfig"]


@pytest.mark.parametrize(
    "stage, message",
    [
        ({"domain_name": "scores.example.com"}, "go together"),
        ({"certificate_arn": CERTIFICATE}, "go together"),
        ({"domain_name": "scores.example.com", "certificate_arn": CERTIFICATE.replace("us-east-1", "eu-west-1")},
         "us-east-1"),
        ({"domain_name": "not a name", "certificate_arn": CERTIFICATE}, "not a domain name"),
    ],
)  # fmt: skip
def test_domain_props_are_checked_at_synth(stage, message):
    with pytest.raises(ValueError, match=message):
        build_app("domain", context={"stages": {"domain": stage}}, nag=False)


def _watched_queues(template: dict) -> list[str]:
    return sorted(
        a["Properties"]["Dimensions"][0]["Value"]["Fn::GetAtt"][0]
        for a in of_type(template, "AWS::CloudWatch::Alarm").values()
        if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"
    )


def test_every_dead_letter_queue_has_an_alarm_in_production_and_the_counters_everywhere(
    dev_template_json, prod_template_json
):
    """In production an alarm fires on each queue's first record. Dev (its idle budget) keeps the rank counters'
    alone: a live batch given up on is repaired by the board period's next publish."""
    assert _watched_queues(prod_template_json) == sorted(of_type(prod_template_json, "AWS::SQS::Queue"))
    (counters,) = [q for q in of_type(dev_template_json, "AWS::SQS::Queue") if "RankCounter" in q]
    assert _watched_queues(dev_template_json) == [counters]


def test_each_stream_consumer_gives_up_into_an_encrypted_dead_letter_queue_with_an_alarm(dev_template_json):
    """A batch a consumer gives up on is recorded (not dropped): an SQS queue, SQS-managed encryption, TLS only;
    its alarm fires on its first record (which queues have one: above); the shared role may only send to these
    queues."""
    t = dev_template_json
    queues = of_type(t, "AWS::SQS::Queue")
    mappings = of_type(t, "AWS::Lambda::EventSourceMapping").values()
    destinations = [m["Properties"]["DestinationConfig"]["OnFailure"]["Destination"]["Fn::GetAtt"] for m in mappings]
    assert len(destinations) == 2 and sorted(d[0] for d in destinations) == sorted(queues)
    assert all(q["Properties"]["SqsManagedSseEnabled"] is True for q in queues.values())
    tls_only = [p["Properties"] for p in of_type(t, "AWS::SQS::QueuePolicy").values()]
    assert sorted(p["Queues"][0]["Ref"] for p in tls_only) == sorted(queues)
    assert all(p["PolicyDocument"]["Statement"][0]["Effect"] == "Deny" for p in tls_only)
    watched = [
        a["Properties"]
        for a in of_type(t, "AWS::CloudWatch::Alarm").values()
        if a["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"
    ]
    assert set(_watched_queues(t)) <= set(queues)
    assert all(a["Threshold"] == 0 and a["ComparisonOperator"] == "GreaterThanThreshold" for a in watched)
    assert all(a["AlarmActions"] for a in watched)
    # The role's inline policy, and its scoped policy (the live statements: the Event API names a function)
    documents = [
        policy["PolicyDocument"]
        for role in of_type(t, "AWS::IAM::Role").values()
        for policy in role["Properties"].get("Policies", [])
    ] + [p["Properties"]["PolicyDocument"] for p in of_type(t, "AWS::IAM::Policy").values()]
    sqs_grants = [s for d in documents for s in d["Statement"] if "sqs:" in json.dumps(s["Action"])]
    assert sorted((s["Action"], s["Resource"]["Fn::GetAtt"][0]) for s in sqs_grants) == [
        ("sqs:SendMessage", q) for q in sorted(queues)
    ]
