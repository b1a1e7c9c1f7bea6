"""HTTP responses for API Gateway's proxy integration: JSON, CORS on every response, no stack traces."""

from __future__ import annotations

import functools
import json
import logging
from decimal import Decimal
from typing import Any, Callable

from .errors import ApiError
from .settings import get_settings

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)

Handler = Callable[[dict, Any], dict]


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
        "body": json.dumps(payload, default=_default, separators=(",", ":")),
    }


def api_handler(func: Callable[[dict], tuple[int, Any]]) -> Handler:
    """Wraps a function `event -> (status, payload)` into a Lambda handler with error mapping."""

    @functools.wraps(func)
    def handler(event: dict, context: Any = None) -> dict:
        try:
            status, payload = func(event)
            return respond(event, status, payload)
        except ApiError as err:
            return respond(event, err.status, {"error": err.message})
        except Exception:
            logger.exception("unhandled error")
            return respond(event, 500, {"error": "internal error"})

    return handler
