"""Request body validation as API Gateway does it: the route table's JSON Schema (draft 4) models.

API Gateway validates bodies before the handler runs; the local gateway does the same with the
jsonschema library, so both answer bad input alike.
"""

from __future__ import annotations

from jsonschema import Draft4Validator


def errors(value, schema: dict) -> list[str]:
    """Every way value breaks schema, as readable strings; [] when it conforms."""
    found = sorted(Draft4Validator(schema).iter_errors(value), key=lambda e: list(e.absolute_path))
    return [f"{'/'.join(map(str, e.absolute_path)) or 'body'}: {e.message}" for e in found]
