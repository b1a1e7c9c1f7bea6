"""The OpenAPI document is built on demand from the route table: no module of the HTTP side keeps it (or anything
else) in a process-wide cache."""

from __future__ import annotations

import functools
import importlib
import pkgutil

from cdk_leaderboard_lambda.shared import limits
from cdk_leaderboard_lambda.web import openapi, routes

HTTP_SIDE = [
    "cdk_leaderboard_lambda.web.openapi",
    "cdk_leaderboard_lambda.web.routes",
    "cdk_leaderboard_lambda.web.validation",
    "cdk_leaderboard_lambda.web.http",
] + [f"cdk_leaderboard_lambda.web.routes.{m.name}" for m in pkgutil.iter_modules(routes.__path__)]


def test_the_document_is_built_anew_on_each_call_and_is_the_same_document():
    first, second = openapi.document(), openapi.document()
    assert first == second and first is not second


def test_no_module_of_the_route_table_or_the_document_holds_a_cache():
    for name in HTTP_SIDE:
        module = importlib.import_module(name)
        cached = [
            attr
            for attr, value in vars(module).items()
            if getattr(value, "__module__", None) == name  # defined here, not imported from elsewhere
            and (isinstance(value, functools._lru_cache_wrapper) or hasattr(value, "cache_clear"))
        ]
        assert cached == [], f"{name}: {cached}"


def test_the_routes_whose_transaction_another_can_cancel_document_their_503_with_retry_after():
    paths = openapi.document()["paths"]
    busy = {
        (method.upper(), path)
        for path, operations in paths.items()
        for method, operation in operations.items()
        if "503" in operation["responses"]
    }
    assert busy == {
        ("POST", "/leaderboards/{board}/pending/{pending_id}/approve"),
        ("POST", "/leaderboards/{board}/pending/{pending_id}/reject"),
        ("POST", "/leaderboards/{board}/runs"),
        ("POST", "/leaderboards/{board}/runs/{run_id}/score"),
        ("POST", "/leaderboards/{board}/scores"),
    }
    for method, path in busy:
        answer = paths[path][method.lower()]["responses"]["503"]
        assert answer["headers"]["Retry-After"]["schema"]["type"] == "integer"
        assert answer["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/Error"}
        assert "TransactionConflict" in answer["description"]


def test_every_operation_documents_414_with_no_body_it_must_match():
    """CloudFront (past 8,192 bytes of URL), Nginx and the local gateway answer 414 before any function, each in its
    own format: every operation declares it, without a content type the answer would have to match."""
    for path, operations in openapi.document()["paths"].items():
        for method, operation in operations.items():
            assert "content" not in operation["responses"]["414"], f"{method.upper()} {path}"


def test_422_is_documented_for_the_rules_json_schema_cannot_state():
    """A request of the document's shape refused by a rule stated in words is a 422 the document declares, on
    every operation; the cursor's shape is the pattern the API checks (cursors.read), and its description says
    what a well-shaped cursor the API did not issue gets."""
    document = openapi.document()
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            described = operation["responses"]["422"]["description"]
            assert "cursor" in described and "tiers sharing a name" in described, f"{method.upper()} {path}"
            for parameter in operation.get("parameters", []):
                if parameter["name"] == "cursor":
                    assert parameter["schema"]["pattern"] == limits.CURSOR_PATTERN
                    assert "is a 422" in parameter["schema"]["description"]
