"""The dashboard: a small public-only VPC, one Graviton instance, Nginx configured at boot."""

from __future__ import annotations

from aws_cdk import (
    Stack,
)
from aws_cdk import (
    aws_ec2 as ec2,
)
from aws_cdk import (
    aws_logs as logs,
)
from aws_cdk import (
    aws_s3_assets as s3_assets,
)
from aws_cdk import (
    aws_secretsmanager as secretsmanager,
)
from constructs import Construct

from .nag import acknowledge
from .paths import DASHBOARD_DIR
from .props import LeaderboardProps

USER_DATA_TEMPLATE = DASHBOARD_DIR / "user_data.sh"
USER_DATA_LIMIT = 16 * 1024


class DashboardAddress(Construct):
    """An Elastic IP made before the API and the instance: the API's CORS origin and the instance's
    user data both need the dashboard's address, and the instance needs the API, so the address breaks the cycle."""

    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        self.eip = ec2.CfnEIP(self, "Eip", domain="vpc")

    @property
    def url(self) -> str:
        return f"http://{self.eip.ref}"


class Dashboard(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        props: LeaderboardProps,
        address: DashboardAddress,
        api_host: str,
        api_stage: str,
        api_url: str,
        api_key_secret: secretsmanager.ISecret,
    ) -> None:
        super().__init__(scope, id)
        # Public subnets only: a NAT gateway would cost more than the rest of the stack.
        self.vpc = ec2.Vpc(
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
        self.security_group = ec2.SecurityGroup(
            self, "WebSecurityGroup", vpc=self.vpc, description="Dashboard: HTTP in; no SSH (Session Manager instead)"
        )
        # Rejected traffic only: enough to audit, cheap at any volume.
        flow_logs = logs.LogGroup(
            self, "FlowLogs", retention=props.log_retention, removal_policy=props.effective_removal_policy
        )
        self.vpc.add_flow_log(
            "FlowLog",
            destination=ec2.FlowLogDestination.to_cloud_watch_logs(flow_logs),
            traffic_type=ec2.FlowLogTrafficType.REJECT,
        )
        self.security_group.add_ingress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(80), "HTTP from anywhere")
        acknowledge(self.security_group, "EC23", "The dashboard is public; port 80 is the only port open")

        self.admin_secret = secretsmanager.Secret(
            self,
            "AdminSecret",
            description=f"Leaderboard {props.stage}: password of the dashboard's admin area (user admin)",
            generate_secret_string=secretsmanager.SecretStringGenerator(
                secret_string_template='{"username": "admin"}',
                generate_string_key="password",
                exclude_punctuation=True,
                password_length=24,
            ),
            removal_policy=props.effective_removal_policy,
        )
        acknowledge(self.admin_secret, "SMG4", "Rotate by putting a new value and rebooting the instance, see README")
        site = s3_assets.Asset(self, "Site", path=str(DASHBOARD_DIR), exclude=["user_data.sh", "**/__pycache__"])

        instance_type = ec2.InstanceType(props.instance_type)
        cpu = (
            ec2.AmazonLinuxCpuType.ARM_64
            if instance_type.architecture == ec2.InstanceArchitecture.ARM_64
            else ec2.AmazonLinuxCpuType.X86_64
        )
        user_data = ec2.UserData.custom(
            self._render_user_data(
                SITE_S3_URL=site.s3_object_url,
                REGION=Stack.of(self).region,
                API_HOST=api_host,
                API_STAGE=api_stage,
                API_URL=api_url,
                STAGE=props.stage,
                API_KEY_SECRET_ARN=api_key_secret.secret_arn,
                ADMIN_SECRET_ARN=self.admin_secret.secret_arn,
            )
        )
        self.instance = ec2.Instance(
            self,
            "Instance",
            vpc=self.vpc,
            vpc_subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PUBLIC),
            instance_type=instance_type,
            # Resolved from AWS's public SSM parameter at deploy time: no lookup at synth.
            machine_image=ec2.MachineImage.latest_amazon_linux2023(cpu_type=cpu),
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
        )
        site.grant_read(self.instance.role)
        api_key_secret.grant_read(self.instance.role)
        self.admin_secret.grant_read(self.instance.role)
        self._acknowledge_instance_findings()
        ec2.CfnEIPAssociation(
            self,
            "AddressAssociation",
            allocation_id=address.eip.attr_allocation_id,
            instance_id=self.instance.instance_id,
        )
        self.url = address.url

    def _acknowledge_instance_findings(self) -> None:
        acknowledge(self.instance, "EC28", "Detailed monitoring would cost more than the nano instance itself")
        acknowledge(self.instance, "EC29", "Stateless: the instance is rebuilt from user data, nothing to protect")
        acknowledge(
            self.instance.role,
            "IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/AmazonSSMManagedInstanceCore]",
            "AWS's documented minimum for Session Manager, which replaces SSH",
        )
        policy = self.instance.role.node.find_child("DefaultPolicy")
        asset_reason = "Read-only access to the CDK asset bucket, granted by Asset.grant_read for the site files"
        for finding in (
            "Action::s3:GetBucket*",
            "Action::s3:GetObject*",
            "Action::s3:List*",
            "Resource::arn:<AWS::Partition>:s3:::cdk-hnb659fds-assets-<AWS::AccountId>-<AWS::Region>/*",
        ):
            acknowledge(policy, f"IAM5[{finding}]", asset_reason)

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
