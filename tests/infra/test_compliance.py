"""cdk-nag (AwsSolutions) and cfn-lint pass on the synthesized templates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import aws_cdk as cdk
import pytest
from aws_cdk import Stack, Validations
from aws_cdk import aws_ec2 as ec2
from cdk_leaderboard import Board, Leaderboard
from cdk_nag import AwsSolutionsChecks

from stacks.app_builder import build_app, cdk_json_context

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_cdk_nag_finds_no_unacknowledged_violation(stage):
    """Synth runs AwsSolutionsChecks through Validations and fails on any finding not acknowledged."""
    app = build_app(stage)
    app.synth()  # raises ValidationFailed listing the findings


def test_cdk_nag_passes_with_every_optional_prop_set(custom_template_json):
    """The custom stage (WAF, pinned layer, own prefix list, existing logging role) synthesized with cdk-nag."""
    assert custom_template_json["Resources"]


def test_cdk_nag_acknowledgements_are_what_make_it_pass():
    """The same checks, run without CDK's acknowledgement filter, do find the acknowledged rules. (CFR5, an origin
    not over HTTPS, is no longer among them: cdk-nag checks custom origins, and the dashboard's is a VPC origin.)"""
    app = build_app("dev", nag=False)
    report = AwsSolutionsChecks(app).validate_scope(app)
    found = {v.rule_name.split("[")[0] for v in report.violations}
    assert {"AwsSolutions-APIG4", "AwsSolutions-SMG4", "AwsSolutions-CFR4"} <= found
    assert "AwsSolutions-CFR5" not in found


def test_cdk_nag_fails_synth_on_an_unacknowledged_violation():
    """Guard against a check that cannot fail: a security group open on all ports breaks synth."""
    app = build_app("dev")
    stack = Stack(app, "nag-canary")
    vpc = ec2.Vpc(stack, "Vpc", nat_gateways=0, restrict_default_security_group=False)
    ec2.SecurityGroup(stack, "Open", vpc=vpc).add_ingress_rule(ec2.Peer.any_ipv4(), ec2.Port.all_traffic())
    with pytest.raises(Exception, match="AwsSolutions-EC23"):
        app.synth()


@pytest.mark.parametrize("stage", ["dev", "prod", "custom"])
def test_cfn_lint_passes(stage, dev_template_json, prod_template_json, custom_template_json, tmp_path):
    template = {"dev": dev_template_json, "prod": prod_template_json, "custom": custom_template_json}[stage]
    path = tmp_path / f"leaderboard-{stage}.template.json"
    path.write_text(json.dumps(template))
    result = subprocess.run(
        [str(Path(sys.executable).with_name("cfn-lint")), "--config-file", str(ROOT / ".cfnlintrc.yaml"), str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def users_app_with_a_concrete_env(outdir: Path, *, nag: bool = True) -> cdk.App:
    """What a user writes (the CDK's recommended way): stacks with a concrete account and region, two
    leaderboards in one stack and one in another, cdk-nag on."""
    env = cdk.Environment(account="111111111111", region="us-east-1")
    # What `cdk synth` would have looked up and cached in cdk.context.json (tests make no AWS calls).
    zones = {"availability-zones:account=111111111111:region=us-east-1": ["us-east-1a", "us-east-1b", "us-east-1c"]}
    app = cdk.App(context={**cdk_json_context(), **zones}, outdir=str(outdir))
    games = cdk.Stack(app, "games", env=env)
    Leaderboard(games, "Arcade")
    Leaderboard(
        games,
        "Racing",
        boards=[Board(board_id="lap", order="asc", periods=["all-time", "weekly"])],
        account_has_api_gateway_logging_role=True,
        dashboard=False,
    )
    tools = cdk.Stack(app, "tools", env=env)
    Leaderboard(tools, "Leaderboard", account_has_api_gateway_logging_role=True, production=True)
    if nag:
        Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app


def test_cdk_nag_and_cfn_lint_pass_in_a_users_app_with_a_concrete_env(tmp_path):
    """The acknowledgements that name a region and account (the logging role's log groups) hold where findings
    read us-east-1:111111111111, not only <AWS::Region>:<AWS::AccountId>."""
    assembly = users_app_with_a_concrete_env(tmp_path / "cdk.out").synth()  # raises on any unacknowledged finding
    for stack in assembly.stacks:
        path = tmp_path / f"{stack.stack_name}.template.json"
        path.write_text(json.dumps(stack.template))
        # W3010 (a literal availability zone): with a concrete env the CDK writes the zone it looked up for that
        # account, by design; the env-agnostic stages (above) use Fn::GetAZs and pass it. W3005: as .cfnlintrc.yaml.
        lint = [str(Path(sys.executable).with_name("cfn-lint")), "--config-file", str(ROOT / ".cfnlintrc.yaml")]
        result = subprocess.run([*lint, str(path), "-i", "W3005", "W3010"], capture_output=True, text=True, cwd=ROOT)
        assert result.returncode == 0, result.stdout + result.stderr
    # The checks themselves do find the rules acknowledged with the concrete names (the test can fail).
    app = users_app_with_a_concrete_env(tmp_path / "bare.out", nag=False)
    found = {v.rule_name for v in AwsSolutionsChecks(app).validate_scope(app).violations}
    assert any("logs:us-east-1:111111111111:log-group:*" in rule for rule in found), sorted(found)
