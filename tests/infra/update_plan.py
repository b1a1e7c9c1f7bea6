"""What CloudFormation will do when a stack deployed from one template is updated to another, and which of those
steps AWS documents as refused (update_refusals.json).

Resources are paired by logical id. A new id is a create, a vanished one a delete (in the cleanup phase, after
everything else: CloudFormation creates before it deletes). A kept id whose properties differ is an update, or a
replacement when a changed property is one of its type's createOnlyProperties (the resource provider schemas that
cfn-lint ships, plus update_refusals.json's `replacement`). A replacement gives the resource a new physical id, so
every property that refers to it (Ref, Fn::GetAtt, Fn::Sub) changes at deploy time although its text does not: that
is followed to a fixed point. Refs to SSM-typed parameters can be marked as changed too (`ssm_changed`): CloudFormation
reads those parameters again at every deploy, so a new value (a new AMI) changes what refers to them.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

DATA = json.loads(Path(__file__).with_name("update_refusals.json").read_text())
REFUSALS: dict[str, dict[str, Any]] = DATA["refusals"]
NAME_PATHS: dict[str, list[str]] = DATA["names"]
EXTRA_REPLACEMENT: dict[str, list[list[str]]] = DATA["replacement"]
UPDATED_ATTRIBUTES: dict[str, list[str]] = DATA["updated_attributes"]
Path_ = tuple[str, ...]
_MISSING = object()


@cache
def create_only(resource_type: str) -> tuple[Path_, ...]:
    """The type's createOnlyProperties (a change replaces the resource) as property paths."""
    from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

    schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema("us-east-1", resource_type).schema
    paths = [tuple(p.split("/")[2:]) for p in schema.get("createOnlyProperties", [])]
    return tuple(paths + [tuple(p) for p in EXTRA_REPLACEMENT.get(resource_type, [])])


def _intrinsic(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and len(value) == 1
        and (next(iter(value)) == "Ref" or next(iter(value)).startswith("Fn::"))
    )


def changed_paths(before: Any, after: Any, path: Path_ = ()) -> list[Path_]:
    """Property paths whose template value differs (objects compared key by key; lists and intrinsics whole)."""
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict) and not _intrinsic(before) and not _intrinsic(after):
        return [
            p
            for key in sorted(set(before) | set(after))
            for p in changed_paths(before.get(key, _MISSING), after.get(key, _MISSING), (*path, key))
        ]
    return [path]


def references(value: Any, path: Path_ = ()) -> Iterator[tuple[Path_, str, str]]:
    """(property path, logical id or parameter, attribute or "") for every Ref, Fn::GetAtt and Fn::Sub ${...}."""
    if isinstance(value, dict):
        if "Ref" in value and len(value) == 1 and isinstance(value["Ref"], str):
            yield path, value["Ref"], ""
            return
        if "Fn::GetAtt" in value and len(value) == 1:
            target = value["Fn::GetAtt"]
            name, attribute = target if isinstance(target, list) else str(target).split(".", 1)
            yield path, name, attribute if isinstance(attribute, str) else ""
            return
        if "Fn::Sub" in value and len(value) == 1:
            text = value["Fn::Sub"][0] if isinstance(value["Fn::Sub"], list) else value["Fn::Sub"]
            for name in _sub_names(text):
                target, _, attribute = name.partition(".")
                yield path, target, attribute
        for key, item in value.items():
            yield from references(item, (*path, key) if not key.startswith("Fn::") else path)
    elif isinstance(value, list):
        for item in value:
            yield from references(item, path)


def _sub_names(text: str) -> Iterator[str]:
    rest = text
    while "${" in rest:
        rest = rest.split("${", 1)[1]
        name, _, rest = rest.partition("}")
        if not name.startswith("!"):
            yield name


def _overlaps(changed: Path_, create_only_path: Path_) -> bool:
    shorter = min(len(changed), len(create_only_path))
    return changed[:shorter] == create_only_path[:shorter]


def _get(value: Any, path: list[str]) -> Any:
    for key in path:
        if not isinstance(value, dict) or key not in value:
            return None
        value = value[key]
    return value


@dataclass
class Change:
    logical_id: str
    type: str
    action: str  # create | delete | update | replace
    paths: list[Path_] = field(default_factory=list)  # changed property paths (update, replace)


