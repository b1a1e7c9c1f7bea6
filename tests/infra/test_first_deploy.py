"""What a first deploy into a fresh account needs from the template: one concern per test.

The boot's behaviour (signals, retries, Nginx) is tested by running the real script in
test_first_boot.py; here, what CloudFormation is told.
"""

from __future__ import annotations

import json

from cdk_leaderboard.api import API_GATEWAY_LOGGING_ACTIONS, POWERTOOLS_LAYER_PARAMETER
from cdk_leaderboard.dashboard import BOOT_TIMEOUT


def _of_type(template_json: dict, type_: str) -> dict:
    return {k: r for k, r in template_json["Resources"].items() if r["Type"] == type_}


def _instance(template_json: dict) -> tuple[str, dict]:
    ((logical_id, instance),) = _of_type(template_json, "AWS::EC2::Instance").items()
    return logical_id, instance


def test_stack_sets_the_account_api_gateway_logging_role_and_keeps_it(dev_template_json):
    """A stage with access logs fails to create unless the account names a CloudWatch role: the stack sets
    one (AWS::ApiGateway::Account), and keeps both when deleted, since every API of the region uses it."""
    ((account_id, account),) = _of_type(dev_template_json, "AWS::ApiGateway::Account").items()
    role_id = account["Properties"]["CloudWatchRoleArn"]["Fn::GetAtt"][0]
    role = dev_template_json["Resources"][role_id]
    for resource in (account, role):
        assert resource["DeletionPolicy"] == "RetainExceptOnCreate" and resource["UpdateReplacePolicy"] == "Retain"
    assert role["Properties"]["AssumeRolePolicyDocument"]["Statement"][0]["Principal"] == {
        "Service": "apigateway.amazonaws.com"
    }
    assert "ManagedPolicyArns" not in role["Properties"]
    ((statement,),) = [p["PolicyDocument"]["Statement"] for p in role["Properties"]["Policies"]]
    assert sorted(statement["Action"]) == sorted(API_GATEWAY_LOGGING_ACTIONS)
    assert "log-group:*" in json.dumps(statement["Resource"]) and statement["Resource"] != "*"


def test_the_stage_is_created_after_the_account_logging_role(dev_template_json):
    ((stage_id, stage),) = _of_type(dev_template_json, "AWS::ApiGateway::Stage").items()
    (account_id,) = _of_type(dev_template_json, "AWS::ApiGateway::Account")
    assert "AccessLogSetting" in stage["Properties"]
    assert account_id in stage["DependsOn"]


def test_an_account_that_has_a_logging_role_keeps_its_own(custom_template_json):
    """account_has_api_gateway_logging_role: no AWS::ApiGateway::Account, so the account's role stays."""
    assert _of_type(custom_template_json, "AWS::ApiGateway::Account") == {}
    roles = _of_type(custom_template_json, "AWS::IAM::Role").values()
    assert not any("apigateway.amazonaws.com" in json.dumps(r["Properties"]["AssumeRolePolicyDocument"]) for r in roles)


def test_instance_creation_waits_for_its_boot_signal(dev_template_json):
    """A CreationPolicy: the stack is complete only when the boot signals; a failure or silence rolls it back."""
    _, instance = _instance(dev_template_json)
    minutes = int(BOOT_TIMEOUT.to_minutes())
    assert instance["CreationPolicy"] == {"ResourceSignal": {"Timeout": f"PT{minutes}M"}}


def test_boot_signals_its_own_instance_and_may_signal_only_this_stack(dev_template_json):
    """User data names the instance's final logical id (with the user-data hash); its role may signal only here."""
    logical_id, instance = _instance(dev_template_json)
    parts = instance["Properties"]["UserData"]["Fn::Base64"]["Fn::Join"][1]
    text = "".join(p for p in parts if isinstance(p, str))
    assert f'INSTANCE_LOGICAL_ID="{logical_id}"' in text
    assert {"Ref": "AWS::StackName"} in parts
    statements = [
        s
        for p in _of_type(dev_template_json, "AWS::IAM::Policy").values()
        for s in p["Properties"]["PolicyDocument"]["Statement"]
        if "cloudformation:SignalResource" in json.dumps(s["Action"])
    ]
    (statement,) = statements
    assert (statement["Action"], statement["Resource"]) == ("cloudformation:SignalResource", {"Ref": "AWS::StackId"})


def test_instance_launches_after_the_internet_route(dev_template_json):
    """The boot fetches packages at once: the subnet's default route to the internet gateway exists first."""
    _, instance = _instance(dev_template_json)
    routes = _of_type(dev_template_json, "AWS::EC2::Route")
    (route_id,) = [k for k, r in routes.items() if r["Properties"].get("GatewayId")]
    assert route_id in instance["DependsOn"]


def test_the_ami_follows_the_instance_architecture(custom_template_json):
    """An x86 instance type gets the x86 default-kernel AMI parameter."""
    (instance,) = [r for r in custom_template_json["Resources"].values() if r["Type"] == "AWS::EC2::Instance"]
    assert (
        instance["Properties"]["ImageId"]
        == "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"
    )


def test_powertools_layer_arn_can_be_pinned_instead_of_the_public_parameter(custom_template_json, custom_stage):
    """A pinned ARN (prop) goes straight into the functions: no SSM parameter that could be missing."""

    defaults = [p.get("Default") for p in custom_template_json["Parameters"].values()]
    assert POWERTOOLS_LAYER_PARAMETER not in defaults
    for fn in _of_type(custom_template_json, "AWS::Lambda::Function").values():
        assert fn["Properties"]["Layers"] == [custom_stage["powertools_layer_arn"]]


def test_preflight_checks_the_bootstrap_version_the_template_requires(dev_template_json):
    """`make preflight` refuses exactly the bootstrap versions the template's CheckBootstrapVersion rule refuses."""
    from ops.preflight import MIN_BOOTSTRAP_VERSION

    rule = dev_template_json["Rules"]["CheckBootstrapVersion"]["Assertions"][0]
    refused = rule["Assert"]["Fn::Not"][0]["Fn::Contains"][0]
    assert refused == [str(v) for v in range(1, MIN_BOOTSTRAP_VERSION)]
