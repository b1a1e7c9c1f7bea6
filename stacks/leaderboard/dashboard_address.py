"""The dashboard's address: CloudFront in front of the instance, through a VPC origin that is replaced with the
instance (a new logical id and name for each instance: CloudFront refuses to update a VPC origin in use)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any, cast

import jsii
from aws_cdk import Aws, CfnResource, Duration, Fn, IResolveContext, IStringProducer, Lazy, Names, Stack
from aws_cdk import aws_certificatemanager as acm
from aws_cdk import aws_cloudfront as cloudfront
from aws_cdk import aws_cloudfront_origins as origins
from aws_cdk import aws_ec2 as ec2
from constructs import Construct, IConstruct

from .nag import acknowledge
from .props import LeaderboardProps

DASHBOARD_PORT = 80  # Nginx's port on the instance: CloudFront's origin port, the only port the instance opens
# What replaces an AWS::EC2::Instance: its createOnlyProperties (the resource schema) and its logical id, which
# user_data_causes_replacement derives from the user data (and so from the site asset's hash).
INSTANCE_REPLACED_BY = (
    "availability_zone", "cpu_options", "elastic_gpu_specifications", "elastic_inference_accelerators",
    "enclave_options", "hibernation_options", "host_resource_group_arn", "image_id", "ipv6_address_count",
    "ipv6_addresses", "key_name", "launch_template", "license_specifications", "network_interfaces",
    "placement_group_name", "private_ip_address", "security_groups", "subnet_id",
)  # fmt: skip
# What replaces the resources those properties name (create-only too): a subnet or security group replaced under
# the same logical id gives the instance a new SubnetId or group at deploy time, and so a replacement.
NETWORK_REPLACED_BY: dict[type, tuple[str, ...]] = {
    ec2.CfnVPC: ("cidr_block", "ipv4_ipam_pool_id", "ipv4_netmask_length"),
    ec2.CfnSubnet: (
        "vpc_id", "availability_zone", "availability_zone_id", "cidr_block", "outpost_arn", "ipv6_native",
        "ipv4_ipam_pool_id", "ipv4_netmask_length", "ipv6_ipam_pool_id", "ipv6_netmask_length",
    ),
    ec2.CfnSecurityGroup: ("group_description", "group_name", "vpc_id"),
}  # fmt: skip
VPC_ORIGIN_NAME_HASH = 12  # hex digits of the instance's generation in the VPC origin's name


@jsii.implements(IStringProducer)
class _Digest:
    def __init__(self, generation: _InstanceGeneration, length: int, prefix: str) -> None:
        self._generation, self._length, self._prefix = generation, length, prefix

    def produce(self, context: IResolveContext) -> str:
        return self._prefix + self._generation.digest(context)[: self._length]


class _InstanceGeneration:
    """A hash of everything whose change replaces the instance, resolved at synthesis (after the aspects, which add
    the IMDSv2 launch template): equal for two templates exactly when CloudFormation keeps the instance."""

    def __init__(self, instance: ec2.Instance, network: Sequence[IConstruct]) -> None:
        self._instance, self._network = instance, network

    def of_length(self, length: int, prefix: str = "") -> _Digest:
        return _Digest(self, length, prefix)

    def digest(self, context: IResolveContext) -> str:
        cfn = self._instance.instance
        facts: dict[str, Any] = {"logical_id": cfn.logical_id}
        facts.update({name: getattr(cfn, name) for name in INSTANCE_REPLACED_BY if getattr(cfn, name) is not None})
        templates = [c for c in self._instance.node.find_all() if isinstance(c, ec2.CfnLaunchTemplate)]
        facts["launch_template_data"] = [t.launch_template_data for t in templates]
        facts["network"] = [
            [cast(CfnResource, c).logical_id, {name: getattr(c, name, None) for name in names}]
            for construct in self._network
            for c in construct.node.find_all()
            for kind, names in NETWORK_REPLACED_BY.items()
            if isinstance(c, kind)
        ]
        resolved = json.dumps(context.resolve(facts), sort_keys=True)
        return hashlib.sha256(resolved.encode()).hexdigest()


class DashboardDistribution(Construct):
    """The dashboard's address: the CloudFront distribution (HTTPS with CloudFront's default certificate, or with
    the domain's own) in front of the instance, which it reaches through a CloudFront VPC origin.

    Built after the instance (the VPC origin names it). Nothing the instance or the API is given names the
    distribution: Nginx's same-origin check reads the viewer's Host, which this distribution forwards, and the
    API's default CORS origin is `https://<domain_name>` or "*" (construct.py), so there is no cycle."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        props: LeaderboardProps,
        instance: ec2.Instance,
        network: Sequence[IConstruct] = (),
    ) -> None:
        """`network`: the constructs whose subnets and security groups the instance uses (its VPC, its group)."""
        super().__init__(scope, id)
        # A domain of one's own: its certificate (ACM, us-east-1) and TLS 1.2 at least. Without one, CloudFront's
        # default certificate, whose TLS policy CloudFront sets (it allows TLS 1.0).
        custom_domain: dict[str, Any] = {}
        if props.domain_name:
            custom_domain = {
                "domain_names": [props.domain_name],
                "certificate": acm.Certificate.from_certificate_arn(
                    self, "Certificate", cast(str, props.certificate_arn)
                ),
                "minimum_protocol_version": cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
            }
        # A VPC origin (free): CloudFront reaches the instance's private address from ENIs it places in the
        # instance's subnet, over AWS's network, never the internet; plain HTTP on that last hop inside the VPC
        # (HTTPS to an origin needs a certificate for a name of one's own). AWS documents VPC origins for
        # instances in private subnets and requires an internet gateway on the VPC; the construct's own VPC keeps
        # the instance in its public subnet (egress without a NAT gateway, ~33 USD/month): AWS's docs say
        # nothing against that placement and nothing for it (docs/SECURITY.md, "Dashboard transport"). Either
        # way the requests come from CloudFront's ENIs inside the VPC, not through the internet gateway; the
        # security group admits port 80 from CloudFront's origin-facing prefix list only, which AWS's docs
        # name for VPC origins.
        # One VPC origin per instance: CloudFront refuses to update a VPC origin that a distribution uses (409;
        # aws/aws-cdk#34629), and the resource has no create-only property, so a new target (a replaced instance)
        # must come as a new resource. Its logical id and name end with a hash of what replaces the instance: the
        # deploy creates the new origin beside the old (hence a new name too), moves the distribution to it and
        # deletes the old one last, with the old instance.
        generation = _InstanceGeneration(instance, network)
        vpc_origin = cloudfront.VpcOrigin(
            self,
            "VpcOrigin",
            endpoint=cloudfront.VpcOriginEndpoint.ec2_instance(instance),
            http_port=DASHBOARD_PORT,
            protocol_policy=cloudfront.OriginProtocolPolicy.HTTP_ONLY,
            # Names are account-wide (CloudFront is global): the region keeps the same stack deployable twice.
            # 32 + 1 + 12 + 1 + a region's 14 stays within CloudFront's 64 characters.
            vpc_origin_name=Fn.join(
                "-",
                [
                    Names.unique_resource_name(self, max_length=32, separator="-"),
                    Lazy.uncached_string(generation.of_length(VPC_ORIGIN_NAME_HASH)),
                    Aws.REGION,
                ],
            ),
        )
        cfn_vpc_origin = cast(CfnResource, vpc_origin.node.default_child)
        base_id = Stack.of(self).get_logical_id(cfn_vpc_origin)
        cfn_vpc_origin.override_logical_id(Lazy.uncached_string(generation.of_length(16, prefix=base_id)))
        origin = origins.VpcOrigin.with_vpc_origin(vpc_origin)
        self.distribution = cloudfront.Distribution(
            self,
            "Distribution",
            comment="Leaderboard dashboard: HTTPS in front of the Nginx instance",
            **custom_domain,
            default_behavior=cloudfront.BehaviorOptions(
                origin=origin,
                viewer_protocol_policy=cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
                # POST for the admin area's snapshot and seed; Nginx refuses what it does not serve.
                allowed_methods=cloudfront.AllowedMethods.ALLOW_ALL,
                # Live data, and caching off is what lets the admin area's Authorization header through.
                cache_policy=cloudfront.CachePolicy.CACHING_DISABLED,
                # Every viewer header, Host included: Nginx's same-origin check compares Origin with
                # https://<Host>, and CloudFront routes a request here only for this distribution's own name or
                # alias.
                origin_request_policy=cloudfront.OriginRequestPolicy.ALL_VIEWER,
                response_headers_policy=cloudfront.ResponseHeadersPolicy(
                    self,
                    "Hsts",
                    # Names are account-wide (CloudFront is global): the region keeps the same stack deployable
                    # in a second region.
                    response_headers_policy_name=Fn.join(
                        "-", [Names.unique_resource_name(self, max_length=100, separator="-"), Aws.REGION]
                    ),
                    comment="Leaderboard dashboard: HSTS (Nginx sets the other security headers)",
                    security_headers_behavior=cloudfront.ResponseSecurityHeadersBehavior(
                        strict_transport_security=cloudfront.ResponseHeadersStrictTransportSecurity(
                            access_control_max_age=Duration.days(365), include_subdomains=False, override=True
                        )
                    ),
                ),
            ),
            price_class=cloudfront.PriceClass.PRICE_CLASS_100,
        )
        self._acknowledge_distribution_findings(custom_domain=bool(props.domain_name))
        self.url = f"https://{props.domain_name or self.distribution.distribution_domain_name}"

    def _acknowledge_distribution_findings(self, *, custom_domain: bool) -> None:
        # No CFR5 (origin over SSLv3/TLSv1 or not HTTPS): cdk-nag checks custom origins only, and a VPC origin
        # is none.
        reasons = {
            "CFR1": "A public dashboard: no geo restriction",
            "CFR2": "WAF on CloudFront costs from 6 USD/month; the admin area is password-protected and rate-limited",
            "CFR3": "Access logs would need a log bucket; Nginx logs every request on the instance",
            "CFR4": "CloudFront's default certificate (no domain_name prop): its TLS policy is CloudFront's own",
        }
        if custom_domain:
            del reasons["CFR4"]  # TLS 1.2 minimum with the domain's own certificate
        for rule, reason in reasons.items():
            acknowledge(self.distribution, rule, reason)
