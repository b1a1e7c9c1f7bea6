"""cdk-nag (AwsSolutions) and cfn-lint pass on the synthesized templates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from aws_cdk import Stack
from aws_cdk import aws_ec2 as ec2
from cdk_nag import AwsSolutionsChecks

from stacks.app_builder import build_app

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
    """The same checks, run without CDK's acknowledgement filter, do find the acknowledged rules."""
    app = build_app("dev", nag=False)
    report = AwsSolutionsChecks(app).validate_scope(app)
    found = {v.rule_name.split("[")[0] for v in report.violations}
    assert {"AwsSolutions-APIG4", "AwsSolutions-SMG4", "AwsSolutions-CFR4", "AwsSolutions-CFR5"} <= found


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
