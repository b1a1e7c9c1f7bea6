"""The local gateway acts on the imported document in the synthesized template, not on a second reading of the route
table: a method's key requirement, required headers and integrated function come from the document."""

from __future__ import annotations

import dataclasses
import json

from local import template as tpl
from local.events import Request
from local.gateway import GatewayConfig, LocalGateway, routes_module

GAME_KEY = "g" * 40


def _gateway(deployed) -> tuple[LocalGateway, list[str]]:
    routes = routes_module()
    called: list[str] = []

    def handler_for(name):
        def handle(event, context):
            called.append(name)
            return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": json.dumps({})}

        return handle

    handlers = {fn.handler: handler_for(fn.handler) for fn in routes.FUNCTIONS}
    return LocalGateway(GatewayConfig(GAME_KEY, ("*",), deployed=deployed), handlers), called


def _get(gateway: LocalGateway, path: str, headers=()) -> int:
    status, _, _ = gateway.dispatch(Request("GET", path, [], list(headers), None))
    return status


def test_the_deployed_methods_are_read_from_the_templates_document(stack_template):
    deployed = tpl.deployed_methods(stack_template)
    routes = routes_module()
    assert set(deployed) == {(r.path, r.method) for r in routes.ROUTES}
    for route in routes.ROUTES:
        method = deployed[(route.path, route.method)]
        assert (method.needs_key, method.required_headers, method.handler) == (
            route.needs_key,
            route.required_headers,
            route.function.handler,
        )


def test_a_key_the_document_requires_is_required_and_one_it_drops_is_not(stack_template):
    deployed = tpl.deployed_methods(stack_template)
    gateway, called = _gateway(deployed)
    assert _get(gateway, "/leaderboards/race/pending") == 403  # an admin read: the document requires a key
    assert called == []
    key = ("/leaderboards/{board}/pending", "GET")
    opened = {**deployed, key: dataclasses.replace(deployed[key], needs_key=False)}
    gateway, called = _gateway(opened)
    assert _get(gateway, "/leaderboards/race/pending") == 200
    assert called == [deployed[key].handler]


def test_a_method_missing_from_the_document_answers_405(stack_template):
    deployed = dict(tpl.deployed_methods(stack_template))
    del deployed[("/leaderboard", "GET")]
    gateway, called = _gateway(deployed)
    assert _get(gateway, "/leaderboard") == 405 and called == []


def test_the_function_invoked_is_the_documents(stack_template):
    deployed = tpl.deployed_methods(stack_template)
    key = ("/leaderboard", "GET")
    other = next(m.handler for m in deployed.values() if m.handler != deployed[key].handler)
    gateway, called = _gateway({**deployed, key: dataclasses.replace(deployed[key], handler=other)})
    assert _get(gateway, "/leaderboard") == 200 and called == [other]
