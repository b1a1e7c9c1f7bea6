"""The OpenAPI 3.0 document, generated from the route table and the response schemas
(web/routes/responses.py).

OpenAPI 3.0, not 3.1: its schemas keep JSON Schema draft 4's rule that 2.0 is not an integer, which is the rule
of API Gateway's body models (draft 4) and of the handlers; under 3.1 a client could send 2.0 for a count.

Served at GET /openapi.json; the tests validate real responses against it and schemathesis fuzzes the
local stack from it. It states every rule the API enforces that JSON Schema can say (patterns, lengths,
ranges, enums, required values), so that a request it calls valid is never refused for its shape; what a
static document cannot know (a board's own periods and score bounds) its descriptions say.
"""

from __future__ import annotations

from typing import Any

from ..shared import limits
from ..shared.errors import TransactionBusy
from ..shared.frozen import Frozen, freeze, thaw
from . import routes
from .http import cache_control
from .routes.responses import SCHEMAS, ref

ERROR_STATUSES = freeze(
    {
        400: "invalid input; a body that is not strict JSON (an object naming one member twice, named in the "
        "answer, or NaN/Infinity), which writes nothing; on a score route, the game key and a run token together",
        401: "a bearer token that is missing or blank (API Gateway's answer: nothing invoked), malformed, altered, "
        "expired, signed by a key no longer accepted, of the wrong kind, or issued to a player before an erasure of "
        "that player answered (with WWW-Authenticate: Bearer) - token routes only",
        403: "missing or wrong API key (each route takes one of the two keys)",
        404: "not found",
        409: "conflict",
        413: f"body too large (more than {limits.MAX_BODY_BYTES // 1024} KiB)",
        422: "of the document's shape, refused by a rule it states in words (JSON Schema cannot): a page cursor this "
        "API did not issue for this board and period, or one past its lifetime; a rule between two fields or items "
        "(min_score above max_score, tiers sharing a name or a minimum, a reward's ranks backwards, ends_at not "
        "after starts_at, a date the calendar does not have, a rule an increment board cannot judge); a score a "
        "board's plausibility rule rejects; an Idempotency-Key reused with another body",
        429: "throttled (or the other key's route: its usage plan throttles it to 0), or past a board's "
        "max_submissions_per_minute for this player (then with a Retry-After header, in seconds)",
        502: "the function failed or ran past its timeout",
        504: "no answer within API Gateway's integration timeout",
    }
)
# Answered before any function by whatever is in front of it, in its own format (not always JSON): CloudFront past
# 8,192 bytes of URL, API Gateway past 10,240 characters (a regional API), the dashboard's Nginx past its 8 KiB
# request line, the local gateway past 64 KiB. Documented with no body, so that any answer's content type conforms.
URI_TOO_LONG = freeze(
    {
        "414": {
            "description": "URI too long (the edge takes 8,192 bytes, API Gateway 10,240 characters): answered "
            "before any function by the edge or the gateway, in its own format"
        }
    }
)
# DELETE routes that may answer 202 (not finished yet: DELETE again), by their response schema.
ACCEPTED = freeze(
    {
        "Deletion": "accepted: a large board is still being purged; DELETE again",
        "Erasure": "accepted: records or snapshots remain to be searched; DELETE again (status at status_url)",
    }
)
# Routes that may answer 202 with another body: a score a board's plausibility rule holds back for review.
HELD = freeze(
    {"BoardSubmit": "accepted for review: a plausibility rule (action quarantine) holds the score back as pending"}
)
SECURITY: Frozen = freeze(
    {
        routes.GAME: [{"gameKey": []}],
        routes.ADMIN: [{"adminKey": []}],
        routes.PLAYER: [{"playerToken": []}],
        routes.RUN: [{"runToken": []}],  # never with the game key: mutually exclusive (the routes' 400)
    }
)


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


def _operation(route: routes.Route, identity: dict) -> dict:
    status, schema = route.response
    params = [{"name": p, "in": "path", "required": True, "schema": routes.PATH_PARAMS[p]} for p in route.path_params]
    params += [
        {"name": name, "in": "query", "required": name in route.required_query, "schema": s}
        for name, s in route.query.items()
    ]
    if route.idempotent:
        params.append({"name": "Idempotency-Key", "in": "header", "required": False, "schema": routes.IDEMPOTENCY_KEY})
    json_of = lambda s: {"application/json": {"schema": s}}  # noqa: E731
    op: dict[str, Any] = {
        **identity,
        "summary": route.summary,
        "x-function": route.function.name,
        "responses": {
            str(status): {
                "description": "success",
                "headers": _cache_header(route, status),
                "content": json_of(ref(schema)),
            },
            **{
                str(s): {"description": d, "headers": _cache_header(route, s), "content": json_of(ref("Error"))}
                for s, d in ERROR_STATUSES.items()
            },
            **URI_TOO_LONG,
        },
    }
    if route.method == "DELETE" and schema in ACCEPTED:
        op["responses"]["202"] = {
            "description": ACCEPTED[schema],
            "headers": _cache_header(route, 202),
            "content": json_of(ref(schema)),
        }
    if schema in HELD:
        op["responses"]["202"] = {
            "description": HELD[schema],
            "headers": _cache_header(route, 202),
            "content": json_of(ref("PendingScore")),
        }
    if route.busy:
        retry_after = {
            "description": "seconds to wait before sending the same request again",
            "schema": {"type": "integer", "minimum": 1, "example": TransactionBusy.retry_after},
        }
        op["responses"]["503"] = {
            "description": route.busy,
            "headers": {**_cache_header(route, 503), "Retry-After": retry_after},
            "content": json_of(ref("Error")),
        }
    if route.description:
        op["description"] = route.description
    if params:
        op["parameters"] = params
    if route.body_schema is not None:
        op["requestBody"] = {
            # A body that must hold some field (PATCH: at least one) must be there at all
            "required": route.method in ("POST", "PATCH")
            and ("required" in route.body_schema or "minProperties" in route.body_schema),
            "content": json_of(route.body_schema),
        }
    if route.authenticated:
        op["security"] = SECURITY[route.access]
    return op


def document() -> dict:
    """The document, built anew (a few milliseconds) as plain JSON (the route table's frozen fragments thawed):
    whoever serves it may keep it; no module holds it."""
    paths: dict[str, dict] = {}
    for path, method, route, identity in routes.route_operations():
        paths.setdefault(path, {})[method] = _operation(route, identity)
    return thaw(
        {
            "openapi": routes.OPENAPI_VERSION,
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
                        "description": "a run token (POST /leaderboards/{board}/runs): one score on a client board, "
                        "at POST /leaderboards/{board}/runs/{run_id}/score; never with the game key (a 400)",
                    },
                },
            },
        }
    )
