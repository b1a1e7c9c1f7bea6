"""`make preflight`: before `cdk deploy`, is the target account and region ready for this stage?

One line per check; each failure says how to fix it. Read-only: it changes nothing in the account.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import boto3
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, NoRegionError
from cdk_leaderboard.api import POWERTOOLS_LAYER_PARAMETER
from cdk_leaderboard.dashboard import amazon_linux_2023_parameter
from cdk_leaderboard.props import LeaderboardProps
from cdk_leaderboard.regions import (
    CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS,
    CLOUDFRONT_PREFIX_LIST_NAME,
    VPC_ORIGIN_ZONE_IDS,
    ZONES_WITHOUT_VPC_ORIGINS,
)

from . import live_key
from .outputs import StackNotReady, stack_outputs
from .settings import bootstrap_qualifier, stack_name

# The synthesized template's CheckBootstrapVersion rule refuses older bootstrap stacks (a test keeps this in step).
MIN_BOOTSTRAP_VERSION = 6
# Lambda keeps this much of the account's concurrency unreserved; reservations must leave it.
LAMBDA_UNRESERVED_MINIMUM = 100
LAMBDA_CONCURRENCY_QUOTA_CODE = "L-B99A9384"
# Small instance types to suggest when the chosen one is not offered in the subnet's zone.
SMALL_INSTANCE_TYPES = ("t4g.nano", "t4g.micro", "t3.nano", "t3.micro", "t3a.nano", "t3a.micro", "t2.nano", "t2.micro")

# WARN passes (a deploy goes ahead) but says what is missing and how to fix it.
OK, NOTE, WARN, FAIL = "ok", "note", "WARN", "FAIL"


@dataclass(frozen=True)
class Check:
    status: str  # OK, NOTE (passes, but worth knowing), WARN (passes, with a fix) or FAIL
    name: str
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.status:<4} {self.name}: {self.detail}"
        return f"{text} -> fix: {self.fix}" if self.status in (WARN, FAIL) and self.fix else text


def _error_code(err: Exception) -> str:
    return err.response.get("Error", {}).get("Code", "") if isinstance(err, ClientError) else ""


# A deployed stage's live API key is renewed to 90 days ahead every 6 hours: under 30 days left means weeks of
# failed renewals (LiveKeyNotRenewed has been firing), which a deploy does not fix.
LIVE_KEY_MIN_DAYS_LEFT = 30


class Preflight:
    def __init__(
        self, session: boto3.Session, props: LeaderboardProps, now: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self.session, self.props, self.now = session, props, now
        self.account = ""
        self.region = session.region_name or ""

    def client(self, service: str):
        return self.session.client(service)

    def run(self) -> list[Check]:
        checks = [self.credentials()]
        if checks[0].status == FAIL:
            return checks  # nothing else can be asked
        steps: list[Callable[[], Check]] = [
            self.cdk_bootstrap,
            self.api_gateway_logging_role,
            self.powertools_layer,
            self.lambda_concurrency,
            self.live_api_key,
            self.alarm_subscriber,
        ]
        if self.props.dashboard:
            steps += [self.ami_parameter, self.dashboard_zone, self.instance_type_offered, self.cloudfront_prefix_list]
        for step in steps:
            try:
                checks.append(step())
            except (ClientError, BotoCoreError) as err:
                checks.append(Check(FAIL, step.__name__.replace("_", " "), f"could not check: {err}", "see the error"))
        return checks

    # --- the checks ---------------------------------------------------------------------------

    def credentials(self) -> Check:
        fix = "configure credentials for the target account (aws configure, AWS_PROFILE, or aws sso login)"
        if not self.region:
            fix = "set AWS_REGION or AWS_DEFAULT_REGION (or the profile's region)"
            return Check(FAIL, "credentials", "no region configured", fix)
        try:
            identity = self.client("sts").get_caller_identity()
        except (NoCredentialsError, NoRegionError) as err:
            return Check(FAIL, "credentials", str(err), fix)
        except ClientError as err:
            return Check(FAIL, "credentials", f"refused: {err}", fix)
        self.account = identity["Account"]
        return Check(OK, "credentials", f"account {self.account}, region {self.region} as {identity['Arn']}")

    def cdk_bootstrap(self) -> Check:
        name = f"/cdk-bootstrap/{bootstrap_qualifier()}/version"
        fix = f"npx cdk bootstrap aws://{self.account}/{self.region}"
        try:
            version = int(self.client("ssm").get_parameter(Name=name)["Parameter"]["Value"])
        except ClientError as err:
            if _error_code(err) == "ParameterNotFound":
                return Check(FAIL, "cdk bootstrap", f"{self.region} is not bootstrapped ({name} not found)", fix)
            raise
        if version < MIN_BOOTSTRAP_VERSION:
            return Check(FAIL, "cdk bootstrap", f"version {version}, the template needs {MIN_BOOTSTRAP_VERSION}+", fix)
        return Check(OK, "cdk bootstrap", f"version {version}")

    def api_gateway_logging_role(self) -> Check:
        name = "API Gateway logging role"
        current = self.client("apigateway").get_account().get("cloudwatchRoleArn") or ""
        if not self.props.account_has_api_gateway_logging_role:
            if current:
                return Check(
                    NOTE,
                    name,
                    f"the stack will replace the account's role {current} with its own (kept on deletion); "
                    "set account_has_api_gateway_logging_role: true in cdk.json to keep the current one",
                )
            return Check(OK, name, "none yet: the stack sets one for the account (kept on deletion)")
        fix = (
            "set account_has_api_gateway_logging_role: false for this stage in cdk.json (the stack then sets one), "
            "or name a role in API Gateway's settings (Settings > CloudWatch log role ARN)"
        )
        if not current:
            return Check(FAIL, name, "the stage says the account has one, but API Gateway has no role set", fix)
        try:
            role = self.client("iam").get_role(RoleName=current.rsplit("/", 1)[-1])["Role"]
        except ClientError as err:
            if _error_code(err) == "NoSuchEntity":
                return Check(FAIL, name, f"API Gateway names {current}, which no longer exists", fix)
            raise
        if "apigateway.amazonaws.com" not in str(role.get("AssumeRolePolicyDocument")):
            return Check(FAIL, name, f"{current} does not trust apigateway.amazonaws.com", fix)
        return Check(OK, name, f"the account's {current} (left as is)")

    def powertools_layer(self) -> Check:
        name = "Powertools layer"
        pinned = self.props.powertools_layer_arn
        if pinned:
            layer_arn, _, version = pinned.rpartition(":")
            try:
                layer = self.client("lambda").get_layer_version(LayerName=layer_arn, VersionNumber=int(version))
            except (ClientError, ValueError) as err:
                detail = f"pinned {pinned} cannot be read: {_error_code(err) or err}"
                return Check(FAIL, name, detail, "pin an ARN that exists")
            architectures = layer.get("CompatibleArchitectures") or ["arm64"]
            if "arm64" not in architectures:
                return Check(FAIL, name, f"pinned {pinned} is not built for arm64", "pin the arm64 layer")
            return Check(OK, name, f"pinned {pinned}")
        try:
            arn = self.client("ssm").get_parameter(Name=POWERTOOLS_LAYER_PARAMETER)["Parameter"]["Value"]
        except ClientError as err:
            if _error_code(err) != "ParameterNotFound":
                raise
            return Check(
                FAIL,
                name,
                f"AWS's public parameter {POWERTOOLS_LAYER_PARAMETER} does not exist in {self.region}",
                "pin the layer: set powertools_layer_arn for this stage in cdk.json to the arm64 Python 3.14 "
                "layer ARN of the same version from Powertools' documentation",
            )
        return Check(OK, name, f"{POWERTOOLS_LAYER_PARAMETER} -> {arn}")

    def ami_parameter(self) -> Check:
        parameter = amazon_linux_2023_parameter(self.props.instance_type)
        try:
            ami = self.client("ssm").get_parameter(Name=parameter)["Parameter"]["Value"]
        except ClientError as err:
            if _error_code(err) != "ParameterNotFound":
                raise
            return Check(
                FAIL,
                "AMI parameter",
                f"{parameter} does not exist in {self.region}",
                "deploy to a region where Amazon Linux 2023 is published, or set dashboard: false",
            )
        return Check(OK, "AMI parameter", f"{parameter} -> {ami}")

    def subnet_zone_id(self) -> str | None:
        """The AZ ID of the own VPC's subnet (regions.py): the stage's availability_zone_id or the region's entry;
        None where CloudFront has no VPC origins."""
        return self.props.availability_zone_id or VPC_ORIGIN_ZONE_IDS.get(self.region)

    def zone_names(self) -> dict[str, str]:
        """This account's zone IDs -> zone names in the region (names map to zones differently per account)."""
        zones = self.client("ec2").describe_availability_zones(
            Filters=[{"Name": "state", "Values": ["available"]}, {"Name": "zone-type", "Values": ["availability-zone"]}]
        )["AvailabilityZones"]
        return {z["ZoneId"]: z["ZoneName"] for z in zones}

    def dashboard_zone(self) -> Check:
        name = "dashboard zone"
        if self.props.existing_vpc is not None:
            return Check(NOTE, name, "existing_vpc: its subnets' zones must be ones with VPC origins (not checked)")
        zone_id = self.subnet_zone_id()
        if zone_id is None:
            return Check(
                FAIL,
                name,
                f"CloudFront offers no VPC origins (the dashboard's way in) in {self.region}",
                f"deploy to one of {', '.join(VPC_ORIGIN_ZONE_IDS)}, or set dashboard: false for the stage in cdk.json",
            )
        names = self.zone_names()
        usable = sorted(z for z in names if z not in ZONES_WITHOUT_VPC_ORIGINS)
        fix = f"set availability_zone_id for this stage in cdk.json to one of {', '.join(usable) or 'none'}"
        if zone_id in ZONES_WITHOUT_VPC_ORIGINS:
            return Check(FAIL, name, f"CloudFront offers no VPC origins in {zone_id}", fix)
        if zone_id not in names:
            return Check(FAIL, name, f"{zone_id} is not an available zone of this account in {self.region}", fix)
        return Check(OK, name, f"{zone_id} ({names[zone_id]} in this account) has VPC origins")

    def instance_type_offered(self) -> Check:
        ec2 = self.client("ec2")
        zone = self.subnet_zone_id()
        if zone is None:
            return Check(NOTE, "instance type", "not checked: no zone for the dashboard in this region")

        def offered(types: list[str]) -> set[str]:
            found = ec2.describe_instance_type_offerings(
                LocationType="availability-zone-id",
                Filters=[{"Name": "location", "Values": [zone]}, {"Name": "instance-type", "Values": types}],
            )["InstanceTypeOfferings"]
            return {o["InstanceType"] for o in found}

        wanted = self.props.instance_type
        if wanted in offered([wanted]):
            return Check(OK, "instance type", f"{wanted} is offered in {zone}, the dashboard subnet's zone")
        alternatives = [t for t in SMALL_INSTANCE_TYPES if t in offered(list(SMALL_INSTANCE_TYPES))]
        return Check(
            FAIL,
            "instance type",
            f"{wanted} is not offered in {zone}, the dashboard subnet's zone",
            "set instance_type for this stage in cdk.json to one offered there "
            f"({', '.join(alternatives) or 'see the EC2 console'})",
        )

    def lambda_concurrency(self) -> Check:
        name = "Lambda concurrency"
        wanted = sum(self.props.reserved_concurrency.values())
        if not wanted:
            return Check(OK, name, "no reserved concurrency asked")
        lam = self.client("lambda")
        limits = lam.get_account_settings()["AccountLimit"]
        # A redeploy: this stage's own reservations are in the account already and get replaced.
        ours = 0
        prefix = f"{stack_name(self.props.stage)}-"
        for page in lam.get_paginator("list_functions").paginate():
            for fn in page["Functions"]:
                if fn["FunctionName"].startswith(prefix):
                    ours += lam.get_function_concurrency(FunctionName=fn["FunctionName"]).get(
                        "ReservedConcurrentExecutions", 0
                    )
        available = limits["UnreservedConcurrentExecutions"] + ours
        left = available - wanted
        detail = (
            f"the stage reserves {wanted} of {available} unreserved (account quota "
            f"{limits['ConcurrentExecutions']}), leaving {left}"
        )
        if left < LAMBDA_UNRESERVED_MINIMUM:
            return Check(
                FAIL,
                name,
                f"{detail}; Lambda needs {LAMBDA_UNRESERVED_MINIMUM} left unreserved",
                "ask for a higher 'Concurrent executions' quota "
                f"(Service Quotas, Lambda, {LAMBDA_CONCURRENCY_QUOTA_CODE}), "
                f"or lower reserved_concurrency for this stage in cdk.json ({{}} reserves none)",
            )
        return Check(OK, name, detail)

    def cloudfront_prefix_list(self) -> Check:
        name = "CloudFront prefix list"
        found = self.client("ec2").describe_managed_prefix_lists(
            Filters=[{"Name": "prefix-list-name", "Values": [CLOUDFRONT_PREFIX_LIST_NAME]}]
        )["PrefixLists"]
        actual = found[0]["PrefixListId"] if found else None
        configured = self.props.cloudfront_prefix_list_id or CLOUDFRONT_ORIGIN_FACING_PREFIX_LISTS.get(self.region)
        source = "cloudfront_prefix_list_id" if self.props.cloudfront_prefix_list_id else "the region table"
        if actual is None:
            return Check(FAIL, name, f"{CLOUDFRONT_PREFIX_LIST_NAME} is not in {self.region}", "choose another region")
        if configured != actual:
            said = f"{source} says {configured}" if configured else f"the region table has no entry for {self.region}"
            return Check(
                FAIL,
                name,
                f"{said}, the account's {CLOUDFRONT_PREFIX_LIST_NAME} is {actual}",
                f"set cloudfront_prefix_list_id: {actual} for this stage in cdk.json",
            )
        return Check(OK, name, f"{actual} ({source})")

    def live_api_key(self) -> Check:
        name = "live API key"
        if not self.props.live.enabled:  # no Event API, no key (clients poll)
            return Check(OK, name, "live updates are off (live enabled: false): no key to check")
        now, stage = self.now(), self.props.stage
        renew = live_key.RENEW_COMMAND.format(stage=stage)
        try:
            expires = live_key.expiry(self.session, stack_name(stage))
        except StackNotReady as err:
            first = "not deployed yet: the key gets AppSync's 7 days and the renewal extends it within 6 hours"
            return Check(OK, name, first if "does not exist" in str(err) else str(err))
        if expires is None:
            return Check(
                FAIL,
                name,
                "AppSync has deleted the stage's key (60 days after it lapsed)",
                "raise live api_key_generation in cdk.json and deploy: a new key, handed out by discovery",
            )
        left = live_key.days_left(expires, now)
        if left < LIVE_KEY_MIN_DAYS_LEFT:
            state = "expired" if left <= 0 else f"expires in {left:.1f} days"
            return Check(
                FAIL,
                name,
                f"the key {state}: its renewal has been failing (LiveKeyNotRenewed)",
                f"renew now with `{renew}`, then read the period-closer function's log for why",
            )
        return Check(OK, name, f"expires in {left:.0f} days")

    def alarm_subscriber(self) -> Check:
        """A production stage whose alarms reach nobody: no alarm_email, and (once deployed) no confirmed
        subscription made to the alarm topic outside the stack. A warning, not a failure: the deploy is fine."""
        name = "alarm subscriber"
        monitoring, stage = self.props.monitoring, self.props.stage
        if not monitoring.enabled:
            if not self.props.is_prod:
                return Check(OK, name, "monitoring is off for this stage: no alarms")
            return Check(
                WARN,
                name,
                "monitoring is off in a production stage: no alarm fires, nobody hears of an outage",
                f'set "monitoring": {{"enabled": true, "alarm_email": "you@example.com"}} for stage {stage} '
                "in cdk.json",
            )
        if monitoring.alarm_email:
            return Check(OK, name, f"alarms e-mail {monitoring.alarm_email} (once the address confirms AWS's e-mail)")
        if not self.props.is_prod:
            return Check(OK, name, "none (not a production stage); the alarms notify the topic AlarmTopicArn")
        topic, confirmed = None, 0
        try:
            topic = stack_outputs(self.session, stack_name(stage)).get("AlarmTopicArn")
        except StackNotReady:
            pass  # not deployed yet: only alarm_email can subscribe anyone
        if topic:
            pages = self.client("sns").get_paginator("list_subscriptions_by_topic").paginate(TopicArn=topic)
            subscriptions = [s for page in pages for s in page.get("Subscriptions", [])]
            confirmed = sum(1 for s in subscriptions if s.get("SubscriptionArn", "").startswith("arn:"))
        if confirmed:
            return Check(OK, name, f"the alarm topic {topic} has {confirmed} confirmed subscription(s)")
        return Check(
            WARN,
            name,
            "a production stage with no alarm subscriber: its alarms notify the topic AlarmTopicArn, "
            "which nobody reads",
            f'set "monitoring": {{"alarm_email": "you@example.com"}} for stage {stage} in cdk.json and deploy '
            "(confirm AWS's e-mail), or subscribe an endpoint to the topic: "
            f"aws sns subscribe --topic-arn {topic or '<AlarmTopicArn>'} --protocol email "
            "--notification-endpoint you@example.com",
        )


def preflight(session: boto3.Session, props: LeaderboardProps, out: Callable[[str], None] = print) -> bool:
    """Print one line per check; True when none failed."""
    out(f"Preflight of stage {props.stage} (stack {stack_name(props.stage)}):")
    checks = Preflight(session, props).run()
    for check in checks:
        out(check.line())
    failed = [c for c in checks if c.status == FAIL]
    out(f"{len(failed)} check(s) failed: fix them before `make deploy`." if failed else "Ready to deploy.")
    return not failed
