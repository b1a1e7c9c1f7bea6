"""Where the dashboard can run: the regions and Availability Zones where CloudFront offers VPC origins, the zone of
the dashboard's subnet (by zone ID) and CloudFront's origin-facing prefix list id of the region.

AWS's list (CloudFront Developer Guide, "Restrict access with VPC origins", "Supported AWS Regions for VPC
origins"): 33 commercial regions, VPC origins in every zone of each but use1-az3, usw1-az2, apne1-az3 and cac1-az3.
Zone names (us-east-1a) map to zones differently in each account; zone IDs (use1-az1) do not, so the subnet is
placed by ID. Synth makes no lookups: in an env-agnostic stack the region is a token, and the facts are a
CloudFormation mapping with a Rules assertion that says what to set where a fact is missing; in a stack with a
concrete region they are literals, and a missing one fails `cdk synth`. `make preflight` checks both against the
account (ops/preflight.py).
"""

from __future__ import annotations

import re
from types import MappingProxyType

from aws_cdk import Aws, CfnMapping, CfnRule, Fn, Stack, Token
from aws_cdk import aws_ec2 as ec2
from constructs import Construct

# Each region's zone az1 (AWS's "AWS Availability Zones" table lists an az1 in every one of them); none of them is
# an excepted zone.
VPC_ORIGIN_ZONE_IDS = MappingProxyType(
    {
        "af-south-1": "afs1-az1",
        "ap-east-1": "ape1-az1",
        "ap-east-2": "ape2-az1",
        "ap-northeast-1": "apne1-az1",
        "ap-northeast-2": "apne2-az1",
        "ap-northeast-3": "apne3-az1",
        "ap-south-1": "aps1-az1",
        "ap-south-2": "aps2-az1",
        "ap-southeast-1": "apse1-az1",
        "ap-southeast-2": "apse2-az1",
        "ap-southeast-3": "apse3-az1",
        "ap-southeast-4": "apse4-az1",
        "ap-southeast-5": "apse5-az1",
        "ap-southeast-7": "apse7-az1",
        "ca-central-1": "cac1-az1",
        "ca-west-1": "caw1-az1",
        "eu-central-1": "euc1-az1",
        "eu-central-2": "euc2-az1",
        "eu-north-1": "eun1-az1",
        "eu-south-1": "eus1-az1",
        "eu-south-2": "eus2-az1",
        "eu-west-1": "euw1-az1",
        "eu-west-2": "euw2-az1",
        "eu-west-3": "euw3-az1",
        "il-central-1": "ilc1-az1",
        "me-central-1": "mec1-az1",
        "me-south-1": "mes1-az1",
        "mx-central-1": "mxc1-az1",
        "sa-east-1": "sae1-az1",
        "us-east-1": "use1-az1",
        "us-east-2": "use2-az1",
        "us-west-1": "usw1-az1",
        "us-west-2": "usw2-az1",
    }
)
VPC_ORIGIN_REGIONS = tuple(VPC_ORIGIN_ZONE_IDS)
# The zones of those regions where CloudFront offers no VPC origin (AWS's exceptions).
ZONES_WITHOUT_VPC_ORIGINS = frozenset({"use1-az3", "usw1-az2", "apne1-az3", "cac1-az3"})
ZONE_ID = re.compile(r"[a-z]{3,5}[0-9]-az[0-9]{1,2}")

# AWS's managed prefix list com.amazonaws.global.cloudfront.origin-facing has a different id in each region, and
# AWS's docs give no table of them: these are the 17 the construct has carried (`make preflight` checks the target
# region's entry against the account); in the 16 other VPC-origin regions the `cloudfront_prefix_list_id` prop is
# required (synth, or the template's Rules, say so).
CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS = MappingProxyType(
    {
        "ap-northeast-1": "pl-58a04531",
        "ap-northeast-2": "pl-22a6434b",
        "ap-northeast-3": "pl-31a14458",
        "ap-south-1": "pl-9aa247f3",
        "ap-southeast-1": "pl-31a34658",
        "ap-southeast-2": "pl-b8a742d1",
        "ca-central-1": "pl-38a64351",
        "eu-central-1": "pl-a3a144ca",
        "eu-north-1": "pl-fab65393",
        "eu-west-1": "pl-4fa04526",
        "eu-west-2": "pl-93a247fa",
        "eu-west-3": "pl-75b1541c",
        "sa-east-1": "pl-5da64334",
        "us-east-1": "pl-3b927c52",
        "us-east-2": "pl-b6a144df",
        "us-west-1": "pl-4ea04527",
        "us-west-2": "pl-82a045eb",
    }
)
CLOUDFRONT_PREFIX_LIST_NAME = "com.amazonaws.global.cloudfront.origin-facing"
# The mapping's value where the table has no id: never used, the Rules assertion stops the deploy first; a
# mapping entry for every VPC-origin region keeps Fn::FindInMap from failing before that, with its opaque message.
UNMAPPED = "unmapped"
# The own VPC's one subnet, from this release on in the /24's second /26: a subnet placed by zone ID is a
# replacement (AvailabilityZone and AvailabilityZoneId are create-only), and the new subnet is made before the old
# one goes, so it cannot take the old one's range.
OWN_SUBNET_CIDR = "10.80.0.64/26"

