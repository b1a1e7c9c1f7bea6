"""Least privilege per function on the one shared role: the role's statements evaluated WITH their
`lambda:SourceFunctionArn` conditions for each function (tests/support/role_access.py), so that a public read
function cannot read a token or API key, and only the erasure path can rewrite the snapshot archive.

The local stack has no IAM: these template tests are the only check of it (docs/SECURITY.md)."""

from __future__ import annotations

import copy
import json
import re

import pytest
from cdk_leaderboard import function_access
from cdk_leaderboard.paths import routes

from tests.support import role_access as access

GET, VERSIONS = "secretsmanager:GetSecretValue", "secretsmanager:ListSecretVersionIds"
SUBMIT, QUERY, STATS = routes.SCORE_SUBMIT.name, routes.LEADERBOARD_QUERY.name, routes.PLAYER_STATS.name
SNAPSHOT, SIMULATOR, ADMIN = (
    routes.LEADERBOARD_SNAPSHOT.name,
    routes.SCORE_SIMULATOR.name,
    routes.LEADERBOARD_ADMIN.name,
)
CLOSER = routes.PERIOD_CLOSER.name
BROADCASTER = routes.LIVE_BROADCASTER.name
AUTHORIZER = routes.LIVE_AUTHORIZER.name  # the Event API's: verifies live tokens, serves no REST route
EVERY = {f.name for f in routes.FUNCTIONS}
# The functions that serve public routes only: what the internet reaches without a key or a token.
PUBLIC_READ = (
    {f.name for f in routes.FUNCTIONS}
    - {r.function.name for r in routes.ROUTES if r.access != routes.PUBLIC}
    - {routes.RANK_COUNTER.name, routes.LIVE_BROADCASTER.name, CLOSER, AUTHORIZER}
)

# The table of docs/SECURITY.md ("Per function"), production: who may read each secret.
PROD_READERS = {
    "LeaderboardApiCursorSecret": EVERY,  # the digest key: player ids are hashed under it on most paths
    # issues and verifies player and run tokens, issues live tokens; the Event API's authorizer verifies those
    "LeaderboardApiTokenSigningSecret": {SUBMIT, AUTHORIZER},
    # the routes that take a page cursor, and the live top (live.read_top: a first page, its next_cursor signed)
    "LeaderboardApiCursorSigningSecret": {ADMIN, QUERY, STATS, BROADCASTER},
    "LeaderboardApiGameKeySecret": {SUBMIT},  # the game routes
    "LeaderboardApiAdminKeySecret": {ADMIN, SNAPSHOT, SIMULATOR},  # admin routes
    # receipts (score-submit: a player token or the game key), the JWKS (leaderboard-admin: the public halves come from
    # the seed's secret), closing summaries (on request: admin; on schedule: period-closer), signed again by an erasure
    "LeaderboardApiReceiptSigningSecret": {SUBMIT, ADMIN, CLOSER},
    # the edge's proof: the live token route trusts the viewer address the edge wrote only with it
    "LeaderboardApiEdgeProofSecret": {SUBMIT},
}


def _template(stage: str, dev_template_json: dict, prod_template_json: dict) -> dict:
    return dev_template_json if stage == "dev" else prod_template_json


def test_public_read_functions_are_the_two_expected():
    assert PUBLIC_READ == function_access.PUBLIC_READERS == {QUERY, STATS}


# Every action the role has on the scores table that changes an item (TransactWriteItems is authorized as the
# PutItem, UpdateItem and DeleteItem of its items; BatchWriteItem as itself).
SCORES_WRITES = ("dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem")


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_no_public_read_function_can_write_the_scores_table(stage, dev_template_json, prod_template_json):
    """leaderboard-query and player-stats answer anyone without a key: evaluated with the statements' conditions,
    they may read the scores table and its rank index but change no item of it; every other function keeps its
    writes (they all write it: submissions, boards, counters, live state, closings, idempotency records)."""
    template = _template(stage, dev_template_json, prod_template_json)
    scores = access.table_arn(template, "LeaderboardTablesScores")
    for action in SCORES_WRITES:
        assert access.allowed_functions(template, action, scores) == EVERY - PUBLIC_READ, action
    for action in ("dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"):
        assert access.allowed_functions(template, action, scores) == EVERY, action


def test_without_the_deny_the_public_read_functions_could_write(prod_template_json):
    """The check can fail: the same template without the deny statement lets them write (the role's own
    statement allows every function)."""
    template = copy.deepcopy(prod_template_json)
    for resource in template["Resources"].values():
        if resource["Type"] == "AWS::IAM::Policy":
            document = resource["Properties"]["PolicyDocument"]
            document["Statement"] = [s for s in document["Statement"] if s.get("Effect") != "Deny"]
    scores = access.table_arn(template, "LeaderboardTablesScores")
    assert access.allowed_functions(template, "dynamodb:PutItem", scores) == EVERY


