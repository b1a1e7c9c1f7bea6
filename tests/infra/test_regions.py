"""Regions and zones: the dashboard's subnet is placed by zone ID in a zone with CloudFront VPC origins,
and the origin-facing prefix list works in every region with VPC origins or fails with a message that says what to
set: at synth where the region is concrete, through the template's Rules where it is a token."""

from __future__ import annotations

import json

import aws_cdk as cdk
import pytest
from aws_cdk.assertions import Template
from cdk_leaderboard import Leaderboard, Monitoring
from cdk_leaderboard.regions import (
    CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS,
    OWN_SUBNET_CIDR,
    UNMAPPED,
    VPC_ORIGIN_ZONE_IDS,
    ZONES_WITHOUT_VPC_ORIGINS,
)

from stacks.app_builder import cdk_json_context

# AWS's list ("Supported AWS Regions for VPC origins", CloudFront Developer Guide), 33 regions.
AWS_VPC_ORIGIN_REGIONS = (
    "us-east-2 us-east-1 us-west-1 us-west-2 af-south-1 ap-east-1 ap-south-1 ap-south-2 ap-southeast-3 "
    "ap-southeast-4 ap-northeast-3 ap-southeast-1 ap-southeast-2 ap-northeast-1 ap-northeast-2 ap-southeast-7 "
    "ap-southeast-5 ap-east-2 ca-central-1 ca-west-1 eu-central-1 eu-west-1 eu-west-2 eu-south-1 eu-west-3 "
    "eu-south-2 eu-north-1 eu-central-2 il-central-1 me-south-1 me-central-1 sa-east-1 mx-central-1"
).split()


def _of_type(template: dict, kind: str) -> dict:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def _lean_stack(region: str, **props) -> cdk.Stack:
    """A stack with a concrete region and a leaderboard that keeps its dashboard (the rest off, for speed)."""
    zones = {f"availability-zones:account=111111111111:region={region}": [f"{region}a", f"{region}b"]}
    app = cdk.App(context={**cdk_json_context(), **zones})
    stack = cdk.Stack(app, "games", env=cdk.Environment(account="111111111111", region=region))
    Leaderboard(stack, "Leaderboard", edge=False, monitoring=Monitoring(enabled=False), **props)
    return stack


def test_the_zone_table_covers_awss_vpc_origin_regions_and_none_of_the_excepted_zones():
    assert sorted(VPC_ORIGIN_ZONE_IDS) == sorted(AWS_VPC_ORIGIN_REGIONS)
    assert not set(VPC_ORIGIN_ZONE_IDS.values()) & ZONES_WITHOUT_VPC_ORIGINS
    assert ZONES_WITHOUT_VPC_ORIGINS == {"use1-az3", "usw1-az2", "apne1-az3", "cac1-az3"}
    assert set(CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS) < set(VPC_ORIGIN_ZONE_IDS)


def test_the_subnet_is_placed_by_zone_id_not_by_fn_getazs(dev_template_json):
    """Fn::GetAZs' first zone is whichever the account names first, use1-az3 included; a zone ID is the same
    zone in every account. The instance takes its subnet's zone."""
    (subnet,) = _of_type(dev_template_json, "AWS::EC2::Subnet").values()
    props = subnet["Properties"]
    assert "AvailabilityZone" not in props
    assert props["AvailabilityZoneId"] == {
        "Fn::FindInMap": [next(iter(dev_template_json["Mappings"])), {"Ref": "AWS::Region"}, "ZoneId"]
    }
    assert "Fn::GetAZs" not in json.dumps(dev_template_json)
    (instance,) = _of_type(dev_template_json, "AWS::EC2::Instance").values()
    assert "AvailabilityZone" not in instance["Properties"]


def test_the_mapping_has_every_vpc_origin_region_so_find_in_map_never_fails_first(dev_template_json):
    (mapping,) = dev_template_json["Mappings"].values()
    assert {region: entry["ZoneId"] for region, entry in mapping.items()} == dict(VPC_ORIGIN_ZONE_IDS)
    unmapped = {region for region, entry in mapping.items() if entry["PrefixListId"] == UNMAPPED}
    assert unmapped == set(VPC_ORIGIN_ZONE_IDS) - set(CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS)
    assert len(unmapped) == 16


def test_an_existing_deployments_subnet_is_replaced_without_a_cidr_clash(dev_template_json):
    """AvailabilityZone -> AvailabilityZoneId replaces the subnet, and CloudFormation makes the new one before it
    deletes the old one (10.80.0.0/26): the new one takes the next /26."""
    (subnet,) = _of_type(dev_template_json, "AWS::EC2::Subnet").values()
    assert subnet["Properties"]["CidrBlock"] == OWN_SUBNET_CIDR == "10.80.0.64/26"


