"""The API Gateway definition of the REST API: the OpenAPI 3.0 document API Gateway imports as the REST API's body
(the stack's SpecRestApi), generated from the route table by the same walk as the served document (openapi.py):
routes.route_operations. It imports nothing but the route table, so the construct can build it without boto3.

It holds what API Gateway acts on and nothing for readers: a Lambda proxy integration per route, the API key on the
keyed routes (the `api_key` scheme API Gateway recognises; which key class a route takes is the usage plans' and the
function's to tell), the bearer routes' required Authorization header, the body models with the request validator,
a CORS preflight mock and a 405 mock on every path, and API Gateway's own error answers. Descriptions, response
schemas and examples stay in the served document: a template body is limited in size.

Pure data: the caller hands in each function's invocation URI (a CloudFormation intrinsic in the stack, a string
in tests and locally).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..shared.frozen import thaw
from . import routes
from .routes import OPENAPI_VERSION, route_operations

API_KEY_SCHEME = "api_key"  # the name API Gateway's importer reads as "API key required"
VALIDATOR = "body-and-parameters"
# OpenAPI 3.0's schema object has no `dependencies` (JSON Schema draft 4 has): the deployed models leave it out rather
# than trust an importer to drop it; the function checks those rules on every body (web/validation.py) regardless.
UNSUPPORTED_SCHEMA_KEYWORDS = ("dependencies",)
# The gateway responses: the errors API Gateway answers itself, JSON {"error"} with CORS headers as the handlers'.
FIXED_GATEWAY_ERRORS = (
    ("INVALID_API_KEY", routes.INVALID_API_KEY),
    ("MISSING_AUTHENTICATION_TOKEN", routes.UNKNOWN_ROUTE),
    # API Gateway's request validator on a required header that is absent or blank: only the bearer routes'
    # Authorization is required anywhere, so this always means "no credential" (RFC 6750's 401 with a challenge).
    ("BAD_REQUEST_PARAMETERS", routes.MISSING_CREDENTIALS),
)
PASSED_ON_GATEWAY_ERRORS = ("DEFAULT_4XX", "DEFAULT_5XX")  # $context.error.messageString is already quoted for JSON


def model_name(route: routes.Route) -> str:
    """A body's model name (API Gateway takes letters and digits): after the first route that takes the body, the
    routes that share a body sharing its model. /leaderboards/{board}/scores -> LeaderboardsBoardScoresBody."""
    first = next(r for r in routes.ROUTES if r.body is route.body)
    return "".join(word.capitalize() for word in re.findall(r"[A-Za-z0-9]+", first.path)) + "Body"


def _model(schema: Any) -> Any:
    """A body's JSON Schema as a deployed model: without the keywords OpenAPI 3.0 does not have."""
    if not isinstance(schema, dict):
        return schema
    model = {}
    for key, value in schema.items():
        if key in UNSUPPORTED_SCHEMA_KEYWORDS:
            continue
        if key == "properties":
            model[key] = {name: _model(s) for name, s in value.items()}
        elif key in ("items", "not", "additionalProperties"):
            model[key] = _model(value)
        else:
            model[key] = value
    return model


def allow_origin(cors_origins: Sequence[str]) -> str:
    """The static Access-Control-Allow-Origin of mock and gateway answers: "*" or the first allowed origin."""
    return "*" if "*" in cors_origins else cors_origins[0]


def _quoted(value: str) -> str:
    return f"'{value}'"


def _mock(status: int, headers: Mapping[str, str], template: str | None) -> dict:
    """A mock integration answering `status` with static `headers` (and a response template), and its method
    response declaring those headers."""
    answer: dict[str, Any] = {
        "statusCode": str(status),
        "responseParameters": {f"method.response.header.{h}": v for h, v in headers.items()},
    }
    if template is not None:
        answer["responseTemplates"] = {"application/json": template}
    return {
        "responses": {
            str(status): {"description": "", "headers": {h: {"schema": {"type": "string"}} for h in headers}}
        },
        "x-amazon-apigateway-integration": {
            "type": "mock",
            "requestTemplates": {"application/json": json.dumps({"statusCode": status})},
            "passthroughBehavior": "when_no_match",
            "responses": {"default": answer},
        },
    }


