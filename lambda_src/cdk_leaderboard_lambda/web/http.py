"""HTTP responses for API Gateway's proxy integration: JSON, CORS and Cache-Control on every response, no stack
traces."""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from ..composition import Handler, Runtime, entry_point
from ..shared.errors import ApiError, Forbidden, NotFound
from . import routes
from . import validation as v

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)
audit_logger = logging.getLogger("leaderboard.audit")


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def cors_headers(event: dict, allowed: tuple[str, ...], route: routes.Route | None = None) -> dict[str, str]:
    """Allow-Origin for the request's Origin if it is `allowed` (settings.cors_allowed_origins; '*' allows any). A
    public read answers '*' whatever the origins allowed: it takes no credentials, and one cached answer then serves
    every origin (the edge's cache key holds no Origin)."""
    if route is not None and not route.authenticated:
        return {"Access-Control-Allow-Origin": "*"}
    headers = {"Vary": "Origin"}
    if "*" in allowed:
        headers["Access-Control-Allow-Origin"] = "*"
        return headers
    origin = next((v for k, v in (event.get("headers") or {}).items() if k.lower() == "origin"), None)
    headers["Access-Control-Allow-Origin"] = origin if origin in allowed else allowed[0]
    return headers


# Errors of a public read that the edge may keep as briefly as a live answer: the same URL gets the same answer
# until something is created (a board, a player's first score). Everything else that fails (403, 409, 429, 5xx) is
# no-store: it says something about this moment or this caller, not about the URL.
CACHEABLE_ERRORS = frozenset({400, 404})


def cache_control(route: routes.Route | None, status: int, payload: Any = None) -> str:
    """The Cache-Control of an answer: the route's caching (routes.Caching) for a public read, no-store otherwise."""
    caching = (
        route.cache if route is not None and not route.authenticated and route.method == "GET" else routes.NO_STORE
    )
    if not caching.cacheable:
        return "no-store"
    if 200 <= status < 300:
        key, value = caching.settled_when or (None, None)
        settled = key is not None and isinstance(payload, dict) and payload.get(key) == value
        max_age = caching.settled_max_age if settled else caching.max_age
    elif status in CACHEABLE_ERRORS:
        max_age = min(caching.max_age, routes.LIVE.max_age)
    else:
        return "no-store"
    return f"public, max-age={max_age}, stale-while-revalidate={caching.stale_seconds}"


def respond(
    event: dict,
    status: int,
    payload: Any,
    origins: tuple[str, ...],
    headers: dict[str, str] | None = None,
    route: routes.Route | None = None,
) -> dict:
    """The proxy integration's answer; `origins`: the origins CORS allows (settings.cors_allowed_origins)."""
    return {
        "statusCode": status,
        "headers": {
            "Content-Type": "application/json",
            "Cache-Control": cache_control(route, status, payload),
            **cors_headers(event, origins, route),
            **(headers or {}),
        },
        # allow_nan=False: NaN and Infinity are not JSON; a response holding one is a bug, answered as a 500.
        "body": json.dumps(payload, default=_default, separators=(",", ":"), allow_nan=False),
    }


def header(event: dict, name: str) -> str | None:
    """A request header, matched case-insensitively as HTTP requires."""
    name = name.lower()
    return next((v for k, v in (event.get("headers") or {}).items() if k.lower() == name), None)


@dataclass(frozen=True)
class Call:
    """One request to a route: the proxy event, the route it matched, its parameters, validated, and the runtime
    serving it (the composition root's: what the route's operation hands down to the operations it calls), and
    Lambda's context object (None outside Lambda: Powertools' idempotency expires in-progress records with it)."""

    event: dict
    route: routes.Route
    params: dict[str, str]  # path parameters, decoded
    query: dict[str, Any]  # the route's query parameters: integers checked and converted, defaults applied
    runtime: Runtime
    lambda_context: Any = None

    def header(self, name: str) -> str | None:
        return header(self.event, name)

    def body(self) -> dict:
        return v.json_body(self.event)