NO_VPC_ORIGINS = (
    "CloudFront offers VPC origins (the dashboard's way in) in these regions only: {regions}; "
    "deploy to one of them, or set dashboard=False (API and tables only)"
)
PREFIX_LIST_REQUIRED = (
    "CloudFront's origin-facing prefix list has no id in the construct's table for {region}: set "
    "cloudfront_prefix_list_id to the id of " + CLOUDFRONT_PREFIX_LIST_NAME + " in that region "
    "(aws ec2 describe-managed-prefix-lists --filters Name=prefix-list-name,Values=" + CLOUDFRONT_PREFIX_LIST_NAME + ")"
)


def zone_id_problem(zone_id: str) -> str | None:
    """Why a zone ID cannot hold the dashboard's subnet, or None."""
    if not ZONE_ID.fullmatch(zone_id):
        return (
            f"availability_zone_id must be an AZ ID such as use1-az1, not a zone name such as us-east-1a: {zone_id!r}"
        )
    if zone_id in ZONES_WITHOUT_VPC_ORIGINS:
        return f"CloudFront offers no VPC origins in {zone_id}: choose another zone ID of the region"
    return None


class DashboardRegion(Construct):
    """The zone ID of the own VPC's subnet (`zone_id`, None with `existing_vpc`) and the prefix list id of the
    dashboard's security group, for this stack's region: literals where the region is concrete, a mapping and Rules
    assertions where it is a token. It takes the two props it reads, not the props type: props.py imports this
    module (zone_id_problem), and imports go one way."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        availability_zone_id: str | None,
        cloudfront_prefix_list_id: str | None,
        own_vpc: bool,
    ) -> None:
        super().__init__(scope, id)
        # What the props leave to the region's table.
        self._zone_from_table = own_vpc and not availability_zone_id
        self._prefix_from_table = not cloudfront_prefix_list_id
        region = Stack.of(self).region
        if Token.is_unresolved(region):
            zone, prefix = self._from_mapping()
        else:
            zone, prefix = self._from_region(region)
            chosen = availability_zone_id
            if chosen and chosen.split("-az")[0] != zone.split("-az")[0]:
                raise ValueError(f"availability_zone_id {chosen} is not a zone of {region}")
        self.zone_id: str | None = (availability_zone_id or zone) if own_vpc else None
        self.prefix_list_id: str = cloudfront_prefix_list_id or prefix

    def _from_region(self, region: str) -> tuple[str, str]:
        if region not in VPC_ORIGIN_ZONE_IDS:
            raise ValueError(f"{region}: " + NO_VPC_ORIGINS.format(regions=", ".join(VPC_ORIGIN_REGIONS)))
        zone = VPC_ORIGIN_ZONE_IDS[region]
        prefix = CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS.get(region, "")
        if self._prefix_from_table and not prefix:
            raise ValueError(PREFIX_LIST_REQUIRED.format(region=region))
        return zone, prefix

    def _from_mapping(self) -> tuple[str, str]:
        rule = CfnRule(self, "VpcOriginRegion")
        rule.add_assertion(
            Fn.condition_contains(list(VPC_ORIGIN_REGIONS), Aws.REGION),
            NO_VPC_ORIGINS.format(regions=" ".join(VPC_ORIGIN_REGIONS)),
        )
        if self._prefix_from_table:
            rule.add_assertion(
                Fn.condition_contains(list(CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS), Aws.REGION),
                PREFIX_LIST_REQUIRED.format(region="the stack's region"),
            )
        if not (self._zone_from_table or self._prefix_from_table):
            return "", ""
        entries: dict[str, dict[str, str]] = {region: {} for region in VPC_ORIGIN_REGIONS}
        for region, entry in entries.items():
            if self._zone_from_table:
                entry["ZoneId"] = VPC_ORIGIN_ZONE_IDS[region]
            if self._prefix_from_table:
                entry["PrefixListId"] = CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS.get(region, UNMAPPED)
        mapping = CfnMapping(self, "VpcOrigins", mapping=entries)
        zone = mapping.find_in_map(Aws.REGION, "ZoneId") if self._zone_from_table else ""
        prefix = mapping.find_in_map(Aws.REGION, "PrefixListId") if self._prefix_from_table else ""
        return zone, prefix


def place_subnet_by_zone_id(subnet: ec2.ISubnet, zone_id: str) -> None:
    """The own VPC's subnet in the zone of this ID (the VPC construct knows zone names only)."""
    cfn = subnet.node.default_child
    assert isinstance(cfn, ec2.CfnSubnet), "the construct's own VPC makes its subnets"
    cfn.add_property_deletion_override("AvailabilityZone")
    cfn.add_property_override("AvailabilityZoneId", zone_id)
    cfn.add_property_override("CidrBlock", OWN_SUBNET_CIDR)


def instance_zone_from_subnet(instance: ec2.Instance) -> None:
    """The instance's zone is its subnet's: the VPC construct's zone name (Fn::GetAZs' first) is no longer it."""
    instance.instance.add_property_deletion_override("AvailabilityZone")