def _preflight(cors_origins: Sequence[str], cors_headers: Sequence[str], max_age_seconds: int) -> dict:
    """The CORS preflight of a path: 204, every method the API takes, the headers callers send. With several allowed
    origins, the response template echoes a listed Origin (the first is the static answer)."""
    first = allow_origin(cors_origins)
    headers = {
        "Access-Control-Allow-Headers": _quoted(",".join(cors_headers)),
        "Access-Control-Allow-Origin": _quoted(first),
        "Access-Control-Allow-Methods": _quoted(",".join(sorted({r.method for r in routes.ROUTES} | {"OPTIONS"}))),
        "Access-Control-Max-Age": _quoted(str(max_age_seconds)),
    }
    if first != "*":
        headers["Vary"] = _quoted("Origin")
    template = None
    others = [o for o in cors_origins if o != first]
    if others:
        condition = " || ".join(f'$origin == "{o}"' for o in others)
        template = "\n".join(
            [
                '#set($origin = $input.params().header.get("Origin"))',
                '#if($origin == "")',
                '  #set($origin = $input.params().header.get("origin"))',
                "#end",
                f"#if({condition})",
                "  #set($context.responseOverride.header.Access-Control-Allow-Origin = $origin)",
                "#end",
            ]
        )
    return _mock(204, headers, template)


def _method_not_allowed(path: str, cors_origins: Sequence[str]) -> dict:
    """ANY on a route's path answers 405 with the path's methods in `Allow` (RFC 9110), for the methods the route
    table does not define (API Gateway prefers a defined method over ANY)."""
    allowed = ", ".join(sorted({r.method for r in routes.ROUTES if r.path == path} | {"OPTIONS"}))
    headers = {"Access-Control-Allow-Origin": _quoted(allow_origin(cors_origins)), "Allow": _quoted(allowed)}
    return _mock(routes.METHOD_NOT_ALLOWED.status, headers, json.dumps({"error": routes.METHOD_NOT_ALLOWED.message}))


def _gateway_responses(cors_origins: Sequence[str]) -> dict:
    headers = {
        "gatewayresponse.header.Access-Control-Allow-Origin": _quoted(allow_origin(cors_origins)),
        "gatewayresponse.header.Vary": _quoted("Origin"),
    }
    challenge = {f"gatewayresponse.header.{routes.BEARER_CHALLENGE[0]}": _quoted(routes.BEARER_CHALLENGE[1])}
    answers: dict[str, dict] = {
        kind: {
            "statusCode": error.status,
            "responseParameters": {**headers, **(challenge if error is routes.MISSING_CREDENTIALS else {})},
            "responseTemplates": {"application/json": json.dumps({"error": error.message})},
        }
        for kind, error in FIXED_GATEWAY_ERRORS
    }
    for kind in PASSED_ON_GATEWAY_ERRORS:
        answers[kind] = {
            "responseParameters": headers,
            "responseTemplates": {"application/json": '{"error": $context.error.messageString}'},
        }
    return answers


def definition(
    *,
    title: str,
    integration_uris: Mapping[str, Any],
    cors_origins: Sequence[str],
    cors_headers: Sequence[str],
    cors_max_age_seconds: int,
) -> dict:
    """The definition API Gateway imports. `integration_uris`: each function's invocation URI, by function name."""
    paths: dict[str, dict] = {}
    models: dict[str, Any] = {}
    for path, method, route, operation in route_operations():
        op: dict[str, Any] = {"operationId": operation["operationId"], "responses": {}}
        params = [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in route.path_params]
        # Only the bearer routes' credential header is required at API Gateway: required query parameters are the
        # function's to check (a 400 naming them), so BAD_REQUEST_PARAMETERS means "no credential" alone.
        params += [
            {"name": h, "in": "header", "required": True, "schema": {"type": "string"}} for h in route.required_headers
        ]
        if params:
            op["parameters"] = params
        if route.needs_key:
            op["security"] = [{API_KEY_SCHEME: []}]
        if route.body is not None:
            name = model_name(route)
            models[name] = _model(thaw(route.body.schema))
            op["requestBody"] = {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{name}"}}}}
        op["x-amazon-apigateway-request-validator"] = VALIDATOR
        op["x-amazon-apigateway-integration"] = {
            "type": "aws_proxy",
            "httpMethod": "POST",
            "uri": integration_uris[route.function.name],
            "passthroughBehavior": "when_no_match",
        }
        paths.setdefault(path, {})[method] = op
    preflight = _preflight(cors_origins, cors_headers, cors_max_age_seconds)  # the same on every path
    for path, ops in paths.items():
        ops["options"] = preflight
        ops["x-amazon-apigateway-any-method"] = _method_not_allowed(path, cors_origins)
    return {
        "openapi": OPENAPI_VERSION,
        "info": {"title": title, "version": "1.0.0", "description": "Real-time leaderboard API"},
        "paths": paths,
        "components": {
            "schemas": models,
            "securitySchemes": {API_KEY_SCHEME: {"type": "apiKey", "name": "x-api-key", "in": "header"}},
        },
        "x-amazon-apigateway-api-key-source": "HEADER",
        "x-amazon-apigateway-request-validators": {
            VALIDATOR: {"validateRequestBody": True, "validateRequestParameters": True}
        },
        "x-amazon-apigateway-gateway-responses": _gateway_responses(cors_origins),
    }
