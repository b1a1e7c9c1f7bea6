"""What the functions' one shared role allows each function, read from a synthesized template WITH the statements'
conditions: a small evaluator of the role's policies for a request whose `lambda:SourceFunctionArn` is the
function's ARN (what Lambda puts in the request context of every call from the function's code).

It knows only what the role's policies use: Allow and Deny statements (a call is allowed when an Allow applies and no
Deny does, as IAM decides), an action list with `*` patterns, resources compared as template expressions (a Ref, a
GetAtt, an ARN string) or "*", and no condition or `ArnEquals` on `lambda:SourceFunctionArn` listing
`{"Fn::GetAtt": [function, "Arn"]}`. Anything else fails loudly (UnknownPolicy) instead of being guessed at.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Iterator

from cdk_leaderboard.paths import routes

SOURCE_FUNCTION_ARN = "lambda:SourceFunctionArn"


class UnknownPolicy(AssertionError):
    """A policy construct this evaluator does not model."""


def _resources(template: dict, kind: str) -> dict[str, dict]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def role_id(template: dict) -> str:
    (found,) = [k for k in _resources(template, "AWS::IAM::Role") if k.startswith("LeaderboardApiFunctionRole")]
    return found


def functions(template: dict) -> dict[str, str]:
    """Registry name -> logical id of each function on the shared role (matched by its handler)."""
    found = {}
    for f in routes.FUNCTIONS:
        (logical_id,) = [
            k
            for k, r in _resources(template, "AWS::Lambda::Function").items()
            if r["Properties"].get("Handler") == f.handler
        ]
        assert template["Resources"][logical_id]["Properties"]["Role"] == {"Fn::GetAtt": [role_id(template), "Arn"]}
        found[f.name] = logical_id
    return found


def statements(template: dict) -> list[dict]:
    """Every statement of every policy on the role: its inline policies and the AWS::IAM::Policy resources
    attached to it (no managed policy: it would be a grant this evaluator cannot see)."""
    role = template["Resources"][role_id(template)]["Properties"]
    if role.get("ManagedPolicyArns"):
        raise UnknownPolicy(f"managed policies on the role: {role['ManagedPolicyArns']}")
    found = [s for p in role.get("Policies", []) for s in p["PolicyDocument"]["Statement"]]
    for policy in _resources(template, "AWS::IAM::Policy").values():
        if {"Ref": role_id(template)} in policy["Properties"].get("Roles", []):
            found += policy["Properties"]["PolicyDocument"]["Statement"]
    return found


def by_sid(template: dict) -> dict[str, dict]:
    found = statements(template)
    assert len({s["Sid"] for s in found}) == len(found), "statement ids are unique across the role's policies"
    return {s["Sid"]: s for s in found}


def _listed(value: object) -> list:
    return value if isinstance(value, list) else [value]


def applies_to(statement: dict, function_id: str) -> bool:
    """Whether the statement's condition holds for a call from this function's code."""
    if statement.get("Effect") not in ("Allow", "Deny") or "NotAction" in statement or "NotResource" in statement:
        raise UnknownPolicy(f"not a plain Allow or Deny: {statement.get('Sid')}")
    condition = statement.get("Condition")
    if condition is None:
        return True
    if list(condition) != ["ArnEquals"] or list(condition["ArnEquals"]) != [SOURCE_FUNCTION_ARN]:
        raise UnknownPolicy(f"condition {condition}")
    return {"Fn::GetAtt": [function_id, "Arn"]} in _listed(condition["ArnEquals"][SOURCE_FUNCTION_ARN])


def _grants(statement: dict) -> Iterator[tuple[str, str]]:
    for action in _listed(statement["Action"]):
        for resource in _listed(statement["Resource"]):
            yield action, resource if resource == "*" else json.dumps(resource, sort_keys=True)


def allows(template: dict, function_id: str, action: str, resource: object) -> bool:
    """Whether a call of `action` on `resource` (a template expression) from this function's code is allowed: an
    Allow statement covers it and no Deny statement does."""
    wanted = json.dumps(resource, sort_keys=True)

    def covered(effect: str) -> bool:
        return any(
            fnmatch.fnmatchcase(action, pattern) and granted in ("*", wanted)
            for s in statements(template)
            if applies_to(s, function_id) and s["Effect"] == effect
            for pattern, granted in _grants(s)
        )

    return covered("Allow") and not covered("Deny")


def allowed_functions(template: dict, action: str, resource: object) -> set[str]:
    """The registry names of the functions that may call `action` on `resource`."""
    return {name for name, logical_id in functions(template).items() if allows(template, logical_id, action, resource)}


def secret(template: dict, prefix: str) -> dict:
    """A secret's Ref, by its logical id's prefix (e.g. "LeaderboardApiTokenSigningSecret")."""
    (found,) = [k for k in _resources(template, "AWS::SecretsManager::Secret") if k.startswith(prefix)]
    return {"Ref": found}


def table_arn(template: dict, prefix: str) -> dict:
    (found,) = [k for k in _resources(template, "AWS::DynamoDB::Table") if k.startswith(prefix)]
    return {"Fn::GetAtt": [found, "Arn"]}
