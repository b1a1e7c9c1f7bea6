"""One model per request body (web/routes/bodies.py): API Gateway's request model, the OpenAPI document's requestBody
and the fields the handler takes are the same object, so a field changes in one place."""

from __future__ import annotations

import json

import pytest

from cdk_leaderboard_lambda.web import openapi, routes
from tests.support.lambda_api import call

BODY_ROUTES = [r for r in routes.ROUTES if r.body is not None]


def test_every_body_is_a_closed_model_that_the_document_and_the_stack_read():
    assert {r.operation for r in BODY_ROUTES} == {"default_board_submit", "take", "simulate", "create"} | {
        "board_score",
        "run_score",
        "bulk",
        "issue_token",
        "update",
    }
    document = openapi.document()
    for route in BODY_ROUTES:
        assert route.body is not None and route.body_schema is route.body.schema
        assert route.body.schema["additionalProperties"] is False
        assert route.body.fields == set(route.body.schema["properties"])
        shown = document["paths"][route.path][route.method.lower()]["requestBody"]["content"]["application/json"]
        assert type(shown["schema"]) is dict and shown["schema"] == routes.thaw(route.body.schema)  # plain JSON


def test_a_body_model_is_a_constant_that_nobody_can_change():
    """Frozen when made (frozen.freeze): a model is no process state that one caller could change for the next."""
    for route in BODY_ROUTES:
        assert route.body is not None
        with pytest.raises(TypeError):
            route.body.schema["properties"]["extra"] = {"type": "string"}  # type: ignore[index]
        assert isinstance(route.body.schema.get("required", ()), tuple)


@pytest.mark.parametrize(
    ("path", "model", "field", "body"),
    [
        ("/scores", routes.SCORE_BODY, "player_name", {"player_id": "p", "score": 1, "player_name": "P"}),
        (
            "/leaderboards/global/scores",
            routes.BOARD_SCORE_BODY,
            "metadata",
            {"player_id": "p", "score": 1, "metadata": {}},
        ),
        (
            "/leaderboards/global/scores/bulk",
            routes.BULK_BODY,
            "entries",
            {"entries": [{"player_id": "p", "score": 1}]},
        ),
        ("/players/p/tokens", routes.TOKEN_BODY, "ttl_seconds", {"ttl_seconds": 600}),
        ("/snapshot", routes.SNAPSHOT_BODY, "limit", {"limit": 5}),
        ("/simulate", routes.SIMULATE_BODY, "players", {"players": 2}),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_the_handler_takes_exactly_the_fields_of_its_model(ddb, monkeypatch, path, model, field, body):
    """A valid body passes; with the field taken out of the model (and nowhere else), the handler refuses it."""
    assert call("POST", path, body=body, check_contract=False).status < 300
    (name,) = [name for name, value in vars(routes).items() if value is model]
    properties = {k: v for k, v in model.schema["properties"].items() if k != field}
    monkeypatch.setattr(routes, name, routes.Body({**model.schema, "properties": properties}))
    reply = call("POST", path, body=body, check_contract=False)
    assert (reply.status, reply.body) == (400, {"error": f"unknown field(s): {field}"})


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ({"board_id": "b1", "periods": ["daily"]}, None),
        ({"board_id": "b1", "periods": ["daily", "daily"]}, "periods: ['daily', 'daily'] has non-unique elements"),
        ({"board_id": "b1", "periods": ["hourly"]}, "periods/0: 'hourly' is not one of"),
        ({"board_id": "b1", "starts_at": "2026-12-01T18:00:00Z"}, "body: 'ends_at' is a required property"),
    ],
)
def test_the_local_gateway_validates_with_the_frozen_model_as_json(body, problem):
    """Its jsonschema validator reads arrays only as lists: the gateway hands it the model thawed (routes.thaw)."""
    from local.events import Request
    from local.gateway import LocalGateway

    route, _, _ = routes.match_route("POST", "/leaderboards")
    found = LocalGateway._body_problem(route, Request("POST", "/leaderboards", [], [], json.dumps(body).encode()))
    assert found == problem if problem is None else found is not None and found.startswith(problem)
