"""The construct's API as a user meets it: keyword settings with defaults, typed boards, escape hatches, attributes,
grants and metrics."""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest
from aws_cdk import Validations
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk.assertions import Template
from cdk_leaderboard import Board, Leaderboard, LeaderboardProps, Monitoring
from cdk_nag import AwsSolutionsChecks

from stacks.app_builder import cdk_json_context
from tests.support.cloudfront import dashboard_only


def _stack(name: str) -> tuple[cdk.App, cdk.Stack]:
    app = cdk.App(context=cdk_json_context())
    return app, cdk.Stack(app, name)


@pytest.fixture(scope="module")
def bare():
    """A bare Leaderboard, a role granted everything, and cdk-nag on the whole app."""
    app, stack = _stack("bare")
    board = Leaderboard(stack, "Leaderboard")
    reader = iam.Role(stack, "Reader", assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"))
    board.grant_read_scores(reader)
    board.grant_read_snapshots(reader)
    board.grant_stream_read(reader)
    Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    template = app.synth().get_stack_by_name("bare").template  # raises on an unacknowledged cdk-nag finding
    return board, reader, template


@pytest.fixture(scope="module")
def customized():
    app, stack = _stack("customized")
    vpc = ec2.Vpc(stack, "TeamVpc", max_azs=1, nat_gateways=0, restrict_default_security_group=False)
    board = Leaderboard(
        stack,
        "Leaderboard",
        existing_vpc=vpc,
        table_overrides={"TableClass": "STANDARD_INFREQUENT_ACCESS"},
        function_overrides={"Timeout": 9},
    )
    return board, vpc, Template.from_stack(stack)


def test_a_bare_leaderboard_is_complete_and_nag_clean(bare):
    board, _, template = bare
    types = {r["Type"] for r in template["Resources"].values()}
    assert {"AWS::ApiGateway::RestApi", "AWS::DynamoDB::Table", "AWS::Lambda::Function", "AWS::EC2::Instance"} <= types
    assert board.props == LeaderboardProps()


def test_attributes_are_the_resources(bare):
    board, _, _ = bare
    assert board.scores_table is board.tables.scores and board.snapshots_table is board.tables.snapshots
    assert "score-submit" in board.functions and board.functions["score-submit"].role is not None
    assert board.api is board.api_construct.rest_api
    assert board.vpc is board.dashboard.vpc and board.alarm_topic is board.monitoring.alarm_topic
    assert board.game_key_secret is board.api_construct.game_key_secret


def test_grants_are_exact(bare):
    _, reader, template = bare
    reader_id = next(
        k for k, r in template["Resources"].items() if k.startswith("Reader") and r["Type"] == "AWS::IAM::Role"
    )
    (policy,) = [
        r["Properties"]["PolicyDocument"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::IAM::Policy" and {"Ref": reader_id} in r["Properties"]["Roles"]
    ]
    text = json.dumps(policy)
    assert "index/*" not in text and '"*"' not in text
    assert "/index/leaderboard-rank-index" in text
    actions = {a for s in policy["Statement"] for a in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}
    assert actions == {
        "dynamodb:BatchGetItem",
        "dynamodb:GetItem",
        "dynamodb:Query",
        "dynamodb:DescribeStream",
        "dynamodb:GetRecords",
        "dynamodb:GetShardIterator",
        "dynamodb:ListStreams",
    }


def test_metrics_name_the_right_dimensions(bare):
    board, _, _ = bare
    stack = cdk.Stack.of(board)
    errors = board.metric_api_server_errors()
    assert errors.metric_name == "5XXError" and errors.statistic == "Average"
    assert stack.resolve(errors.dimensions)["ApiName"] == stack.resolve(board.api.rest_api_name)
    assert board.metric_api_latency().statistic == "p99"
    assert board.metric_api_requests().metric_name == "Count"
    function = board.metric_function_errors("score-submit")
    assert function.metric_name == "Errors"
    assert stack.resolve(function.dimensions)["FunctionName"] == stack.resolve(
        board.functions["score-submit"].function_name
    )
    assert board.metric_function_duration("rank-counter").metric_name == "Duration"
    with pytest.raises(KeyError, match="score-submit"):
        board.metric_function_throttles("no-such-function")


def _instance_subnet(template: Template) -> tuple[str, bool]:
    """(the instance's subnet's logical id, whether it gets a public IPv4 address)."""
    (instance,) = template.find_resources("AWS::EC2::Instance").values()
    props = instance["Properties"]
    if "NetworkInterfaces" in props:
        (interface,) = props["NetworkInterfaces"]
        return interface["SubnetId"]["Ref"], interface.get("AssociatePublicIpAddress") is True
    return props["SubnetId"]["Ref"], False


def test_an_existing_vpc_hosts_the_dashboard(customized):
    """A team's VPC without private subnets that have egress: the instance goes into its public subnet with a
    public address of its own (its way out without a NAT gateway, even where the subnet assigns none)."""
    board, vpc, template = customized
    template.resource_count_is("AWS::EC2::VPC", 1)  # the team's own, no second one
    template.resource_count_is("AWS::EC2::FlowLog", 0)  # the VPC's owner decides on its flow logs
    assert board.vpc is vpc
    subnet, public_ip = _instance_subnet(template)
    assert subnet.startswith("TeamVpcPublic")
    assert public_ip
    template.resource_count_is("AWS::CloudFront::VpcOrigin", 1)


def test_a_vpc_with_private_subnets_gets_a_fully_private_dashboard():
    """Private subnets with egress (the team's NAT): the instance goes there, with no public address at all, as
    AWS documents VPC origins; CloudFront still reaches it through its VPC origin, and only there."""
    _, stack = _stack("private")
    vpc = ec2.Vpc(stack, "TeamVpc", max_azs=1, nat_gateways=1, restrict_default_security_group=False)
    Leaderboard(stack, "Leaderboard", existing_vpc=vpc, monitoring=Monitoring(enabled=False))
    template = Template.from_stack(stack)
    subnet, public_ip = _instance_subnet(template)
    assert subnet.startswith("TeamVpcPrivate") and not public_ip
    (instance_id,) = template.find_resources("AWS::EC2::Instance")
    (vpc_origin,) = template.find_resources("AWS::CloudFront::VpcOrigin").values()
    assert vpc_origin["Properties"]["VpcOriginEndpointConfig"]["Arn"]["Fn::Join"][1][-1] == {"Ref": instance_id}
    (distribution,) = dashboard_only(template.find_resources("AWS::CloudFront::Distribution")).values()
    (origin,) = distribution["Properties"]["DistributionConfig"]["Origins"]
    assert "VpcOriginConfig" in origin and "CustomOriginConfig" not in origin


def test_overrides_reach_every_table_and_function(customized):
    _, _, template = customized
    tables = template.find_resources("AWS::DynamoDB::Table").values()
    assert len(tables) == 2 and all(t["Properties"]["TableClass"] == "STANDARD_INFREQUENT_ACCESS" for t in tables)
    functions = template.find_resources("AWS::Lambda::Function").values()
    assert functions and all(f["Properties"]["Timeout"] == 9 for f in functions)


def test_dashboard_and_monitoring_off_leave_their_attributes_empty():
    app, stack = _stack("lean")
    board = Leaderboard(stack, "Leaderboard", dashboard=False, monitoring=Monitoring(enabled=False))
    assert board.dashboard is None and board.vpc is None and board.alarm_topic is None
    template = Template.from_stack(stack)
    template.resource_count_is("AWS::EC2::Instance", 0)
    template.resource_count_is("AWS::CloudWatch::Alarm", 0)


def test_settings_are_keywords_or_one_props_object_not_both():
    _, stack = _stack("both")
    with pytest.raises(TypeError, match="not both"):
        Leaderboard(stack, "Leaderboard", LeaderboardProps(), stage="x")
    with pytest.raises(TypeError):
        LeaderboardProps("dev")  # keyword-only


def test_boards_are_typed_and_checked_at_synth():
    with pytest.raises(ValueError, match="order must be one of"):
        Board(board_id="speedrun", order="sideways")
    with pytest.raises(ValueError, match="min_score"):
        Board(board_id="speedrun", min_score=10, max_score=5)
    with pytest.raises(TypeError, match="Board"):
        LeaderboardProps(boards=[{"board_id": "speedrun"}])
    assert Board(board_id="lap", order="asc").as_body() == {
        "board_id": "lap",
        "order": "asc",
        "operator": "best",
        "periods": ["all-time"],
        "min_score": 0,
        "shards": 1,
        "submissions": "server",
    }