@dataclass
class Plan:
    before: dict
    after: dict
    changes: dict[str, Change]

    def refusals(self) -> list[tuple[str, str, str]]:
        """(refusal id, logical id, detail) for each step AWS documents as refused."""
        return [
            *self._vpc_origins_in_use(),
            *self._subnets_under_vpc_origins(),
            *self._custom_names(),
            *self._gsi_changes(),
            *self._rest_api_merges(),
        ]

    def _vpc_origins_in_use(self) -> Iterator[tuple[str, str, str]]:
        used = {
            target
            for resource in self.before["Resources"].values()
            if resource["Type"] == "AWS::CloudFront::Distribution"
            for _, target, _ in references(resource.get("Properties", {}))
        }
        for change in self.changes.values():
            if change.type == "AWS::CloudFront::VpcOrigin" and change.action == "update" and change.logical_id in used:
                yield "vpc-origin-updated-in-use", change.logical_id, f"changes {['/'.join(p) for p in change.paths]}"

    def _subnets_under_vpc_origins(self) -> Iterator[tuple[str, str, str]]:
        """A subnet deleted (or replaced: its old one deleted) while a VPC origin of the stack before had its network
        interface in it: the subnet of the origin's target (the resource its endpoint ARN names, an instance or a
        load balancer), whatever the update does to the origin."""
        old = self.before["Resources"]
        for origin_id, origin in sorted(old.items()):
            if origin["Type"] != "AWS::CloudFront::VpcOrigin":
                continue
            targets = {t for _, t, _ in references(origin.get("Properties", {})) if t in old}
            subnets = {
                s
                for t in targets
                for _, s, _ in references(old[t].get("Properties", {}))
                if s in old and old[s]["Type"] == "AWS::EC2::Subnet"
            }
            for subnet in sorted(subnets):
                change = self.changes.get(subnet)
                if change is not None and change.action in ("delete", "replace"):
                    detail = f"{change.action}: the interface of VPC origin {origin_id} is in it"
                    yield "subnet-deleted-under-vpc-origin", subnet, detail

    def _custom_names(self) -> Iterator[tuple[str, str, str]]:
        def name(template: dict, logical_id: str) -> str | None:
            resource = template["Resources"][logical_id]
            path = NAME_PATHS.get(resource["Type"])
            value = _get(resource.get("Properties", {}), path) if path else None
            return None if value is None else json.dumps(value, sort_keys=True)

        for change in self.changes.values():
            if change.action == "replace" and (old := name(self.before, change.logical_id)) is not None:
                if old == name(self.after, change.logical_id):
                    yield "custom-name-replaced", change.logical_id, f"keeps its name {old}"
            if change.action != "create" or (new := name(self.after, change.logical_id)) is None:
                continue
            holders = [
                other
                for other, resource in self.before["Resources"].items()
                if resource["Type"] == change.type and other != change.logical_id and name(self.before, other) == new
            ]
            if holders:
                yield "custom-name-taken", change.logical_id, f"{new} is still {holders[0]}'s when it is created"

    def _rest_api_merges(self) -> Iterator[tuple[str, str, str]]:
        for change in self.changes.values():
            if change.type != "AWS::ApiGateway::RestApi" or change.action not in ("create", "update"):
                continue
            properties = self.after["Resources"][change.logical_id].get("Properties", {})
            body_changed = change.action == "create" or any(p[:1] == ("Body",) for p in change.paths)
            if change.action == "update" and body_changed and properties.get("Mode") != "overwrite":
                yield "rest-api-body-merged", change.logical_id, f"Mode is {properties.get('Mode', 'unset')}"

    def _gsi_changes(self) -> Iterator[tuple[str, str, str]]:
        for change in self.changes.values():
            if change.type != "AWS::DynamoDB::Table" or change.action != "update":
                continue
            old, new = (
                {
                    i["IndexName"]: i
                    for i in t["Resources"][change.logical_id]["Properties"].get("GlobalSecondaryIndexes", [])
                }
                for t in (self.before, self.after)
            )
            created, deleted = sorted(set(new) - set(old)), sorted(set(old) - set(new))
            if len(created) + len(deleted) > 1:
                yield "dynamodb-one-gsi-per-update", change.logical_id, f"creates {created}, deletes {deleted}"
            for index in sorted(set(old) & set(new)):
                if any(old[index].get(k) != new[index].get(k) for k in ("KeySchema", "Projection")):
                    yield "dynamodb-one-gsi-per-update", change.logical_id, f"changes index {index} in place"


def plan(before: dict, after: dict, *, ssm_changed: bool = False) -> Plan:
    """The update from `before` to `after`; `ssm_changed`: SSM-typed parameters resolve to new values."""
    old, new = before["Resources"], after["Resources"]
    changes: dict[str, Change] = {}
    for logical_id in sorted(set(old) | set(new)):
        if logical_id not in new:
            changes[logical_id] = Change(logical_id, old[logical_id]["Type"], "delete")
        elif logical_id not in old:
            changes[logical_id] = Change(logical_id, new[logical_id]["Type"], "create")
        elif old[logical_id]["Type"] != new[logical_id]["Type"]:
            changes[logical_id] = Change(logical_id, new[logical_id]["Type"], "replace", [()])
        else:
            paths = changed_paths(old[logical_id].get("Properties", {}), new[logical_id].get("Properties", {}))
            if paths:
                changes[logical_id] = Change(logical_id, new[logical_id]["Type"], "update", paths)
    moved = {
        name
        for name, parameter in after.get("Parameters", {}).items()
        if ssm_changed and parameter.get("Type", "").startswith("AWS::SSM::Parameter::Value")
    }
    while True:  # replacements change the physical ids that others refer to: follow them to a fixed point
        for change in changes.values():
            if change.action == "update" and any(
                _overlaps(p, c) for p in change.paths for c in create_only(change.type)
            ):
                change.action = "replace"
        moved |= {c.logical_id for c in changes.values() if c.action == "replace"}
        updated = {
            (c.logical_id, a)
            for c in changes.values()
            if c.action == "update"
            for a in UPDATED_ATTRIBUTES.get(c.type, [])
        }
        grew = False
        for logical_id in sorted(set(old) & set(new)):
            for path, target, attribute in references(new[logical_id].get("Properties", {})):
                if target not in moved and (target, attribute) not in updated:
                    continue
                change = changes.setdefault(logical_id, Change(logical_id, new[logical_id]["Type"], "update"))
                if change.action in ("update", "replace") and path not in change.paths:
                    change.paths.append(path)
                    grew = True
        if not grew:
            return Plan(before, after, changes)