def test_in_production_each_secret_is_read_by_exactly_the_functions_that_need_it(prod_template_json):
    found = {
        prefix: access.allowed_functions(prod_template_json, GET, access.secret(prod_template_json, prefix))
        for prefix in PROD_READERS
    }
    assert found == PROD_READERS
    # The rotating ones: also their versions (current and previous), for the same functions and no other.
    for prefix in ("TokenSigning", "CursorSigning", "GameKey", "AdminKey"):
        resource = access.secret(prod_template_json, f"LeaderboardApi{prefix}Secret")
        assert (
            access.allowed_functions(prod_template_json, VERSIONS, resource)
            == PROD_READERS[f"LeaderboardApi{prefix}Secret"]
        )


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_no_public_read_function_can_read_a_signing_or_api_key(stage, dev_template_json, prod_template_json):
    """leaderboard-query and player-stats answer anyone: they may not read the game or admin key's value, nor (in
    production, where page cursors and receipts have keys of their own) the key that signs player and run tokens or
    the one that signs receipts and summaries (the JWKS is served where that key is read anyway)."""
    template = _template(stage, dev_template_json, prod_template_json)
    kept = ["LeaderboardApiGameKeySecret", "LeaderboardApiAdminKeySecret"]
    if stage == "prod":
        kept += ["LeaderboardApiTokenSigningSecret", "LeaderboardApiReceiptSigningSecret"]
    for prefix in kept:
        assert not access.allowed_functions(template, GET, access.secret(template, prefix)) & PUBLIC_READ, prefix


def test_outside_production_the_token_secret_is_also_the_cursor_users_seed(dev_template_json):
    """Dev has no cursor secret (its idle budget): the cursor keys derive from the token secret's versions, so the
    functions of the cursor routes read it too (a known gap, docs/SECURITY.md). Exactly those, no more."""
    token = access.secret(dev_template_json, "LeaderboardApiTokenSigningSecret")
    assert access.allowed_functions(dev_template_json, GET, token) == {
        SUBMIT,
        ADMIN,
        QUERY,
        STATS,
        BROADCASTER,
        AUTHORIZER,
    }
    game = access.secret(dev_template_json, "LeaderboardApiGameKeySecret")
    admin = access.secret(dev_template_json, "LeaderboardApiAdminKeySecret")
    assert access.allowed_functions(dev_template_json, GET, game) == {SUBMIT}
    assert access.allowed_functions(dev_template_json, GET, admin) == {ADMIN, SNAPSHOT, SIMULATOR}


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_only_the_period_closer_may_renew_the_live_key(stage, dev_template_json, prod_template_json):
    """appsync:UpdateApiKey has no resource type (the Service Authorization Reference), so its statement names "*";
    the condition, evaluated, leaves it to the function that renews, and no other AppSync action to anyone but
    the broadcaster's publish."""
    template = _template(stage, dev_template_json, prod_template_json)
    key = "arn:aws:appsync:eu-west-1:111122223333:apis/any/apikeys/any"
    assert access.allowed_functions(template, "appsync:UpdateApiKey", key) == {CLOSER}
    for action in ("appsync:CreateApiKey", "appsync:DeleteApiKey", "appsync:ListApiKeys", "appsync:EventConnect"):
        assert access.allowed_functions(template, action, key) == set(), action


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_only_the_erasure_path_rewrites_the_snapshot_archive(stage, dev_template_json, prod_template_json):
    """Erasure (DELETE /players/{id} on leaderboard-admin, and period-closer going on with an erasure its caller
    left) scans the archive and rewrites the snapshots naming the player; nobody deletes one; appends are
    the snapshot route's and the closings' (PutItem: that they never overwrite is the code's attribute_not_exists,
    which IAM cannot require)."""
    template = _template(stage, dev_template_json, prod_template_json)
    archive = access.table_arn(template, "LeaderboardTablesSnapshots")
    assert access.allowed_functions(template, "dynamodb:UpdateItem", archive) == {ADMIN, CLOSER}
    assert access.allowed_functions(template, "dynamodb:Scan", archive) == {ADMIN, CLOSER}
    assert access.allowed_functions(template, "dynamodb:DeleteItem", archive) == set()
    assert access.allowed_functions(template, "dynamodb:BatchWriteItem", archive) == set()
    assert access.allowed_functions(template, "dynamodb:PutItem", archive) == {SNAPSHOT, ADMIN, CLOSER}
    assert access.allowed_functions(template, "dynamodb:Query", archive) == {SNAPSHOT}


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_a_function_is_told_a_key_class_secret_exactly_when_it_serves_that_class(
    stage, dev_template_json, prod_template_json
):
    """A function given a class's secret compares keys of that class (http._check_key skips a class it is not
    told of) and would read it to refuse a key of the other class (api_key_classes.KeyClasses.is_of): each function
    is told the secrets of the classes of its routes, which it may read, and no other."""
    template = _template(stage, dev_template_json, prod_template_json)
    ids = access.functions(template)
    for variable, prefix, accesses in (
        ("GAME_KEY_SECRET_ARN", "LeaderboardApiGameKeySecret", (routes.GAME,)),
        ("ADMIN_KEY_SECRET_ARN", "LeaderboardApiAdminKeySecret", (routes.ADMIN,)),
    ):
        serving = {r.function.name for r in routes.ROUTES if r.access in accesses}
        told = {
            name
            for name, logical_id in ids.items()
            if variable in template["Resources"][logical_id]["Properties"]["Environment"]["Variables"]
        }
        assert told == serving == access.allowed_functions(template, GET, access.secret(template, prefix)), variable


