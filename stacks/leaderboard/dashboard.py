"""The dashboard: one Graviton instance running Nginx (configured at boot, secrets re-read at every boot, a boot
that signals CloudFormation) and, in front of it, CloudFront (HTTPS to viewers) reaching it through a CloudFront
VPC origin: an ENI CloudFront places inside the VPC, so no request, and no admin password, crosses the internet
between CloudFront and the instance."""

from __future__ import annotations

import json
from typing import cast

from aws_cdk import Acknowledgment, Aws, Duration, Validations
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3_assets as s3_assets
from aws_cdk import aws_secretsmanager as secretsmanager
from constructs import Construct

from .dashboard_address import DASHBOARD_PORT, DashboardDistribution
from .dashboard_ec2.render import DEFAULT_ADMIN_USER
from .nag import acknowledge
from .paths import DASHBOARD_DIR
from .props import LeaderboardProps
from .regions import DashboardRegion, instance_zone_from_subnet, place_subnet_by_zone_id

USER_DATA_TEMPLATE = DASHBOARD_DIR / "user_data.sh"
USER_DATA_LIMIT = 16 * 1024
# The site asset is the whole dashboard_ec2 folder (site, Nginx template and renderer, boot scripts) but these.
SITE_ASSET_EXCLUDES = ("user_data.sh", "**/__pycache__", "**/.gitignore")
# From launch to the success signal: dnf, the site, Nginx, and the checks through /api/ (with their retries).
BOOT_TIMEOUT = Duration.minutes(20)


def amazon_linux_2023_parameter(instance_type: str) -> str:
    """AWS's public SSM parameter of the latest AL2023 AMI for this instance type, default kernel: the
    kernel-6.1 parameter (CDK's latest_amazon_linux2023 pins it) stops at that kernel's end of support."""
    arm = ec2.InstanceType(instance_type).architecture == ec2.InstanceArchitecture.ARM_64
    return f"/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-{'arm64' if arm else 'x86_64'}"


