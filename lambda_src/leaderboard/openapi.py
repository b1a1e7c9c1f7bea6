"""The OpenAPI 3.1 document, generated from the route table plus the response schemas below.

Served at GET /openapi.json; the tests validate real responses against it.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from . import routes

_INT = {"type": "integer"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}


def _obj(required: dict[str, Any], optional: dict[str, Any] | None = None) -> dict:
    return {
        "type": "object",
        "required": list(required),
        "properties": {**required, **(optional or {})},
    }


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/schemas/{name}"}


SCHEMAS: dict[str, dict] = {
    "Error": _obj({"error": _STR}),
    "Entry": _obj(
        {"rank": _INT, "player_id": _STR, "player_name": _STR, "score": _INT},
        {"metadata": {"type": "object"}},
    ),
    "DefaultSubmit": _obj(
        {
            "player_id": _STR,
            "player_name": _STR,
            "score": _INT,
            "boards": {
                "type": "array",
                "items": _obj({"leaderboard_id": _STR, "period": _STR, "best_score": _INT, "improved": _BOOL}),
            },
        }
    ),
    "Leaderboard": _obj({"leaderboard_id": _STR, "period": _STR, "entries": {"type": "array", "items": _ref("Entry")}}),
    "PlayerStats": _obj(
        {
            "player_id": _STR,
            "player_name": _STR,
            "boards": {
                "type": "array",
                "items": _obj(
                    {
                        "leaderboard_id": _STR,
                        "period": _STR,
                        "score": _INT,
                        "rank": _INT,
                        "total_players": _INT,
                        "percentile": {"type": "number"},
                    }
                ),
            },
        }
    ),
    "Snapshot": _obj(
        {
            "snapshot_id": _STR,
            "leaderboard_id": _STR,
            "period": _STR,
            "taken_at": _STR,
            "entries": {"type": "array", "items": _ref("Entry")},
        }
    ),
    "SnapshotList": _obj(
        {
            "leaderboard_id": _STR,
            "period": _STR,
            "snapshots": {
                "type": "array",
                "items": _obj(
                    {"snapshot_id": _STR, "taken_at": _STR, "entries": {"type": "array", "items": _ref("Entry")}}
                ),
            },
        }
    ),
    "Simulated": _obj({"players": _INT, "writes": _INT, "boards": {"type": "array", "items": _STR}}),
    "Board": _obj(
        {
            "board_id": _STR,
            "name": _STR,
            "order": {"enum": ["desc", "asc"]},
            "operator": {"enum": ["best", "latest", "increment"]},
            "periods": {
                "type": "array",
                "items": _obj({"period": _STR, "current": _STR, "next_reset": {"type": ["string", "null"]}}),
            },
            "min_score": _INT,
            "max_score": _INT,
            "created_at": {"type": ["string", "null"]},
            "shards": _INT,
        }
    ),
    "BoardList": _obj({"leaderboards": {"type": "array", "items": _ref("Board")}}),
    "Deletion": _obj({"board_id": _STR, "status": {"enum": ["deleting", "deleted"]}, "deleted_entries": _INT}),
    "BoardSubmit": _obj(
        {
            "board_id": _STR,
            "player_id": _STR,
            "player_name": _STR,
            "periods": {
                "type": "array",
                "items": _obj(
                    {"leaderboard_id": _STR, "period": _STR, "period_id": _STR, "score": _INT, "changed": _BOOL},
                    {"rank": _INT},
                ),
            },
        }
    ),
    "Bulk": _obj(
        {
            "board_id": _STR,
            "accepted": _INT,
            "rejected": _INT,
            "results": {
                "type": "array",
                "items": _obj({"index": _INT, "status": _INT}, {"result": _ref("BoardSubmit"), "error": _STR}),
            },
        }
    ),
    "Page": _obj(
        {
            "board_id": _STR,
            "leaderboard_id": _STR,
            "period": _STR,
            "period_id": _STR,
            "entries": {"type": "array", "items": _ref("Entry")},
        },
        {"next_cursor": _STR, "min_score": _INT, "max_score": _INT},
    ),
    "Around": _obj(
        {
            "board_id": _STR,
            "leaderboard_id": _STR,
            "period": _STR,
            "period_id": _STR,
            "rank": _INT,
            "player_id": _STR,
            "player_name": _STR,
            "score": _INT,
            "total_players": _INT,
            "percentile": {"type": "number"},
            "metadata": {"type": ["object", "null"]},
            "above": {"type": "array", "items": _ref("Entry")},
            "below": {"type": "array", "items": _ref("Entry")},
        }
    ),
    "OpenApi": _obj({"openapi": _STR, "paths": {"type": "object"}}),
}

# (method, path) -> (success status, response schema)
RESPONSES: dict[tuple[str, str], tuple[int, str]] = {
    ("POST", "/scores"): (200, "DefaultSubmit"),
    ("GET", "/leaderboard"): (200, "Leaderboard"),
    ("GET", "/player"): (200, "PlayerStats"),
    ("POST", "/snapshot"): (201, "Snapshot"),
    ("GET", "/snapshots"): (200, "SnapshotList"),
    ("POST", "/simulate"): (200, "Simulated"),
    ("POST", "/leaderboards"): (201, "Board"),
    ("GET", "/leaderboards"): (200, "BoardList"),
    ("GET", "/leaderboards/{board}"): (200, "Board"),
    ("DELETE", "/leaderboards/{board}"): (200, "Deletion"),
    ("POST", "/leaderboards/{board}/scores"): (200, "BoardSubmit"),
    ("POST", "/leaderboards/{board}/scores/bulk"): (200, "Bulk"),
    ("GET", "/leaderboards/{board}/top"): (200, "Page"),
    ("GET", "/leaderboards/{board}/range"): (200, "Page"),
    ("GET", "/leaderboards/{board}/players/{player_id}"): (200, "Around"),
    ("GET", "/openapi.json"): (200, "OpenApi"),
}

QUERY_PARAMS: dict[tuple[str, str], dict[str, dict]] = {
    ("GET", "/leaderboard"): {"period": _STR, "limit": _INT},
    ("GET", "/player"): {"player_id": _STR},
    ("GET", "/snapshots"): {"period": _STR, "limit": _INT},
    ("GET", "/leaderboards/{board}/top"): {"period": _STR, "limit": _INT, "cursor": _STR},
    ("GET", "/leaderboards/{board}/range"): {
        "period": _STR,
        "min_score": _INT,
        "max_score": _INT,
        "limit": _INT,
        "cursor": _STR,
    },
    ("GET", "/leaderboards/{board}/players/{player_id}"): {"period": _STR, "window": _INT},
}
IDEMPOTENT = {("POST", "/leaderboards/{board}/scores"), ("POST", "/leaderboards/{board}/scores/bulk")}
ERROR_STATUSES = {
    400: "invalid input",
    403: "missing or wrong API key",
    404: "not found",
    409: "conflict",
    413: "body too large",
    422: "Idempotency-Key reused with another body",
    429: "throttled",
}


def _operation(route: routes.Route) -> dict:
    status, schema = RESPONSES[(route.method, route.path)]
    params = [{"name": p, "in": "path", "required": True, "schema": _STR} for p in route.path_params]
    params += [
        {"name": name, "in": "query", "required": name in route.required_query, "schema": s}
        for name, s in QUERY_PARAMS.get((route.method, route.path), {}).items()
    ]
    if (route.method, route.path) in IDEMPOTENT:
        params.append({"name": "Idempotency-Key", "in": "header", "required": False, "schema": _STR})
    json_of = lambda s: {"application/json": {"schema": s}}  # noqa: E731
    words = re.findall(r"[a-z]+", route.path)
    op: dict[str, Any] = {
        "operationId": "_".join([route.method.lower(), *words]),
        "summary": route.summary,
        "x-function": route.function.name,
        "responses": {
            str(status): {"description": "success", "content": json_of(_ref(schema))},
            **{str(s): {"description": d, "content": json_of(_ref("Error"))} for s, d in ERROR_STATUSES.items()},
        },
    }
    if route.method == "DELETE":
        op["responses"]["202"] = {
            "description": "accepted: a large board is still being purged; DELETE again",
            "content": json_of(_ref("Deletion")),
        }
    if params:
        op["parameters"] = params
    if route.body_schema is not None:
        op["requestBody"] = {
            "required": route.method == "POST" and "required" in route.body_schema,
            "content": json_of(route.body_schema),
        }
    if route.needs_key:
        op["security"] = [{"apiKey": []}]
    return op


@lru_cache(maxsize=1)
def document() -> dict:
    paths: dict[str, dict] = {}
    for route in routes.ROUTES:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Leaderboard API",
            "version": "1.0.0",
            "description": "Real-time, multi-period leaderboards. Write routes need the x-api-key header.",
        },
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {"apiKey": {"type": "apiKey", "in": "header", "name": "x-api-key"}},
        },
    }
