"""The quarantine's routes and event in the template: the review queue and board changes are admin
methods that require an API key at API Gateway; the submitting function may put the Leaderboard Score Pending
event on the stack's bus (its name in its environment, events:PutEvents on that bus in the shared role)."""

from __future__ import annotations

from cdk_leaderboard_lambda.web import routes
from tests.support import deployed_api

NEW_ROUTES = {
    ("PATCH", "/leaderboards/{board}"),
    ("GET", "/leaderboards/{board}/pending"),
    ("POST", "/leaderboards/{board}/pending/{pending_id}/approve"),
    ("POST", "/leaderboards/{board}/pending/{pending_id}/reject"),
}


def _of_type(template: dict, kind: str) -> dict[str, dict]:
    return {k: r for k, r in template["Resources"].items() if r["Type"] == kind}


def test_the_review_routes_and_the_board_change_are_admin_methods_with_a_key(dev_template_json):
    methods = deployed_api.methods(dev_template_json)
    for method, path in NEW_ROUTES:
        route, _, _ = routes.match_route(method, path)
        assert route is not None and route.access == routes.ADMIN and route.function is routes.LEADERBOARD_ADMIN
        assert deployed_api.needs_key(methods[(path, method)]), (method, path)


def test_the_board_change_has_its_request_model(dev_template_json):
    patch = deployed_api.methods(dev_template_json)[("/leaderboards/{board}", "PATCH")]
    ref = patch["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    schemas = deployed_api.definition(dev_template_json)["components"]["schemas"]
    model = schemas[ref.removeprefix("#/components/schemas/")]
    assert (
        set(model["properties"]) == {"rules", "submissions", "max_open_runs"} and model["additionalProperties"] is False
    )
    assert set(model["properties"]["rules"]["properties"]) == {
        "min_run_seconds",
        "max_score_per_second",
        "max_score",
        "max_improvement",
        "max_over_leader",
    }


def test_the_submitting_function_may_put_the_pending_event_on_the_stacks_bus(dev_template_json):
    (bus,) = _of_type(dev_template_json, "AWS::Events::EventBus")
    submit = [
        f["Properties"]
        for f in _of_type(dev_template_json, "AWS::Lambda::Function").values()
        if f["Properties"].get("Handler") == routes.SCORE_SUBMIT.handler
    ]
    assert len(submit) == 1 and submit[0]["Environment"]["Variables"]["EVENT_BUS_NAME"] == {"Ref": bus}
    role = submit[0]["Role"]["Fn::GetAtt"][0]
    granted = [
        s
        for p in _of_type(dev_template_json, "AWS::IAM::Policy").values()
        if {"Ref": role} in p["Properties"]["Roles"]
        for s in p["Properties"]["PolicyDocument"]["Statement"]
        if "events:PutEvents" in (s["Action"] if isinstance(s["Action"], list) else [s["Action"]])
    ]
    assert [s["Resource"] for s in granted] == [{"Fn::GetAtt": [bus, "Arn"]}]