class Dashboard(Construct):
    """The instance (Nginx, the site, the admin area) in its VPC, its secrets, logs and permissions, and the
    CloudFront distribution in front of it (`distribution`, `url`)."""

    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        props: LeaderboardProps,
        api_host: str,
        api_stage: str,
        api_url: str,
        admin_key_secret: secretsmanager.ISecret,
        edge_host: str | None = None,
        live_realtime_url: str = "",
    ) -> None:
        """`edge_host`: the edge's domain (CloudFront in front of the API's public reads), through which Nginx's
        /api/ reads; None: /api/ reads from the API itself. /admin-api/ always calls the API (the edge forwards no
        key). `live_realtime_url`: the AppSync Event API's realtime endpoint (wss://<realtime domain>/event/realtime),
        which the page connects to itself and its CSP allows (connect-src); empty: live updates off."""
        super().__init__(scope, id)
        existing_vpc = props.existing_vpc
        # The zone ID of the own VPC's subnet and the prefix list of the region (regions.py: VPC origins' regions).
        region = DashboardRegion(
            self,
            "Region",
            availability_zone_id=props.availability_zone_id,
            cloudfront_prefix_list_id=props.cloudfront_prefix_list_id,
            own_vpc=existing_vpc is None,
        )
        self.vpc = self._own_vpc(region.zone_id) if region.zone_id else cast(ec2.IVpc, existing_vpc)
        self.security_group = ec2.SecurityGroup(
            self,
            "WebSecurityGroup",
            vpc=self.vpc,
            description="Dashboard: HTTP from CloudFront only; no SSH (Session Manager instead)",
        )
        if existing_vpc is None:
            # Rejected traffic only: enough to audit, cheap at any volume. A VPC passed in is its owner's to log.
            flow_logs = logs.LogGroup(
                self, "FlowLogs", retention=props.log_retention, removal_policy=props.effective_removal_policy
            )
            self.vpc.add_flow_log(
                "FlowLog",
                destination=ec2.FlowLogDestination.to_cloud_watch_logs(flow_logs),
                traffic_type=ec2.FlowLogTrafficType.REJECT,
            )
        self.security_group.add_ingress_rule(
            ec2.Peer.prefix_list(region.prefix_list_id),
            ec2.Port.tcp(DASHBOARD_PORT),
            "HTTP from CloudFront's origin-facing addresses only",
        )

        self.password_secret = secretsmanager.Secret(
            self,
            "AdminPasswordSecret",
            description=f"Leaderboard {props.stage}: password of the dashboard's admin user ({DEFAULT_ADMIN_USER})",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template=json.dumps({"username": DEFAULT_ADMIN_USER}),
                generate_string_key="password",
                exclude_punctuation=True,
                password_length=24,
            ),
            removal_policy=props.effective_removal_policy,
        )
        acknowledge(self.password_secret, "SMG4", "Rotated by `make rotate-password` (new value, dashboard refresh)")
        # The whole dashboard_ec2 folder: the site, the Nginx template and renderer, the boot scripts.
        self.site = s3_assets.Asset(self, "Site", path=str(DASHBOARD_DIR), exclude=list(SITE_ASSET_EXCLUDES))

        # Nginx's two logs, shipped by the CloudWatch agent (boot/first-boot.sh): they outlive the instance, for the
        # stage's retention, and the instance keeps 3 days of them (logrotate) on its 8 GiB disk.
        self.access_logs = logs.LogGroup(
            self, "NginxAccessLogs", retention=props.log_retention, removal_policy=props.effective_removal_policy
        )
        self.error_logs = logs.LogGroup(
            self, "NginxErrorLogs", retention=props.log_retention, removal_policy=props.effective_removal_policy
        )

        instance_type = ec2.InstanceType(props.instance_type)
        # Filled below: the script names the instance's own logical id (for its signal), known once it exists.
        user_data = ec2.UserData.for_linux(shebang="#!/bin/bash")
        subnets, public = self._placement(self.vpc)
        self.instance = ec2.Instance(
            self,
            "Instance",
            vpc=self.vpc,
            vpc_subnets=subnets,
            # In a public subnet its own public IPv4 address is the instance's way out (dnf, Secrets Manager, the
            # API behind /api/, CloudWatch Logs); CloudFront does not use it. Explicit, as a VPC passed in may
            # not assign one on launch.
            associate_public_ip_address=True if public else None,
            instance_type=instance_type,
            # Resolved by EC2 at launch (resolve:ssm:...), not by CloudFormation at every deploy: a new AMI then
            # replaces nothing (the VPC origin in front could not follow an instance replaced under it); each new
            # instance starts from the AMI of its day.
            machine_image=ec2.MachineImage.resolve_ssm_parameter_at_launch(
                amazon_linux_2023_parameter(props.instance_type), os=ec2.OperatingSystemType.LINUX
            ),
            security_group=self.security_group,
            require_imdsv2=True,
            ssm_session_permissions=True,  # Session Manager instead of SSH: no key pair, no port 22
            block_devices=[
                ec2.BlockDevice(
                    device_name="/dev/xvda",
                    volume=ec2.BlockDeviceVolume.ebs(8, encrypted=True, volume_type=ec2.EbsDeviceVolumeType.GP3),
                )
            ],
            user_data=user_data,
            user_data_causes_replacement=True,
            # A CreationPolicy: the stack waits for the boot's own signal, and a failed boot rolls it back.
            resource_signal_timeout=BOOT_TIMEOUT,
        )
        if existing_vpc is None:
            instance_zone_from_subnet(self.instance)
        # cfn-lint and CDK's synth-time copy of it want an ami-... id; EC2 takes resolve:ssm:<parameter> too.
        ami_at_launch = "EC2 resolves the AMI from its public SSM parameter at launch (resolve:ssm:)"
        self.instance.instance.add_metadata("cfn-lint", {"config": {"ignore_checks": ["E1152"]}})
        Validations.of(self.instance).acknowledge(
            Acknowledgment(id="CloudFormation-Validate::E1152", reason=ami_at_launch)
        )
        script = self._render_user_data(
            REGION=Aws.REGION,
            STACK_NAME=Aws.STACK_NAME,
            INSTANCE_LOGICAL_ID=self.instance.instance.logical_id,  # with the user-data hash
            SITE_S3_URL=self.site.s3_object_url,
            ADMIN_KEY_SECRET_ARN=admin_key_secret.secret_arn,
            ADMIN_PASSWORD_SECRET_ARN=self.password_secret.secret_arn,
            API_UPSTREAM=f"https://{api_host}",
            API_HOST=api_host,
            API_STAGE=api_stage,
            API_URL=api_url,
            # The edge's paths are the API's paths (its origin path is the stage): no stage path to add.
            EDGE_UPSTREAM=f"https://{edge_host}" if edge_host else "",
            EDGE_HOST=edge_host or "",
            LIVE_REALTIME_URL=live_realtime_url,
            STAGE=props.stage,
            DASHBOARD_PORT=str(DASHBOARD_PORT),
            ACCESS_LOG_GROUP=self.access_logs.log_group_name,
            ERROR_LOG_GROUP=self.error_logs.log_group_name,
        )
        shebang, _, body = script.partition("\n")
        assert shebang == "#!/bin/bash", "user_data.sh must start with #!/bin/bash"
        user_data.add_commands(body)
        # Launch only once the subnet's way out exists (the boot also waits for the network).
        for subnet in self.vpc.select_subnets(subnet_type=subnets.subnet_type).subnets:
            self.instance.node.add_dependency(subnet.internet_connectivity_established)
        self._instance_permissions(admin_key_secret)
        self._acknowledge_instance_findings()

        # Beside this construct, under the id it had when it came first: its logical id, and so the dashboard's
        # *.cloudfront.net name, stay those of existing deployments.
        address = DashboardDistribution(
            scope,
            "DashboardAddress",
            props=props,
            instance=self.instance,
            network=(self.vpc, self.security_group),
        )
        self.distribution = address.distribution
        self.url = address.url

    @staticmethod
    def _placement(vpc: ec2.IVpc) -> tuple[ec2.SubnetSelection, bool]:
        """(subnets, public?): a VPC with private subnets that have egress gets the instance there, fully private as
        AWS documents VPC origins; otherwise (the construct's own VPC, a public-only one) a public subnet, whose
        internet gateway is the instance's free way out (a NAT gateway would cost about 33 USD/month)."""
        if vpc.private_subnets:
            return ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_WITH_EGRESS), False
        return ec2.SubnetSelection(subnet_type=ec2.SubnetType.PUBLIC), True

    def _own_vpc(self, zone_id: str) -> ec2.Vpc:
        # Public subnets only: a NAT gateway would cost more than the rest of the stack.
        vpc = ec2.Vpc(
            self,
            "Vpc",
            ip_addresses=ec2.IpAddresses.cidr("10.80.0.0/24"),
            max_azs=1,
            nat_gateways=0,
            subnet_configuration=[
                ec2.SubnetConfiguration(name="public", subnet_type=ec2.SubnetType.PUBLIC, cidr_mask=26)
            ],
            # The default security group is unused; restricting it would add a custom-resource Lambda.
            restrict_default_security_group=False,
        )
        place_subnet_by_zone_id(vpc.public_subnets[0], zone_id)
        return vpc

    def _instance_permissions(self, admin_key_secret: secretsmanager.ISecret) -> None:
        """What the boot and the secrets unit use, by exact ARN (written by hand, as the functions' role)."""
        statements = [
            iam.PolicyStatement(
                sid="SiteAssetRead",
                actions=["s3:GetObject"],
                # This asset's object only, not the whole CDK asset bucket.
                resources=[self.site.bucket.arn_for_objects(self.site.s3_object_key)],
            ),
            iam.PolicyStatement(
                sid="DashboardSecretsRead",
                actions=["secretsmanager:GetSecretValue"],
                resources=[admin_key_secret.secret_arn, self.password_secret.secret_arn],
            ),
            iam.PolicyStatement(
                sid="NginxLogsWrite",
                # The CloudWatch agent's streams in Nginx's two groups only: no CreateLogGroup (the stack makes
                # them), no PutRetentionPolicy (the stack sets it).
                actions=["logs:CreateLogStream", "logs:PutLogEvents", "logs:DescribeLogStreams"],
                resources=[self.access_logs.log_group_arn, self.error_logs.log_group_arn],
            ),
            iam.PolicyStatement(
                sid="BootSignal",
                actions=["cloudformation:SignalResource"],
                resources=[Aws.STACK_ID],
            ),
        ]
        for statement in statements:
            self.instance.role.add_to_principal_policy(statement)

    def _acknowledge_instance_findings(self) -> None:
        acknowledge(self.instance, "EC28", "Detailed monitoring would cost more than the nano instance itself")
        acknowledge(self.instance, "EC29", "Stateless: the instance is rebuilt from user data, nothing to protect")
        acknowledge(
            self.instance.role,
            "IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore]",
            "AWS's documented minimum for Session Manager and Run Command (key rotation refreshes through it)",
        )

    @staticmethod
    def _render_user_data(**values: str) -> str:
        text = USER_DATA_TEMPLATE.read_text()
        for name, value in values.items():
            text = text.replace(f"@@{name}@@", value)
        if "@@" in text:
            raise ValueError("user_data.sh has a placeholder the construct does not fill")
        if len(text.encode()) > USER_DATA_LIMIT // 4:
            raise ValueError("user data should stay far below EC2's 16 KB limit: ship files in the site asset")
        return text
