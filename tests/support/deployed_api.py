"""The REST API's deployed definition as a template holds it: the OpenAPI document in the RestApi's Body, read
with the local gateway's own readers (local/template.py)."""

from __future__ import annotations

from typing import Any

from local.template import api_definition as definition
from local.template import integration_target, needs_key, required_headers

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
ANY = "x-amazon-apigateway-any-method"

__all__ = ["ANY", "HTTP_METHODS", "definition", "integration_target", "methods", "mock_answer", "needs_key",
           "required_headers"]  # fmt: skip


def methods(template_json: dict) -> dict[tuple[str, str], dict[str, Any]]:
    """(path, METHOD) -> its operation, ANY for the 405 mocks."""
    return {
        (path, "ANY" if key == ANY else key.upper()): op
        for path, ops in definition(template_json)["paths"].items()
        for key, op in ops.items()
        if key in HTTP_METHODS or key == ANY
    }


def mock_answer(op: dict) -> dict:
    """A mock integration's one answer: statusCode, responseParameters (method.response.header.*), templates."""
    return op["x-amazon-apigateway-integration"]["responses"]["default"]
