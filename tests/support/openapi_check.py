"""Validate a real response against the OpenAPI document the API serves."""

from __future__ import annotations

from functools import cache

from jsonschema import Draft4Validator

from cdk_leaderboard_lambda.web import openapi

# Built once here (the API builds it per request): every check in a test process reads the same document.
DOCUMENT = openapi.document()


def _json_schema(node):
    """An OpenAPI 3.0 schema as plain JSON Schema draft 4: `nullable: true` becomes a type that allows null."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if k != "nullable"}
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def assert_matches_openapi(method: str, path_template: str, status: int, body: dict) -> None:
    doc = DOCUMENT
    assert doc["openapi"].startswith("3.0.")
    operation = doc["paths"][path_template][method.lower()]
    if status == 500 and "500" not in operation["responses"]:
        # Any operation may fail inside; the answer is then the generic error body and nothing more.
        assert body == {"error": "internal error"}, body
        return
    assert str(status) in operation["responses"], f"{method} {path_template} does not document status {status}"
    _validator(method.lower(), path_template, str(status)).validate(body)


@cache  # a test process's checks all read the same document: each response's validator is built once
def _validator(method: str, path_template: str, status: str) -> Draft4Validator:
    schema = DOCUMENT["paths"][path_template][method]["responses"][status]["content"]["application/json"]["schema"]
    return Draft4Validator(_json_schema({**schema, "components": DOCUMENT["components"]}))
