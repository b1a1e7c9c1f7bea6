"""Validate a real response against the OpenAPI document the API serves."""

from __future__ import annotations

from jsonschema import Draft202012Validator

from leaderboard import openapi


def assert_matches_openapi(method: str, path_template: str, status: int, body: dict) -> None:
    doc = openapi.document()
    operation = doc["paths"][path_template][method.lower()]
    assert str(status) in operation["responses"], f"{method} {path_template} does not document status {status}"
    schema = operation["responses"][str(status)]["content"]["application/json"]["schema"]
    Draft202012Validator({**schema, "components": doc["components"]}).validate(body)
