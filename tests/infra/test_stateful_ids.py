"""Stateful resources keep their logical ids: an existing deployment updates in place.

CloudFormation replaces a resource whose logical id changes: for a table that is every score, for a secret every
API key and signing key in use, for a log group its history, for the key the alarm topic's encryption, for a usage
plan, an API key or a plan's key the state a key rotation left (make rotate-key: the new key in the plan, the old one
disabled). A refactor
that moves a construct to another path changes the ids derived from it. `stateful_ids.json` records the logical
id and type of every stateful resource of the dev and prod templates as deployments have them; this test fails
when one is missing, renamed or of another type, and when a new stateful resource is not recorded yet.

Add a new resource to the record with `python tests/infra/test_stateful_ids.py --write` (then review the diff:
the write must only ADD ids; an id that disappears from the file is a replacement in every existing deployment).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

RECORD = Path(__file__).with_name("stateful_ids.json")
# Resources that hold data or something users built on them: replacing one loses it.
STATEFUL_TYPES = frozenset(
    {
        "AWS::DynamoDB::Table",  # the scores and the snapshot archive
        "AWS::SecretsManager::Secret",  # API keys, signing keys, the dashboard password
        "AWS::KMS::Key",  # what the alarm topic's messages are encrypted with
        "AWS::Logs::LogGroup",  # the functions', the API's access and the dashboard's logs
        "AWS::EC2::EIP",  # an address others may have allow-listed
        "AWS::SQS::Queue",  # the stream consumers' failure records
        "AWS::Events::EventBus",  # the game backend's rules on the Period Closed events live on it
        # After a rotation the plan holds the new key (added by make rotate-key, outside the template) and the
        # template's key is the disabled old one, out of the plan. A release that changed these ids would create a
        # plan holding only that old key (every keyed route 403 until the next rotation), or a key from the secret's
        # current value, which the rotated key already has (API Gateway treats two keys of one value as one key).
        "AWS::ApiGateway::UsagePlan",
        "AWS::ApiGateway::ApiKey",
        "AWS::ApiGateway::UsagePlanKey",
    }
)
RETAINED = frozenset({"Retain", "RetainExceptOnCreate", "Snapshot"})


def stateful_resources(template: dict) -> dict[str, str]:
    """Logical id -> type, for every stateful type and every resource kept on delete or replacement."""
    return {
        logical_id: resource["Type"]
        for logical_id, resource in sorted(template["Resources"].items())
        if resource["Type"] in STATEFUL_TYPES
        or resource.get("DeletionPolicy") in RETAINED
        or resource.get("UpdateReplacePolicy") in RETAINED
    }


def _templates(request: pytest.FixtureRequest) -> dict[str, dict]:
    return {stage: request.getfixturevalue(f"{stage}_template_json") for stage in ("dev", "prod")}


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_every_recorded_stateful_resource_keeps_its_logical_id_and_type(stage, request):
    """A recorded id that is gone (or changed type) would be a replacement: data loss in every deployment."""
    recorded = json.loads(RECORD.read_text())[stage]
    current = stateful_resources(request.getfixturevalue(f"{stage}_template_json"))
    lost = {lid: kind for lid, kind in recorded.items() if current.get(lid) != kind}
    assert not lost, (
        f"{stage}: stateful resources missing or renamed (CloudFormation would replace them): {lost}; "
        f"stateful resources now in the template but not recorded: "
        f"{ {lid: kind for lid, kind in current.items() if lid not in recorded} }"
    )


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_every_stateful_resource_is_recorded(stage, request):
    """A new stateful resource is recorded, so that a later rename of it is caught as well."""
    recorded = json.loads(RECORD.read_text())[stage]
    current = stateful_resources(request.getfixturevalue(f"{stage}_template_json"))
    unrecorded = {lid: kind for lid, kind in current.items() if lid not in recorded}
    assert not unrecorded, f"{stage}: record these with `python tests/infra/test_stateful_ids.py --write`: {unrecorded}"


def test_the_record_names_the_stateful_resources_the_issue_lists():
    """The record is not empty by accident: tables, secrets, the KMS key, log groups and retained ones are in it."""
    kinds = {kind for stage in json.loads(RECORD.read_text()).values() for kind in stage.values()}
    assert {
        "AWS::DynamoDB::Table",
        "AWS::SecretsManager::Secret",
        "AWS::KMS::Key",
        "AWS::Logs::LogGroup",
        "AWS::ApiGateway::Account",
        "AWS::ApiGateway::UsagePlan",
        "AWS::ApiGateway::ApiKey",
        "AWS::ApiGateway::UsagePlanKey",
    } <= kinds


def _write() -> None:
    root = Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root))
    from stacks.app_builder import build_app, stack_name

    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    for stage in ("dev", "prod"):
        template = build_app(stage).synth().get_stack_by_name(stack_name(stage)).template
        current = stateful_resources(template)
        dropped = sorted(set(record.get(stage, {})) - set(current))
        if dropped:
            sys.exit(f"{stage}: refusing to drop recorded ids (replacements): {dropped}")
        record[stage] = dict(sorted({**record.get(stage, {}), **current}.items()))
    RECORD.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit(f"usage: python {sys.argv[0]} --write")
    _write()
