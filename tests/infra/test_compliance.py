"""cdk-nag (AwsSolutions) and cfn-lint pass on the synthesized templates.

Each template is synthesized once per session (conftest.py: dev, prod, custom and a user's app with a concrete env,
all with cdk-nag on) and cfn-lint runs once over all of them: each of its processes spends seconds loading its specs.
"""

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
# None: W3010 (a literal zone name, which the CDK wrote for a concrete env) is gone since the subnet is placed by zone
# ID (regions.py). W3005: ignored everywhere, as .cfnlintrc.yaml says.
CONCRETE_ENV_EXCEPTIONS: set[str] = set()


@pytest.mark.parametrize("stage", ["dev", "prod", "custom"])
def test_cdk_nag_finds_no_unacknowledged_violation(stage, request):
    """The session's apps are built with AwsSolutionsChecks attached through Validations (conftest.py's
    _synthesized): their synth raises ValidationFailed, listing the findings, on any finding not acknowledged, and this
    test errors with it. The custom stage sets every optional prop (WAF, pinned layer, own prefix list, existing
    logging role)."""
    assert request.getfixturevalue(f"{stage}_template_json")["Resources"]


def test_cdk_nag_acknowledgements_are_what_make_it_pass(dev_app):
    """The same checks, run without CDK's acknowledgement filter, do find the acknowledged rules. (CFR5, an origin
    not over HTTPS, is no longer among them: cdk-nag checks custom origins, and the dashboard's is a VPC origin.)"""
    report = AwsSolutionsChecks(dev_app).validate_scope(dev_app)
    found = {v.rule_name.split("[")[0] for v in report.violations}
    assert {"AwsSolutions-APIG2", "AwsSolutions-SMG4", "AwsSolutions-CFR4"} <= found
    assert "AwsSolutions-CFR5" not in found


def test_cdk_nag_fails_synth_on_an_unacknowledged_violation():
    """Guard against a check that cannot fail: a security group open on all ports breaks synth. (A lean stage: the
    wiring under test is build_app's, whatever the stage holds.)"""
    lean = {"dashboard": False, "edge": False, "monitoring": {"enabled": False}}
    app = build_app("canary", context={"stages": {"canary": lean}})
    stack = Stack(app, "nag-canary")
    vpc = ec2.Vpc(stack, "Vpc", nat_gateways=0, restrict_default_security_group=False)
    ec2.SecurityGroup(stack, "Open", vpc=vpc).add_ingress_rule(ec2.Peer.any_ipv4(), ec2.Port.all_traffic())
    with pytest.raises(Exception, match="AwsSolutions-EC23"):
        app.synth()


@pytest.fixture(scope="module")
def cfn_lint_findings(dev_template_json, prod_template_json, custom_template_json, users_app, tmp_path_factory):
    """One cfn-lint run over every template: {template name: [finding, ...]}, each finding as cfn-lint's JSON."""
    folder = tmp_path_factory.mktemp("lint")
    templates = {"dev": dev_template_json, "prod": prod_template_json, "custom": custom_template_json}
    templates |= {f"concrete-{s.stack_name}": s.template for s in users_app.synth().stacks}
    paths = {}
    for name, template in templates.items():
        paths[name] = folder / f"{name}.template.json"
        paths[name].write_text(json.dumps(template))
    lint = [str(Path(sys.executable).with_name("cfn-lint")), "--config-file", str(ROOT / ".cfnlintrc.yaml")]
    result = subprocess.run([*lint, "--format", "json", *map(str, paths.values())], capture_output=True, text=True)
    assert not result.returncode & 1, result.stderr  # 1: cfn-lint itself failed; 2, 4, 8: errors, warnings, infos
    findings = json.loads(result.stdout or "[]")
    assert bool(findings) == bool(result.returncode), result.stdout  # the JSON read holds what the exit code says
    by_file = {str(path): name for name, path in paths.items()}
    found: dict[str, list[dict]] = {name: [] for name in templates}
    for finding in findings:
        found[by_file[finding["Filename"]]].append(finding)
    return found


def _readable(findings: list[dict]) -> str:
    return "\n".join(f"{f['Rule']['Id']} {f['Message']} ({f['Location']['Path']})" for f in findings)


@pytest.mark.parametrize("stage", ["dev", "prod", "custom"])
def test_cfn_lint_passes(stage, cfn_lint_findings):
    assert not cfn_lint_findings[stage], _readable(cfn_lint_findings[stage])


def test_cdk_nag_and_cfn_lint_pass_in_a_users_app_with_a_concrete_env(users_app, cfn_lint_findings):
    """The acknowledgements that name a region and account (the logging role's log groups) hold where findings
    read us-east-1:111111111111, not only <AWS::Region>:<AWS::AccountId>."""
    stacks = users_app.synth().stacks  # the fixture's synth raised on any unacknowledged finding
    assert sorted(s.stack_name for s in stacks) == ["games", "tools"]
    for stack in stacks:
        findings = cfn_lint_findings[f"concrete-{stack.stack_name}"]
        left = [f for f in findings if f["Rule"]["Id"] not in CONCRETE_ENV_EXCEPTIONS]
        assert not left, _readable(left)
    # The checks themselves do find the rules acknowledged with the concrete names (the test can fail).
    found = {v.rule_name for v in AwsSolutionsChecks(users_app).validate_scope(users_app).violations}
    assert any("logs:us-east-1:111111111111:log-group:*" in rule for rule in found), sorted(found)
