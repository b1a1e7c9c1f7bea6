"""The REST API as one imported document: what a leaderboard costs in CloudFormation resources, that a route costs
none, that the deployed definition and the served /openapi.json agree operation by operation, and the update of a
stack deployed by the previous release (resources and methods) to the imported document."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

import cdk_leaderboard_lambda.web.routes as routes_package
import cdk_leaderboard_lambda.web.routes.table as routes_table
from cdk_leaderboard_lambda.web import openapi, routes
from stacks.app_builder import build_app, stack_name
from tests.infra.update_plan import plan
from tests.support import deployed_api

# Three production leaderboards fit one stack of CloudFormation's 500, and five dev-like ones.
DEV_CEILING, PROD_CEILING = 125, 166
PREVIOUS_RELEASE = Path(__file__).with_name("previous_release")
API_GATEWAY_PER_ROUTE = ("Resource", "Method", "Model", "RequestValidator", "GatewayResponse")


def test_a_leaderboard_fits_its_resource_ceilings(dev_template_json, prod_template_json):
    assert len(dev_template_json["Resources"]) <= DEV_CEILING
    assert len(prod_template_json["Resources"]) <= PROD_CEILING
    assert 500 // len(prod_template_json["Resources"]) >= 3


def _lean_resource_count(tmp: Path, name: str) -> tuple[int, dict]:
    stage = {"dashboard": False, "edge": False, "monitoring": {"enabled": False}}
    app = build_app("lean", context={"stages": {"lean": stage}}, nag=False, outdir=str(tmp / name))
    template = app.synth().get_stack_by_name(stack_name("lean")).template
    return len(template["Resources"]), deployed_api.definition(template)


def test_a_new_route_adds_no_resource(tmp_path, monkeypatch):
    """A copy of the route table with one more route (a new path under a board): the same number of resources, and
    the new route in the imported document with its preflight and 405 mock."""
    before, _ = _lean_resource_count(tmp_path, "before")
    extra = routes.Route(
        "GET",
        "/leaderboards/{board}/clans",
        routes.LEADERBOARD_QUERY,
        "get_clans",
        routes.PUBLIC,
        (200, "Board"),
        summary="a route that is not there",
    )
    table = (*routes.ROUTES, extra)
    monkeypatch.setattr(routes_package, "ROUTES", table)  # what the stack reads
    monkeypatch.setattr(routes_table, "ROUTES", table)  # what the documents' walk reads
    after, body = _lean_resource_count(tmp_path, "after")
    assert after == before
    assert {"get", "options", deployed_api.ANY} <= set(body["paths"]["/leaderboards/{board}/clans"])


def _credential(served_op: dict) -> str:
    """What a served operation asks of its caller: "key", "bearer" or "none"."""
    schemes = {name for requirement in served_op.get("security", []) for name in requirement}
    if schemes & {"gameKey", "adminKey"}:
        return "key"
    return "bearer" if schemes & {"playerToken", "runToken"} else "none"


def _deployed_credential(op: dict) -> str:
    if deployed_api.needs_key(op):
        return "key"
    return "bearer" if "Authorization" in deployed_api.required_headers(op) else "none"


def test_the_deployed_definition_and_the_served_document_agree(dev_template_json):
    """Operation by operation: the same methods on the same paths, the same operation ids, the same function, the
    same credential (an API key at API Gateway for a key scheme, the Authorization header for a bearer one), and a
    CORS preflight and a 405 answer on every path naming exactly the path's methods."""
    served = openapi.document()["paths"]
    deployed = deployed_api.definition(dev_template_json)["paths"]
    handlers = {
        lid: r["Properties"]["Handler"]
        for lid, r in dev_template_json["Resources"].items()
        if r["Type"] == "AWS::Lambda::Function"
    }
    functions = {f.handler: f.name for f in routes.FUNCTIONS}
    assert set(served) == set(deployed)
    for path, served_ops in served.items():
        ops = deployed[path]
        verbs = {m for m in served_ops if m in deployed_api.HTTP_METHODS}
        assert {m for m in ops if m in deployed_api.HTTP_METHODS} == verbs | {"options"}, path
        for verb in verbs:
            mine, theirs = served_ops[verb], ops[verb]
            assert theirs["operationId"] == mine["operationId"], (path, verb)
            assert functions[handlers[deployed_api.integration_target(theirs)]] == mine["x-function"], (path, verb)
            assert _deployed_credential(theirs) == _credential(mine), (path, verb)
        methods = ",".join(sorted(m.upper() for m in verbs | {"options"}))
        preflight = deployed_api.mock_answer(ops["options"])["responseParameters"]
        allowed = set(preflight["method.response.header.Access-Control-Allow-Methods"].strip("'").split(","))
        assert {m.upper() for m in verbs} <= allowed, path
        answer = deployed_api.mock_answer(ops[deployed_api.ANY])["responseParameters"]
        assert answer["method.response.header.Allow"].strip("'").replace(" ", "") == methods, path


