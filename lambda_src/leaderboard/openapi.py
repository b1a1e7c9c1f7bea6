"""The OpenAPI 3.0 document, generated from the route table plus the response schemas below.

OpenAPI 3.0, not 3.1: its schemas keep JSON Schema draft 4's rule that 2.0 is not an integer, which is the rule
of API Gateway's body models (draft 4) and of the handlers; under 3.1 a client could send 2.0 for a count.

Served at GET /openapi.json; the tests validate real responses against it and schemathesis fuzzes the
local stack from it. It states every rule the API enforces that JSON Schema can say (patterns, lengths,
ranges, enums, required values), so that a request it calls valid is never refused for its shape; what a
static document cannot know (a board's own periods and score bounds) its descriptions say.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from . import limits, routes
from .http import cache_control

_INT = {"type": "integer"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}
_NULLABLE_STR = {"type": "string", "nullable": True}
_PERIOD_STATUS = {
    "enum": list(limits.PERIOD_STATUSES),
    "description": "upcoming before starts_at, open from starts_at until ends_at, ended after it until the "
    "scheduled closing stores its summary, then closed",
}


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
                    },
                    {"hidden": {"type": "boolean"}},
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
            "order": {"enum": list(limits.ORDERS)},
            "operator": {"enum": list(limits.OPERATORS)},
            "periods": {
                "type": "array",
                "items": _obj({"period": _STR, "current": _STR, "next_reset": {"type": "string", "nullable": True}}),
            },
            "min_score": _INT,
            "max_score": _INT,
            "created_at": {"type": "string", "nullable": True},
            "shards": _INT,
            "submissions": {"enum": list(limits.SUBMISSION_MODES)},
        },
        {
            "max_submissions_per_minute": _INT,
            "starts_at": _STR,
            "ends_at": _STR,
            "rewards": {"type": "array", "items": _obj({"reward": _STR, "ranks": {"type": "array", "items": _INT}})},
            "tiers": {"type": "array", "items": _obj({"name": _STR, "min_percentile": _INT})},
            # GET /leaderboards/{board} only, while live updates are on (docs/API.md, "Live updates").
            "live": _obj(
                {
                    "realtime_url": _STR,
                    "http_host": _STR,
                    "auth": _obj({"host": _STR, "x-api-key": _STR}),
                    "channels": {"type": "object", "additionalProperties": _STR},
                }
            ),
        },
    ),
    "BoardList": _obj(
        {"leaderboards": {"type": "array", "items": _ref("Board")}, "limit": _INT}, {"next_cursor": _STR}
    ),
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
        {"next_cursor": _STR, "min_score": _INT, "max_score": _INT, "rank_mode": {"enum": list(limits.RANK_MODES)}},
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
            "metadata": {"type": "object", "nullable": True},
            "above": {"type": "array", "items": _ref("Entry")},
            "below": {"type": "array", "items": _ref("Entry")},
        },
        {
            "rank_mode": {"enum": list(limits.RANK_MODES)},
            "tier": {"type": "string", "nullable": True},
            "hidden": {"type": "boolean", "description": "the player is hidden on this board: others do not see them"},
        },
    ),
    "PeriodList": _obj(
        {
            "board_id": _STR,
            "periods": {
                "type": "array",
                "items": _obj(
                    {
                        "period_id": _STR,
                        "kind": _STR,
                        "status": _PERIOD_STATUS,
                        "starts_at": _NULLABLE_STR,
                        "ends_at": _NULLABLE_STR,
                    },
                    {"closed_at": _STR, "total_players": _INT, "next_reset": _NULLABLE_STR},
                ),
            },
        }
    ),
    "Friends": _obj(
        {
            "board_id": _STR,
            "period": _STR,
            "period_id": _STR,
            "entries": {
                "type": "array",
                "items": _obj({"rank": _INT, "player_id": _STR, "player_name": _STR, "score": _INT}),
            },
        },
        {"next_cursor": _STR},
    ),
    "PlayerBoards": _obj(
        {
            "player_id": _STR,
            "boards": {
                "type": "array",
                "items": _obj(
                    {
                        "board_id": _STR,
                        "period": _STR,
                        "period_id": _STR,
                        "rank": _INT,
                        "score": _INT,
                        "total_players": _INT,
                        "percentile": {"type": "number"},
                    },
                    {"hidden": {"type": "boolean"}},
                ),
            },
            "limit": _INT,
        },
        {"next_cursor": _STR},
    ),
    "Moderation": _obj({"board_id": _STR, "player_id": _STR, "hidden": {"type": "boolean"}, "moved_entries": _INT}),
    "HiddenPlayers": _obj(
        {"board_id": _STR, "players": {"type": "array", "items": _obj({"player_id": _STR, "hidden_at": _STR})}},
        {"next_cursor": _STR},
    ),
    "PlayerRemoval": _obj({"board_id": _STR, "player_id": _STR, "deleted_entries": _INT}),
    "Erasure": _obj(
        {"erasure_id": _STR, "status": {"enum": ["erasing", "erased"]}, "requested_at": _STR, "status_url": _STR},
        {"finished_at": _STR},
    ),
    "Period": _obj(
        {
            "board_id": _STR,
            "period_id": _STR,
            "kind": _STR,
            "status": _PERIOD_STATUS,
            "starts_at": _NULLABLE_STR,
            "ends_at": _NULLABLE_STR,
            "total_players": _INT,
        },
        {
            "next_reset": _NULLABLE_STR,
            "leaderboard_id": _STR,
            "closed_at": _STR,
            "snapshot_id": _STR,
            "top": {"type": "array", "items": _ref("Entry")},
            "tier_cutoffs": {"type": "object", "additionalProperties": {"type": "integer", "nullable": True}},
            "rewards": {
                "type": "array",
                "items": _obj(
                    {
                        "reward": _STR,
                        "ranks": {"type": "array", "items": _INT},
                        "players": {"type": "array", "items": _ref("Entry")},
                    }
                ),
            },
        },
    ),
    "OpenApi": _obj({"openapi": _STR, "paths": {"type": "object"}}),
    "PlayerToken": _obj({"token": _STR, "expires_at": _STR}),
    "Run": _obj({"run_id": _STR, "run_token": _STR, "seed": _INT, "started_at": _STR, "expires_at": _STR}),
}

ERROR_STATUSES = {
    400: "invalid input",
    401: "a bearer token that is missing, malformed, altered, expired, signed by a key no longer accepted, or of "
    "the wrong kind (with WWW-Authenticate: Bearer) - token routes only",
    403: "missing or wrong API key (each route takes one of the two keys)",
    404: "not found",
    409: "conflict",
    413: f"body too large (more than {limits.MAX_BODY_BYTES // 1024} KiB)",
    422: "Idempotency-Key reused with another body",
    429: "throttled (or the other key's route: its usage plan throttles it to 0), or past a board's "
    "max_submissions_per_minute for this player (then with a Retry-After header, in seconds)",
    502: "the function failed or ran past its timeout",
    504: "no answer within API Gateway's integration timeout",
}
# DELETE routes that may answer 202 (not finished yet: DELETE again), by their response schema.
ACCEPTED = {
    "Deletion": "accepted: a large board is still being purged; DELETE again",
    "Erasure": "accepted: records or snapshots remain to be searched; DELETE again (status at status_url)",
}
SECURITY: dict[str, list[dict[str, list[str]]]] = {
    routes.GAME: [{"gameKey": []}],
    routes.ADMIN: [{"adminKey": []}],
    routes.PLAYER: [{"playerToken": []}],
    routes.GAME_OR_RUN: [{"gameKey": []}, {"runToken": []}],  # either one
}


def _cache_header(route: routes.Route, status: int) -> dict:
    """The Cache-Control an answer carries: what the edge (CloudFront, or Nginx locally) may keep, and how long."""
    value = cache_control(route, status)
    if value == "no-store":
        why = "never kept by the edge or any shared cache"
    elif status < 300 and route.cache.settled_when:
        field, settled = route.cache.settled_when
        why = (
            f"kept this long at the edge; once {field} is {settled} the answer cannot change: "
            f"{cache_control(route, status, {field: settled})}"
        )
    else:
        why = "kept this long at the edge, then served stale for the extra seconds while one request refreshes it"
    return {"Cache-Control": {"description": f"{value}: {why}", "schema": {"type": "string", "example": value}}}


def _operation(route: routes.Route) -> dict:
    status, schema = route.response
    params = [{"name": p, "in": "path", "required": True, "schema": routes.PATH_PARAMS[p]} for p in route.path_params]
    params += [
        {"name": name, "in": "query", "required": name in route.required_query, "schema": s}
        for name, s in route.query.items()
    ]
    if route.idempotent:
        params.append({"name": "Idempotency-Key", "in": "header", "required": False, "schema": routes.IDEMPOTENCY_KEY})
    json_of = lambda s: {"application/json": {"schema": s}}  # noqa: E731
    words = re.findall(r"[a-z]+", route.path)
    op: dict[str, Any] = {
        "operationId": "_".join([route.method.lower(), *words]),
        "summary": route.summary,
        "x-function": route.function.name,
        "responses": {
            str(status): {
                "description": "success",
                "headers": _cache_header(route, status),
                "content": json_of(_ref(schema)),
            },
            **{
                str(s): {"description": d, "headers": _cache_header(route, s), "content": json_of(_ref("Error"))}
                for s, d in ERROR_STATUSES.items()
            },
        },
    }
    if route.method == "DELETE" and schema in ACCEPTED:
        op["responses"]["202"] = {
            "description": ACCEPTED[schema],
            "headers": _cache_header(route, 202),
            "content": json_of(_ref(schema)),
        }
    if route.description:
        op["description"] = route.description
    if params:
        op["parameters"] = params
    if route.body_schema is not None:
        op["requestBody"] = {
            "required": route.method == "POST" and "required" in route.body_schema,
            "content": json_of(route.body_schema),
        }
    if route.authenticated:
        op["security"] = SECURITY[route.access]
    return op


@lru_cache(maxsize=1)
def document() -> dict:
    paths: dict[str, dict] = {}
    for route in routes.ROUTES:
        paths.setdefault(route.path, {})[route.method.lower()] = _operation(route)
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "Leaderboard API",
            "version": "1.0.0",
            "description": "Real-time, multi-period leaderboards. Reads are public; score submissions need the "
            "game key and board management, snapshots and the simulator the admin key, both in x-api-key. Every "
            "answer says in Cache-Control how long the edge (EdgeUrl, a CloudFront cache in front of this API) may "
            "keep it: a few seconds for live rankings, longer for what cannot change, no-store for keyed routes; "
            "public reads answer Access-Control-Allow-Origin: * (no credentials).",
        },
        "paths": paths,
        "components": {
            "schemas": SCHEMAS,
            "securitySchemes": {
                "gameKey": {"type": "apiKey", "in": "header", "name": "x-api-key", "description": "game servers"},
                "adminKey": {"type": "apiKey", "in": "header", "name": "x-api-key", "description": "operators"},
                "playerToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "a player token (POST /players/{player_id}/tokens): starts runs",
                },
                "runToken": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "a run token (POST /leaderboards/{board}/runs): one score on a client board",
                },
            },
        },
    }