def function_handler(function: routes.Function, operations: Mapping[str, Any], runtime: Runtime) -> Handler:
    """The Lambda handler of a function that serves several routes, for `runtime`: each route of the table that
    names this function is served by `operations[route.operation]` (pass the handler module's globals()).

    API Gateway names the matched template in `resource`; path parameters arrive decoded.
    """
    served: dict[tuple[str | None, str | None], routes.Route] = {
        (r.method, r.path): r for r in routes.ROUTES if r.function == function
    }
    missing = sorted(r.operation for r in served.values() if not callable(operations.get(r.operation)))
    if missing:
        raise RuntimeError(f"{function.name} does not define {', '.join(missing)}")

    def handler(event: dict, context: Any) -> tuple[int, Any]:
        route = served.get((event.get("httpMethod"), event.get("resource")))
        if route is None:
            raise NotFound(f"no route {event.get('httpMethod')} {event.get('resource')} in this function")
        params = event.get("pathParameters") or route.match(event.get("path", "")) or {}
        return operations[route.operation](Call(event, route, params, v.query_values(event, route), runtime, context))

    return api_handler(handler, runtime)


def api_key_id(event: dict) -> str | None:
    """The id of the API key API Gateway checked for this request (None on public routes): for the audit trail
    only, since a rotation gives the key a new id."""
    return ((event.get("requestContext") or {}).get("identity") or {}).get("apiKeyId")


def api_key_value(event: dict) -> str | None:
    """The value of the API key API Gateway checked (requestContext.identity.apiKey, on keyed methods only)."""
    return ((event.get("requestContext") or {}).get("identity") or {}).get("apiKey")


def _route(event: dict) -> routes.Route | None:
    """The route API Gateway matched (it names the template in `resource`)."""
    matched = (event.get("httpMethod"), event.get("resource"))
    return next((r for r in routes.ROUTES if (r.method, r.path) == matched), None)


def _check_key(runtime: Runtime, event: dict, route: routes.Route | None) -> None:
    """API Gateway lets any key of the stage's usage plans call any keyed route: where the deployment gives the
    key class's secret (the stack always does), a route of either kind refuses every other key here, by the value
    API Gateway checked (api_key_classes.py: ids change at every rotation), with a 403 that names the key class it
    needs, before any work (a 429 would tell the caller to retry)."""
    if route is None or route.access in (routes.PUBLIC, *routes.BEARER):
        return  # bearer routes: the operation verifies the token, whose claims it needs
    keys = runtime.api_keys
    if not keys.configured(route.access):
        return  # no key of this class to compare (a unit test's runtime): API Gateway's check is the only one
    if not keys.is_of(route.access, api_key_value(event) or ""):
        if route.access == routes.ADMIN:
            audit(event, "refused", f"{route.method} {route.path}", runtime.clock.now())
        raise Forbidden(f"this route needs the {route.access} key; the x-api-key given is of another class")


def audit(event: dict, action: str, target: Any, now: datetime) -> None:
    """One JSON line per admin action: who (the API key's id), what, on what, when (`now`: the runtime's clock)."""
    record = {
        "audit": "admin",
        "action": action,
        "target": target,
        "api_key_id": api_key_id(event),
        "source_ip": ((event.get("requestContext") or {}).get("identity") or {}).get("sourceIp"),
        "request_id": (event.get("requestContext") or {}).get("requestId"),
        "time": now.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    audit_logger.info(json.dumps(record, separators=(",", ":"), default=str))


def api_handler(func: Callable[[dict, Any], tuple[int, Any]], runtime: Runtime) -> Handler:
    """Wraps a function `(event, Lambda context) -> (status, payload)` into a Lambda handler for `runtime`, with
    error mapping."""
    origins = runtime.settings.cors_allowed_origins

    def handler(event: dict, context: Any = None) -> dict:
        route = _route(event)
        try:
            _check_key(runtime, event, route)
            status, payload = func(event, context)
            return respond(event, status, payload, origins, route=route)
        except ApiError as err:
            logger.info("request refused", extra={"status": err.status, "reason": err.message})
            headers = {}
            if err.status == 401:  # RFC 6750: a 401 names the scheme the route takes
                headers["WWW-Authenticate"] = 'Bearer error="invalid_token"'
            if err.retry_after is not None:  # a 429, a 503 of a cancelled transaction: exposed to browsers' scripts
                headers |= {"Retry-After": str(err.retry_after), "Access-Control-Expose-Headers": "Retry-After"}
            return respond(event, err.status, {"error": err.message, **err.details}, origins, headers or None, route)
        except Exception:
            logger.exception("unhandled error")
            return respond(event, 500, {"error": "internal error"}, origins, route=route)

    return entry_point(runtime, functools.wraps(func)(handler))