def _previous(stage: str) -> dict:
    with gzip.open(PREVIOUS_RELEASE / f"{stage}.template.json.gz", "rt") as handle:
        return json.load(handle)


@pytest.mark.parametrize("stage", ["dev", "prod"])
def test_the_update_from_the_previous_release(stage, request):
    """A stack deployed with resources and methods updates to the imported document: the REST API, its stage, keys
    and usage plans are updated in place (same ids, the same URL), a new deployment is created (after the API has
    imported the document, on which it depends) and the stage moves to it; the old resources, methods, models,
    validator, gateway responses and deployment go in the cleanup phase, after the stage serves the new
    deployment. No stateful resource changes, and nothing is refused: the dashboard's subnet, which a VPC origin's
    interface is in, is kept (its move to a zone by ID came in an earlier release; a subnet deleted under a VPC
    origin is a refusal, update_plan.py)."""
    before, after = _previous(stage), request.getfixturevalue(f"{stage}_template_json")
    update = plan(before, after)
    assert not update.refusals()
    by_type: dict[str, dict[str, set[str]]] = {}
    for change in update.changes.values():
        by_type.setdefault(change.type, {}).setdefault(change.action, set()).add(change.logical_id)
    (api,) = [lid for lid, r in after["Resources"].items() if r["Type"] == "AWS::ApiGateway::RestApi"]
    assert update.changes[api].action == "update"
    assert after["Resources"][api]["Properties"]["Mode"] == "overwrite"  # the old methods do not linger (merge)
    (stage_id,) = [lid for lid, r in after["Resources"].items() if r["Type"] == "AWS::ApiGateway::Stage"]
    assert update.changes[stage_id].action == "update" and stage_id in before["Resources"]
    assert by_type["AWS::ApiGateway::Deployment"].keys() == {"create", "delete"}
    (deployment,) = by_type["AWS::ApiGateway::Deployment"]["create"]
    assert after["Resources"][deployment]["Properties"]["RestApiId"] == {"Ref": api}
    for kind in API_GATEWAY_PER_ROUTE:
        assert set(by_type[f"AWS::ApiGateway::{kind}"]) == {"delete"}, kind
    kept = ("AWS::ApiGateway::ApiKey", "AWS::ApiGateway::UsagePlan", "AWS::ApiGateway::UsagePlanKey")
    for kind in ("AWS::DynamoDB::Table", "AWS::SecretsManager::Secret", *kept):
        assert not {a for a in by_type.get(kind, {}) if a in ("replace", "delete", "create")}, kind
    assert not {c.logical_id for c in update.changes.values() if c.action == "replace"}
    subnets = {lid for lid, r in before["Resources"].items() if r["Type"] == "AWS::EC2::Subnet"}
    assert subnets and subnets <= set(after["Resources"])
    assert not {s for s in subnets if s in update.changes and update.changes[s].action in ("delete", "replace")}


def test_the_previous_release_is_the_resource_per_route_api():
    """The fixture is what it says: the release before the imported document, a Method per route."""
    previous = _previous("dev")
    methods = [r for r in previous["Resources"].values() if r["Type"] == "AWS::ApiGateway::Method"]
    assert len(methods) > len(routes.ROUTES)
    assert not [r for r in previous["Resources"].values() if "Body" in r.get("Properties", {})]