def _rule_assertions(template: dict) -> list[dict]:
    rules = [rule for name, rule in template["Rules"].items() if name != "CheckBootstrapVersion"]
    return [assertion for rule in rules for assertion in rule["Assertions"]]


def test_an_env_agnostic_template_refuses_an_unmapped_region_with_what_to_set(dev_template_json):
    """Without cloudfront_prefix_list_id, a region outside the prefix-list table stops the deploy with a Rules
    assertion that names the prop, instead of Fn::FindInMap's opaque failure."""
    regions, prefix = _rule_assertions(dev_template_json)
    assert regions["Assert"] == {"Fn::Contains": [sorted(VPC_ORIGIN_ZONE_IDS), {"Ref": "AWS::Region"}]}
    assert "dashboard=False" in regions["AssertDescription"]
    assert prefix["Assert"] == {"Fn::Contains": [sorted(CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS), {"Ref": "AWS::Region"}]}
    assert "set cloudfront_prefix_list_id" in prefix["AssertDescription"]
    assert "describe-managed-prefix-lists" in prefix["AssertDescription"]


def test_with_the_prop_an_env_agnostic_template_asks_only_for_a_vpc_origin_region(custom_template_json, custom_stage):
    (regions,) = _rule_assertions(custom_template_json)
    assert regions["Assert"]["Fn::Contains"][0] == sorted(VPC_ORIGIN_ZONE_IDS)
    (mapping,) = custom_template_json["Mappings"].values()
    assert all(set(entry) == {"ZoneId"} for entry in mapping.values())


def test_a_mapped_concrete_region_gets_literals_and_no_mapping(users_app):
    """The user's app (conftest.py) is in us-east-1: use1-az1 and us-east-1's prefix list, no rule, no mapping."""
    template = users_app.synth().get_stack_by_name("games").template
    subnets = _of_type(template, "AWS::EC2::Subnet").values()
    assert [s["Properties"]["AvailabilityZoneId"] for s in subnets] == ["use1-az1", "use1-az1"]
    rules = _of_type(template, "AWS::EC2::SecurityGroupIngress").values()
    assert {r["Properties"]["SourcePrefixListId"] for r in rules} == {"pl-3b927c52"}
    assert "Mappings" not in template
    assert set(template.get("Rules", {})) <= {"CheckBootstrapVersion"}


def test_an_unmapped_concrete_region_without_the_prop_fails_synth_with_what_to_set():
    with pytest.raises(ValueError, match=r"ca-west-1: set cloudfront_prefix_list_id to the id of") as raised:
        _lean_stack("ca-west-1")
    assert "com.amazonaws.global.cloudfront.origin-facing" in str(raised.value)


@pytest.fixture(scope="module")
def calgary_template() -> dict:
    return Template.from_stack(_lean_stack("ca-west-1", cloudfront_prefix_list_id="pl-0123456789abcdef0")).to_json()


def test_an_unmapped_concrete_region_with_the_prop_synthesizes(calgary_template):
    (subnet,) = _of_type(calgary_template, "AWS::EC2::Subnet").values()
    assert subnet["Properties"]["AvailabilityZoneId"] == "caw1-az1"
    (rule,) = _of_type(calgary_template, "AWS::EC2::SecurityGroupIngress").values()
    assert rule["Properties"]["SourcePrefixListId"] == "pl-0123456789abcdef0"


def test_a_concrete_region_without_vpc_origins_fails_synth():
    """ap-southeast-6 (New Zealand) is not in AWS's list."""
    with pytest.raises(ValueError, match=r"ap-southeast-6: CloudFront offers VPC origins .* or set dashboard=False"):
        _lean_stack("ap-southeast-6")


def test_availability_zone_id_places_the_subnet():
    template = Template.from_stack(_lean_stack("us-east-1", availability_zone_id="use1-az6")).to_json()
    (subnet,) = _of_type(template, "AWS::EC2::Subnet").values()
    assert subnet["Properties"]["AvailabilityZoneId"] == "use1-az6"


@pytest.mark.parametrize(
    ("zone", "message"),
    [
        ("use1-az3", "CloudFront offers no VPC origins in use1-az3"),
        ("us-east-1a", "must be an AZ ID such as use1-az1, not a zone name"),
    ],
)
def test_availability_zone_id_refuses_excepted_zones_and_zone_names(zone, message):
    from cdk_leaderboard import LeaderboardProps

    with pytest.raises(ValueError, match=message):
        LeaderboardProps(availability_zone_id=zone)


def test_availability_zone_id_of_another_region_fails_synth():
    with pytest.raises(ValueError, match="availability_zone_id use2-az1 is not a zone of us-east-1"):
        _lean_stack("us-east-1", availability_zone_id="use2-az1")
