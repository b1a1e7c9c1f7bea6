"""Typical changes deploy as updates that AWS does not refuse.

Each change is synthesized BEFORE and AFTER (one synth per variant for the module, cdk-nag off: it adds no
properties), the resources are paired by logical id, update_plan says what CloudFormation will do with each
(create, delete, update, or replace: a changed createOnlyProperty), and the plan is checked against the refusals
AWS documents (update_refusals.json, with their sources). The dashboard's files and the Lambda code are changed in
copies in a tmp dir, which the construct is pointed at by patching the paths it reads (dashboard.DASHBOARD_DIR,
functions.LAMBDA_SRC).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cdk_leaderboard.dashboard as dashboard_module
import cdk_leaderboard.functions as functions_module
import pytest

from stacks.app_builder import build_app, cdk_json_context, stack_name
from tests.infra.update_plan import REFUSALS, plan

STAGE = "dev"
BASE = cdk_json_context()["stages"][STAGE]
VARIANTS: dict[str, dict] = {
    "base": {},
    "site": {},  # a dashboard file changed (the copy below)
    "code": {},  # a Lambda source file changed (the copy below)
    "instance_size": {"instance_type": "t4g.micro"},
    "instance_arch": {"instance_type": "t3.nano"},  # another architecture: another AMI parameter
    "boards": {"boards": [*BASE["boards"], {"board_id": "laps", "order": "asc", "periods": ["all-time", "daily"]}]},
    "throttles": {"throttles": {"game_key_rate_limit": 50, "public_read_rate_limit": 250}},
    "live_key_rotated": {"live": {"api_key_generation": 2}},
    "live_off": {"live": {"enabled": False}},
    "no_dashboard": {"dashboard": False},
    "group_replaced": {},  # the security group's description edited (below): a new group, so a new instance
}
# (name, before, after): each typical change, and its way back where that is a change of its own.
CHANGES = [
    ("a dashboard file changed", "base", "site"),
    ("the Lambda code changed", "base", "code"),
    ("a larger instance", "base", "instance_size"),
    ("an x86 instance", "base", "instance_arch"),
    ("a board added", "base", "boards"),
    ("throttles changed", "base", "throttles"),
    ("the live key rotated", "base", "live_key_rotated"),
    ("live off", "base", "live_off"),
    ("live on again", "live_off", "base"),
    ("the dashboard turned off", "base", "no_dashboard"),
    ("the dashboard turned on", "no_dashboard", "base"),
    ("the security group replaced", "base", "group_replaced"),
]


# Changes with a documented step AWS does not take, and what the operator does instead (docs/OPERATIONS.md, "What an
# update does"). Turning the dashboard off deletes its VPC origin, subnet and VPC in one update: CloudFront removes
# the origin's interface only later, so the subnet's and the VPC's deletes fail in the cleanup phase and are skipped
# (the update completes). No template can split that in two steps (it cannot know the stack had a dashboard): the
# operator deletes the empty subnet and VPC once the interface is gone.
EXPECTED: dict[str, set[str]] = {"the dashboard turned off": {"subnet-deleted-under-vpc-origin"}}


def _changed_copy(source: Path, relative: str, tmp: Path) -> Path:
    copy = tmp / source.name
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    with (copy / relative).open("a") as handle:
        handle.write("\n/* changed */\n" if relative.endswith((".css", ".js")) else "\n# changed\n")
    return copy


@pytest.fixture(scope="module")
def templates(tmp_path_factory) -> dict[str, dict]:
    tmp = tmp_path_factory.mktemp("updates")
    site = _changed_copy(dashboard_module.DASHBOARD_DIR, "site/styles.css", tmp / "site")
    code = _changed_copy(functions_module.LAMBDA_SRC, "cdk_leaderboard_lambda/shared/limits.py", tmp / "code")
    out = {}
    for name, overrides in VARIANTS.items():
        with pytest.MonkeyPatch.context() as patch:
            if name == "site":
                patch.setattr(dashboard_module, "DASHBOARD_DIR", site)
            if name == "code":
                patch.setattr(functions_module, "LAMBDA_SRC", code)
            context = {"stages": {STAGE: {**BASE, **overrides}}}
            app = build_app(STAGE, context=context, nag=False, outdir=str(tmp / name / "cdk.out"))
            if name == "group_replaced":  # GroupDescription is create-only: the template text of the instance stays
                group = (
                    app.node.find_child(stack_name(STAGE)).node.find_child("Leaderboard").node.find_child("Dashboard")
                )
                group.node.find_child("WebSecurityGroup").node.default_child.group_description = "edited"
            out[name] = app.synth().get_stack_by_name(stack_name(STAGE)).template
    return out


def _summary(update) -> str:
    return json.dumps({c.logical_id: c.action for c in update.changes.values()}, indent=1)


@pytest.mark.parametrize(("change", "before", "after"), CHANGES, ids=[c[0] for c in CHANGES])
def test_typical_change_deploys_without_a_documented_refusal(templates, change, before, after):
    """No step of the update is one that AWS documents as refused (a refusal rolls the whole stack back) or as
    failing in the cleanup phase, but the ones EXPECTED names, which the operations guide covers."""
    update = plan(templates[before], templates[after])
    refused = [r for r in update.refusals() if r[0] not in EXPECTED.get(change, set())]
    assert {r[0] for r in update.refusals()} >= EXPECTED.get(change, set()), "an expected step no longer happens"
    assert not refused, (
        f"{change}: CloudFormation would be refused: "
        + "; ".join(f"{lid}: {REFUSALS[rid]['what'][:90]}... ({detail})" for rid, lid, detail in refused)
        + f"\nplan: {_summary(update)}"
    )


def test_a_new_ami_between_deploys_changes_nothing(templates):
    """CloudFormation re-reads SSM-typed parameters at every deploy (AWS publishes a new AL2023 AMI every few weeks):
    an AMI resolved that way would replace the instance under an unchanged VPC origin, a refusal in a deploy that
    changed nothing of the dashboard. The AMI is resolved by EC2 at launch instead."""
    update = plan(templates["base"], templates["base"], ssm_changed=True)
    touched = {c.type for c in update.changes.values()}
    assert not touched & {"AWS::EC2::Instance", "AWS::CloudFront::VpcOrigin"}, _summary(update)
    assert not update.refusals()


@pytest.mark.parametrize("after", ["site", "instance_arch", "group_replaced", "live_off"])
def test_the_vpc_origin_is_replaced_with_the_instance(templates, after):
    """A change that replaces the instance creates a new VPC origin (new logical id, new name) for it and deletes the
    old one after the distribution has moved: CloudFront never updates a VPC origin a distribution uses."""
    update = plan(templates["base"], templates[after])
    by_type: dict[str, set[str]] = {}
    for change in update.changes.values():
        if change.type in ("AWS::EC2::Instance", "AWS::CloudFront::VpcOrigin"):
            by_type.setdefault(change.type, set()).add(change.action)
    assert by_type.get("AWS::EC2::Instance") & {"replace", "create"}, _summary(update)
    assert by_type.get("AWS::CloudFront::VpcOrigin") == {"create", "delete"}, _summary(update)
    created, deleted = (
        next(c.logical_id for c in update.changes.values() if c.action == action and c.type.endswith("VpcOrigin"))
        for action in ("create", "delete")
    )
    names = {
        json.dumps(template["Resources"][lid]["Properties"]["VpcOriginEndpointConfig"]["Name"])
        for template, lid in [(templates["base"], deleted), (templates[after], created)]
    }
    assert len(names) == 2, f"the new VPC origin must not take the old one's name: {names}"


@pytest.mark.parametrize("after", ["code", "boards", "throttles", "live_key_rotated", "instance_size"])
def test_changes_away_from_the_dashboard_leave_its_instance_running(templates, after):
    """Only the dashboard's own changes replace its instance (a short switch-over, no downtime): the Lambda code,
    boards, throttles and the live key do not touch it; an instance type of the same architecture is an in-place
    update (EC2 stops and starts the instance: about a minute of 502s from CloudFront)."""
    update = plan(templates["base"], templates[after])
    actions = {
        c.action for c in update.changes.values() if c.type in ("AWS::EC2::Instance", "AWS::CloudFront::VpcOrigin")
    }
    assert actions <= ({"update"} if after == "instance_size" else set()), _summary(update)
