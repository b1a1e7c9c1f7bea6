"""HTTP responses for API Gateway's proxy integration: JSON, CORS on every response, no stack traces."""

from __future__ import annotations

import contextvars
import functools
import hmac
import json
import logging
from datetime import datetime, timezone
from decimal import Decimal
from typing import Any, Callable

from . import metrics, routes

from .errors import ApiError, Forbidden, NotFound
from .settings import get_settings

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)
audit_logger = logging.getLogger("leaderboard.audit")

Handler = Callable[[dict, Any], dict]
# The Lambda context of the invocation being handled (Powertools' idempotency reads its remaining time).
lambda_context: contextvars.ContextVar[Any] = contextvars.ContextVar("lambda_context", default=None)


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def cors_headers(event: dict) -> dict[str, str]:
    """Allow-Origin for the request's Origin if it is allowed ('*' allows any)."""
    allowed = get_settings().cors_allowed_origins
    headers = {"Vary": "Origin"}
    if "*" in allowed:
        headers["Access-Control-Allow-Origin"] = "*"
        return headers
    origin = next((v for k, v in (event.get("headers") or {}).items() if k.lower() == "origin"), None)
    headers["Access-Control-Allow-Origin"] = origin if origin in allowed else allowed[0]
    return headers


def respond(event: dict, status: int, payload: Any) -> dict:
    return {
        "statusCode": status,
        "headers": {"Content-Type": "application/json", **cors_headers(event)},
        # allow_nan=False: NaN and Infinity are not JSON; a response holding one is a bug, answered as a 500.
        "body": json.dumps(payload, default=_default, separators=(",", ":"), allow_nan=False),
    }


def header(event: dict, name: str) -> str | None:
    """A request header, matched case-insensitively as HTTP requires."""
    name = name.lower()
    return next((v for k, v in (event.get("headers") or {}).items() if k.lower() == name), None)


RouteFn = Callable[[dict, dict[str, str]], tuple[int, Any]]


def dispatch(table: dict[tuple[str, str], RouteFn]) -> Handler:
    """A Lambda handler for a function that serves several routes: (method, path template) -> fn(event, params).

    API Gateway names the matched template in `resource`; path parameters arrive decoded.
    """

    @api_handler
    def handler(event: dict) -> tuple[int, Any]:
        method, resource = event.get("httpMethod"), event.get("resource")
        fn = table.get((method, resource))
        if fn is None:
            raise NotFound(f"no route {method} {resource} in this function")
        route = next(r for r in routes.ROUTES if (r.method, r.path) == (method, resource))
        params = event.get("pathParameters") or route.match(event.get("path", "")) or {}
        return fn(event, params)

    return handler


def api_key_id(event: dict) -> str | None:
    """The id of the API key API Gateway checked for this request (None on public routes)."""
    return ((event.get("requestContext") or {}).get("identity") or {}).get("apiKeyId")


def _check_key(event: dict) -> None:
    """API Gateway lets any key of the stage's usage plans call any keyed route: where the deployment names
    the admin and game keys' ids, a route of either kind refuses every other key here."""
    matched = (event.get("httpMethod"), event.get("resource"))
    route = next((r for r in routes.ROUTES if (r.method, r.path) == matched), None)
    if route is None or route.access == routes.PUBLIC:
        return
    settings = get_settings()
    expected = settings.admin_api_key_id if route.access == routes.ADMIN else settings.game_api_key_id
    if expected is None:
        return
    if not hmac.compare_digest((api_key_id(event) or "").encode(), expected.encode()):
        if route.access == routes.ADMIN:
            audit(event, "refused", f"{route.method} {route.path}")
        raise Forbidden(f"this route needs the {route.access} key")


def audit(event: dict, action: str, target: Any) -> None:
    """One JSON line per admin action: who (the API key's id), what, on what, when."""
    record = {
        "audit": "admin",
        "action": action,
        "target": target,
        "api_key_id": api_key_id(event),
        "source_ip": ((event.get("requestContext") or {}).get("identity") or {}).get("sourceIp"),
        "request_id": (event.get("requestContext") or {}).get("requestId"),
        "time": datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    audit_logger.info(json.dumps(record, separators=(",", ":"), default=str))


def api_handler(func: Callable[[dict], tuple[int, Any]]) -> Handler:
    """Wraps a function `event -> (status, payload)` into a Lambda handler with error mapping."""

    @functools.wraps(func)
    @metrics.flushed
    def handler(event: dict, context: Any = None) -> dict:
        lambda_context.set(context)
        try:
            _check_key(event)
            status, payload = func(event)
            return respond(event, status, payload)
        except ApiError as err:
            logger.info("request refused", extra={"status": err.status, "reason": err.message})
            return respond(event, err.status, {"error": err.message})
        except Exception:
            logger.exception("unhandled error")
            return respond(event, 500, {"error": "internal error"})

    return handler
