"""`make preflight` against moto: a prepared account passes; each missing prerequisite fails with its fix."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from cdk_leaderboard.props import LeaderboardProps, Monitoring

from ops.preflight import FAIL, NOTE, OK, WARN, Preflight, preflight
from tests.support.account import REGION, cloudfront_prefix_list_id, lambda_function, prepare_account

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def ready(session) -> tuple:
    """A prepared account and props that fit it (moto's CloudFront prefix list id is its own)."""
    prepare_account(session)
    return session, LeaderboardProps(stage="dev", cloudfront_prefix_list_id=cloudfront_prefix_list_id(session))


def results(session, props) -> dict:
    return {c.name: c for c in Preflight(session, props).run()}


def test_a_prepared_account_passes_every_check(ready):
    session, props = ready
    lines: list[str] = []
    assert preflight(session, props, out=lines.append) is True
    checks = results(session, props)
    assert set(checks) == {
        "credentials",
        "cdk bootstrap",
        "API Gateway logging role",
        "Powertools layer",
        "Lambda concurrency",
        "AMI parameter",
        "dashboard zone",
        "instance type",
        "CloudFront prefix list",
        "live API key",
        "alarm subscriber",
    }
    assert {c.status for c in checks.values()} == {OK}
    assert lines[-1] == "Ready to deploy."
    assert len(lines) == len(checks) + 2  # a heading, one line per check, the verdict


def test_missing_credentials_fail_with_the_fix(session, monkeypatch, tmp_path):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    import boto3

    (check,) = Preflight(boto3.Session(region_name=REGION), LeaderboardProps()).run()
    assert (check.name, check.status) == ("credentials", FAIL)
    assert "aws configure" in check.fix


def test_an_unbootstrapped_region_fails_with_the_bootstrap_command(ready):
    session, props = ready
    session.client("ssm").delete_parameter(Name="/cdk-bootstrap/hnb659fds/version")
    check = results(session, props)["cdk bootstrap"]
    assert check.status == FAIL
    assert check.fix == f"npx cdk bootstrap aws://123456789012/{REGION}"


def test_an_old_bootstrap_fails(ready):
    session, props = ready
    ssm = session.client("ssm")
    ssm.put_parameter(Name="/cdk-bootstrap/hnb659fds/version", Value="5", Type="String", Overwrite=True)
    check = results(session, props)["cdk bootstrap"]
    assert check.status == FAIL and "version 5" in check.detail and "cdk bootstrap" in check.fix


def test_a_claimed_logging_role_that_is_missing_fails(ready):
    session, props = ready
    check = results(session, replace(props, account_has_api_gateway_logging_role=True))["API Gateway logging role"]
    assert check.status == FAIL
    assert "account_has_api_gateway_logging_role: false" in check.fix


def test_a_claimed_logging_role_that_exists_passes(ready):
    session, props = ready
    api_gateway = {"Service": "apigateway.amazonaws.com"}
    trust = {"Statement": [{"Effect": "Allow", "Principal": api_gateway, "Action": "sts:AssumeRole"}]}
    role = session.client("iam").create_role(RoleName="apigw-logs", AssumeRolePolicyDocument=json.dumps(trust))["Role"]
    session.client("apigateway").update_account(
        patchOperations=[{"op": "replace", "path": "/cloudwatchRoleArn", "value": role["Arn"]}]
    )
    check = results(session, replace(props, account_has_api_gateway_logging_role=True))["API Gateway logging role"]
    assert check.status == OK and role["Arn"] in check.detail
    # Without the prop, the stack would replace it: said, but not a failure.
    check = results(session, props)["API Gateway logging role"]
    assert check.status == NOTE and "replace" in check.detail


def test_a_missing_powertools_parameter_fails_with_the_pin_fix(session):
    session.client("ssm").put_parameter(Name="/cdk-bootstrap/hnb659fds/version", Value="30", Type="String")
    props = LeaderboardProps(cloudfront_prefix_list_id=cloudfront_prefix_list_id(session))
    check = results(session, props)["Powertools layer"]
    assert check.status == FAIL
    assert "powertools_layer_arn" in check.fix


def test_a_pinned_powertools_layer_is_checked_instead(session):
    layer = session.client("lambda").publish_layer_version(
        LayerName="powertools", Content={"ZipFile": b"PK\x05\x06" + b"\x00" * 18}, CompatibleArchitectures=["arm64"]
    )
    props = LeaderboardProps(powertools_layer_arn=layer["LayerVersionArn"])
    assert results(session, props)["Powertools layer"].status == OK
    props = LeaderboardProps(powertools_layer_arn=layer["LayerVersionArn"].replace(":1", ":7"))
    check = results(session, props)["Powertools layer"]
    assert check.status == FAIL and "cannot be read" in check.detail


def test_a_region_without_the_ami_parameter_fails(monkeypatch):
    """mx-central-1 has no Amazon Linux parameters in moto's region data."""
    import boto3
    from moto import mock_aws

    with mock_aws():
        session = boto3.Session(region_name="mx-central-1")
        check = Preflight(session, LeaderboardProps()).ami_parameter()
    assert check.status == FAIL
    assert "al2023-ami-kernel-default-arm64" in check.detail and check.fix


def test_an_instance_type_not_offered_in_the_subnet_zone_fails_with_alternatives(ready):
    """The subnet's zone is an AZ ID (regions.py), the same zone in every account: moto offers no a1.medium in
    use1-az1, us-east-1's default, and offers it in use1-az2."""
    session, props = ready
    props = replace(props, instance_type="a1.medium")
    check = results(session, props)["instance type"]
    assert check.status == FAIL
    assert check.detail == "a1.medium is not offered in use1-az1, the dashboard subnet's zone"
    assert "(t4g.nano, t4g.micro, t3.nano" in check.fix
    assert results(session, replace(props, availability_zone_id="use1-az2"))["instance type"].status == OK


def test_the_dashboard_zone_is_one_with_vpc_origins_by_its_id(ready):
    """us-east-1's default zone is use1-az1 (moto names it us-east-1b in this account), not Fn::GetAZs' first."""
    session, props = ready
    check = results(session, props)["dashboard zone"]
    assert (check.status, check.detail) == (OK, "use1-az1 (us-east-1b in this account) has VPC origins")


def test_a_zone_id_the_account_does_not_have_fails_with_the_ids_it_has(ready):
    """usw1-az2 is AWS's exception in us-west-1 and new accounts do not have it either; a zone id of another region
    is no zone of this one."""
    session, props = ready
    check = results(session, replace(props, availability_zone_id="use2-az1"))["dashboard zone"]
    assert check.status == FAIL
    assert check.detail == "use2-az1 is not an available zone of this account in us-east-1"
    # Every zone of the region but use1-az3, which has no VPC origins.
    expected = "use1-az1, use1-az2, use1-az4, use1-az5, use1-az6"
    assert check.fix == f"set availability_zone_id for this stage in cdk.json to one of {expected}"


def test_a_region_without_vpc_origins_fails_the_dashboard_zone(monkeypatch):
    """ap-southeast-6 (New Zealand) has no CloudFront VPC origins in AWS's list."""
    import boto3
    from moto import mock_aws

    with mock_aws():
        check = Preflight(boto3.Session(region_name="ap-southeast-6"), LeaderboardProps()).dashboard_zone()
    assert check.status == FAIL
    assert "no VPC origins" in check.detail and "dashboard: false" in check.fix


def test_a_region_outside_the_prefix_list_table_fails_with_the_accounts_id(monkeypatch):
    """ca-west-1 has VPC origins but no entry in the construct's prefix-list table: the check names the id the
    account has, which is what cloudfront_prefix_list_id must say."""
    import boto3
    from moto import mock_aws

    with mock_aws():
        session = boto3.Session(region_name="ca-west-1")
        actual = cloudfront_prefix_list_id(session)
        preflight_ = Preflight(session, LeaderboardProps())
        check = preflight_.cloudfront_prefix_list()
        zone = preflight_.dashboard_zone()
    assert check.status == FAIL
    assert check.detail.startswith("the region table has no entry for ca-west-1")
    assert check.fix == f"set cloudfront_prefix_list_id: {actual} for this stage in cdk.json"
    assert (zone.status, zone.detail) == (OK, "caw1-az1 (ca-west-1a in this account) has VPC origins")


def test_an_existing_vpc_is_noted_not_checked(ready):
    from aws_cdk import App, Stack
    from aws_cdk import aws_ec2 as ec2

    session, props = ready
    vpc = ec2.Vpc.from_vpc_attributes(
        Stack(App(), "s"), "Vpc", vpc_id="vpc-1", availability_zones=["us-east-1a"], public_subnet_ids=["subnet-1"]
    )
    check = Preflight(session, replace(props, existing_vpc=vpc)).dashboard_zone()
    assert check.status == NOTE and "existing_vpc" in check.detail


RESERVING = {"score-submit": 20, "player-stats": 10}  # opted in: by default nothing is reserved


def test_the_defaults_deploy_on_a_new_accounts_lambda_quota(ready, monkeypatch):
    session, props = ready
    monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", "10")  # new accounts can start this low
    assert props.reserved_concurrency == {}
    assert results(session, props)["Lambda concurrency"].status == OK


def test_a_low_lambda_concurrency_quota_fails_with_the_quota_and_prop_fixes(ready, monkeypatch):
    session, props = ready
    props = replace(props, reserved_concurrency=RESERVING)
    monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", "10")
    check = results(session, props)["Lambda concurrency"]
    assert check.status == FAIL
    assert "L-B99A9384" in check.fix and "reserved_concurrency" in check.fix
    assert results(session, replace(props, reserved_concurrency={}))["Lambda concurrency"].status == OK


def test_concurrency_counts_this_stages_own_reservations_on_a_redeploy(ready, monkeypatch):
    """The deployed stage's reservations are replaced by the new ones, so they count as available."""
    session, props = ready
    props = replace(props, reserved_concurrency=RESERVING)
    wanted = sum(props.reserved_concurrency.values())
    lambda_function(session, "leaderboard-dev-LeaderboardApiScoreSubmit-AbCdEf", reserved=wanted)
    monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", str(100 + wanted))  # exactly enough for this stage
    assert results(session, props)["Lambda concurrency"].status == OK
    monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", "1000")
    lambda_function(session, "someone-else", reserved=1)
    monkeypatch.setenv("MOTO_LAMBDA_CONCURRENCY_QUOTA", str(100 + wanted))
    assert results(session, props)["Lambda concurrency"].status == FAIL


def test_a_wrong_cloudfront_prefix_list_fails_with_the_right_id(ready):
    """moto's prefix list id is not us-east-1's real one: the region table's entry is caught, with the fix."""
    session, props = ready
    actual = cloudfront_prefix_list_id(session)
    check = results(session, replace(props, cloudfront_prefix_list_id=None))["CloudFront prefix list"]
    assert check.status == FAIL
    assert "pl-3b927c52" in check.detail
    assert check.fix == f"set cloudfront_prefix_list_id: {actual} for this stage in cdk.json"


def test_a_stage_without_dashboard_skips_the_instance_checks(ready):
    session, props = ready
    checks = results(session, replace(props, dashboard=False))
    assert not {"AMI parameter", "instance type", "CloudFront prefix list"} & set(checks)


def test_cli_exit_status_follows_the_checks(ready, capsys):
    from ops.__main__ import main

    session, _ = ready
    assert main(["preflight", "--stage", "dev"], session=session) == 1  # cdk.json's dev uses the real prefix list
    out = capsys.readouterr().out
    assert "FAIL CloudFront prefix list" in out and "-> fix: set cloudfront_prefix_list_id" in out


def deployed_alarm_topic(session, stage: str = "prod") -> str:
    """A deployed stage as far as its alarms go: the alarm topic, named by the stack's AlarmTopicArn output."""
    topic = session.client("sns").create_topic(Name="alarms")["TopicArn"]
    template = {
        "Resources": {
            "Marker": {
                "Type": "AWS::SSM::Parameter",
                "Properties": {"Name": f"/leaderboard-{stage}/marker", "Type": "String", "Value": "x"},
            }
        },
        "Outputs": {"AlarmTopicArn": {"Value": topic}},
    }
    session.client("cloudformation").create_stack(StackName=f"leaderboard-{stage}", TemplateBody=json.dumps(template))
    return topic


def test_a_production_stage_without_an_alarm_subscriber_is_warned_with_the_fix(ready):
    """Warned, not failed: the deploy goes ahead, and the line says how alarms would reach someone."""
    session, props = ready
    prod = replace(props, stage="prod", production=True)
    lines: list[str] = []
    assert preflight(session, prod, out=lines.append) is True  # a warning blocks nothing
    check = results(session, prod)["alarm subscriber"]
    assert check.status == WARN and "no alarm subscriber" in check.detail
    assert '"monitoring": {"alarm_email": "you@example.com"}' in check.fix and "aws sns subscribe" in check.fix
    (line,) = [line for line in lines if "alarm subscriber" in line]
    assert line.startswith("WARN alarm subscriber: ") and " -> fix: set " in line
    assert lines[-1] == "Ready to deploy."


def test_a_production_stage_with_an_alarm_email_or_a_confirmed_subscription_passes(ready):
    session, props = ready
    prod = replace(props, stage="prod", production=True)
    with_email = replace(prod, monitoring=Monitoring(alarm_email="ops@example.com"))
    check = results(session, with_email)["alarm subscriber"]
    assert check.status == OK and "ops@example.com" in check.detail
    # Deployed without one, then a subscription made outside the stack (e.g. a paging service's queue).
    topic = deployed_alarm_topic(session)
    assert results(session, prod)["alarm subscriber"].status == WARN  # the topic exists, nobody subscribed
    sqs = session.client("sqs")
    queue = sqs.get_queue_attributes(QueueUrl=sqs.create_queue(QueueName="pager")["QueueUrl"], AttributeNames=["All"])
    session.client("sns").subscribe(TopicArn=topic, Protocol="sqs", Endpoint=queue["Attributes"]["QueueArn"])
    check = results(session, prod)["alarm subscriber"]
    assert check.status == OK and "1 confirmed subscription" in check.detail


def test_a_production_stage_with_monitoring_off_is_warned(ready):
    session, props = ready
    prod = replace(props, stage="prod", production=True, monitoring=Monitoring(enabled=False))
    check = results(session, prod)["alarm subscriber"]
    assert check.status == WARN and "monitoring is off" in check.detail and '"enabled": true' in check.fix
    assert results(session, replace(prod, production=False))["alarm subscriber"].status == OK


def test_the_cli_warns_about_prod_in_cdk_json(ready, capsys):
    """cdk.json's prod stage sets no alarm subscriber: `make preflight STAGE=prod` says so."""
    from ops.__main__ import main

    session, _ = ready
    main(["preflight", "--stage", "prod"], session=session)
    assert "WARN alarm subscriber: a production stage with no alarm subscriber" in capsys.readouterr().out
