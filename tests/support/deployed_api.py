"""The REST API's deployed definition as a template holds it: the OpenAPI document in the RestApi's Body."""

from __future__ import annotations

from typing import Any

HTTP_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
ANY = "x-amazon-apigateway-any-method"


def rest_api_bodies(template_json: dict) -> dict[str, dict]:
    """Each REST API's imported document, by the API's logical id."""
    return {
        lid: r["Properties"]["Body"]
        for lid, r in template_json["Resources"].items()
        if r["Type"] == "AWS::ApiGateway::RestApi"
    }


def definition(template_json: dict) -> dict:
    """The one REST API's document."""
    (body,) = rest_api_bodies(template_json).values()
    return body


def methods(template_json: dict) -> dict[tuple[str, str], dict[str, Any]]:
    """(path, METHOD) -> its operation, ANY for the 405 mocks."""
    return {
        (path, "ANY" if key == ANY else key.upper()): op
        for path, ops in definition(template_json)["paths"].items()
        for key, op in ops.items()
        if key in HTTP_METHODS or key == ANY
    }


def integration_target(op: dict) -> str | None:
    """The logical id of the function a proxy integration invokes (Fn::GetAtt in its URI), None for mocks."""
    integration = op["x-amazon-apigateway-integration"]
    if integration["type"] != "aws_proxy":
        return None
    (target,) = [p for p in integration["uri"]["Fn::Join"][1] if isinstance(p, dict) and "Fn::GetAtt" in p]
    return target["Fn::GetAtt"][0]


def required_headers(op: dict) -> set[str]:
    return {p["name"] for p in op.get("parameters", []) if p["in"] == "header" and p.get("required")}


def needs_key(op: dict) -> bool:
    return any("api_key" in requirement for requirement in op.get("security", []))


def mock_answer(op: dict) -> dict:
    """A mock integration's one answer: statusCode, responseParameters (method.response.header.*), templates."""
    return op["x-amazon-apigateway-integration"]["responses"]["default"]