def test_the_scoped_grants_are_attached_after_the_functions_and_before_traffic(prod_template_json):
    """The scoped policy names the functions' ARNs, so it follows them (their ARNs in the role's inline policy
    would be a cycle); the stage and the closer's schedule, which start calling them, wait for it."""
    resources = prod_template_json["Resources"]
    (policy_id,) = [
        k
        for k, r in resources.items()
        if r["Type"] == "AWS::IAM::Policy" and k.startswith("LeaderboardApiFunctionScopedPolicy")
    ]
    for logical_id in access.functions(prod_template_json).values():
        assert policy_id not in json.dumps(resources[logical_id]), logical_id
    dependants = {k for k, r in resources.items() if policy_id in r.get("DependsOn", [])}
    assert {resources[k]["Type"] for k in dependants} >= {"AWS::ApiGateway::Stage", "AWS::Events::Rule"}
    assert _acyclic(resources)


def _acyclic(resources: dict[str, dict]) -> bool:
    """No dependency cycle among the resources (Ref, GetAtt, Sub and DependsOn): CloudFormation refuses one."""
    graph = {k: {d for d in _dependencies(r) if d in resources} for k, r in resources.items()}
    done: set[str] = set()
    for start in graph:
        stack, on_path = [(start, iter(graph[start]))], {start}
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.discard(node)
                done.add(node)
            elif child in on_path:
                return False
            elif child not in done:
                stack.append((child, iter(graph[child])))
                on_path.add(child)
    return True


def _dependencies(resource: dict) -> set[str]:
    found = set(resource.get("DependsOn", []))

    def walk(value: object) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                if key == "Ref" and isinstance(inner, str):
                    found.add(inner)
                elif key == "Fn::GetAtt":
                    found.add(inner[0] if isinstance(inner, list) else inner.split(".")[0])
                elif key == "Fn::Sub":
                    text = inner if isinstance(inner, str) else inner[0]
                    found.update(part.split(".")[0] for part in _sub_names(text))
                    if isinstance(inner, list):
                        walk(inner[1])
                else:
                    walk(inner)
        elif isinstance(value, list):
            for inner in value:
                walk(inner)

    walk(resource.get("Properties", {}))
    return found


def _sub_names(text: str) -> list[str]:
    return re.findall(r"\$\{([^}!][^}]*)\}", text)


# IAM's limit on a role's inline policies, all together (the role's own and each AWS::IAM::Policy attached to it),
# counted without whitespace.
ROLE_INLINE_POLICY_CHARS = 10_240
# The longest ARNs a deployment may have: a long region name, a function name at Lambda's 64-character limit.
LONG_ARN = "arn:aws:lambda:ap-southeast-2:123456789012:function:" + "f" * 64


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_the_roles_inline_policies_fit_iams_limit_with_long_names(stage, dev_template_json, prod_template_json):
    """Each function's ARN in the conditions costs characters: with every reference as long as an ARN gets (an
    estimate), the role's inline policies stay under IAM's 10,240 (8,583 in production, 7,956 in dev today)."""
    template = _template(stage, dev_template_json, prod_template_json)
    role_id = access.role_id(template)
    documents = [p["PolicyDocument"] for p in template["Resources"][role_id]["Properties"]["Policies"]] + [
        r["Properties"]["PolicyDocument"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::IAM::Policy" and {"Ref": role_id} in r["Properties"]["Roles"]
    ]
    size = sum(len(json.dumps(_as_long_arns(d), separators=(",", ":"))) for d in documents)
    assert size < ROLE_INLINE_POLICY_CHARS


def _as_long_arns(value: object) -> object:
    if isinstance(value, dict):
        if {"Ref", "Fn::GetAtt", "Fn::Join", "Fn::Sub"} & set(value):
            return LONG_ARN
        return {k: _as_long_arns(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_long_arns(v) for v in value]
    return value
