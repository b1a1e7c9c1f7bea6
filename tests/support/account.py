"""An AWS account in moto, for the operator tooling's tests: built with the real AWS APIs.

Two things moto cannot be asked through the API, and that the helpers below put in place:
- AWS's public SSM parameters (/aws/service/...): the API refuses to create names under /aws, so the
  Powertools layer parameter is written into moto's parameter store, as AWS publishes it.
- Lambda's GetAccountSettings is not implemented by moto: it is answered from moto's own model of the
  concurrency quota (MOTO_LAMBDA_CONCURRENCY_QUOTA, which moto's PutFunctionConcurrency enforces) and the
  functions' reservations in moto.
"""

from __future__ import annotations

import io
import json
import time
import zipfile

import boto3
from botocore.awsrequest import AWSResponse
from cdk_leaderboard.api import POWERTOOLS_LAYER_PARAMETER
from moto.core import DEFAULT_ACCOUNT_ID
from moto.core.botocore_stubber import MockRawResponse

REGION = "us-east-1"
ACCOUNT = DEFAULT_ACCOUNT_ID


def lambda_account_settings(request, **_):
    import os

    from moto.awslambda.models import lambda_backends

    quota = int(os.environ["MOTO_LAMBDA_CONCURRENCY_QUOTA"])
    region = request.url.split(".")[1]  # https://lambda.<region>.amazonaws.com/...
    reserved = sum(int(f.reserved_concurrency or 0) for f in lambda_backends[ACCOUNT][region].list_functions())
    body = {
        "AccountLimit": {
            "TotalCodeSize": 80530636800,
            "CodeSizeUnzipped": 262144000,
            "CodeSizeZipped": 52428800,
            "ConcurrentExecutions": quota,
            "UnreservedConcurrentExecutions": quota - reserved,
        },
        "AccountUsage": {"TotalCodeSize": 0, "FunctionCount": len(lambda_backends[ACCOUNT][region].list_functions())},
    }
    return AWSResponse(request.url, 200, {"Content-Type": "application/json"}, MockRawResponse(json.dumps(body)))


def publish_public_parameter(name: str, value: str, region: str = REGION) -> None:
    """What AWS does for /aws/service/... parameters (the API refuses such names to everyone else)."""
    from moto.ssm.models import Parameter, ssm_backends

    ssm_backends[ACCOUNT][region]._parameters[name].append(
        Parameter(
            account_id=ACCOUNT,
            name=name,
            value=value,
            parameter_type="String",
            description=None,
            allowed_pattern=None,
            keyid=None,
            last_modified_date=round(time.time(), 3),
            version=1,
            data_type="text",
        )
    )


def prepare_account(session: boto3.Session) -> None:
    """What a ready account has: a CDK bootstrap, the Powertools parameter (AMIs and the CloudFront prefix list
    come with moto's region data)."""
    session.client("ssm").put_parameter(Name="/cdk-bootstrap/hnb659fds/version", Value="30", Type="String")
    publish_public_parameter(
        POWERTOOLS_LAYER_PARAMETER,
        f"arn:aws:lambda:{REGION}:017000801446:layer:AWSLambdaPowertoolsPythonV3-python314-arm64:30",
    )


def cloudfront_prefix_list_id(session: boto3.Session) -> str:
    (found,) = session.client("ec2").describe_managed_prefix_lists(
        Filters=[{"Name": "prefix-list-name", "Values": ["com.amazonaws.global.cloudfront.origin-facing"]}]
    )["PrefixLists"]
    return found["PrefixListId"]


def lambda_function(session: boto3.Session, name: str, reserved: int | None = None) -> None:
    iam = session.client("iam")
    try:
        role = iam.get_role(RoleName="fn")["Role"]
    except iam.exceptions.NoSuchEntityException:
        role = iam.create_role(RoleName="fn", AssumeRolePolicyDocument="{}")["Role"]
    code = io.BytesIO()
    with zipfile.ZipFile(code, "w") as zf:
        zf.writestr("index.py", "def handler(event, context):\n    return {}\n")
    lam = session.client("lambda")
    lam.create_function(
        FunctionName=name,
        Runtime="python3.12",
        Role=role["Arn"],
        Handler="index.handler",
        Code={"ZipFile": code.getvalue()},
    )
    if reserved:
        lam.put_function_concurrency(FunctionName=name, ReservedConcurrentExecutions=reserved)
