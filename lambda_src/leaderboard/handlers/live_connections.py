"""The WebSocket API's routes (live updates): $connect, $disconnect, subscribe, unsubscribe and $default.

API Gateway selects the route from the message's "action" and sends what this returns as `body` back to the
client (a route response) on the routes a client's message selects; $connect accepts the connection with 200."""

from __future__ import annotations

import json
import logging

from .. import live, routes
from ..errors import ApiError, BadRequest

logger = logging.getLogger("leaderboard")
logger.setLevel(logging.INFO)


def _answer(status: int, message: dict | None = None) -> dict:
    answer: dict = {"statusCode": status}
    if message is not None:
        answer["body"] = json.dumps(message, separators=(",", ":"))
    return answer


def handler(event: dict, context=None) -> dict:
    request = event.get("requestContext") or {}
    route, connection_id = request.get("routeKey"), request.get("connectionId")
    if not connection_id:
        return _answer(400, live.error(BadRequest("not a WebSocket API event")))
    if route == routes.LIVE_CONNECT:
        live.connect(connection_id)
        return _answer(200)
    if route == routes.LIVE_DISCONNECT:
        removed = live.disconnect(connection_id)
        logger.info("connection closed", extra={"items_removed": removed})
        return _answer(200)
    action = None
    try:
        message = live.parse(event.get("body"))  # $default too: it says what was wrong with the message
        action = message["action"]
        if route != action:  # API Gateway selected by the same field: only a mismatched test event gets here
            raise BadRequest(f"route {route} does not serve action {action}")
        if action == live.SUBSCRIBE:
            return _answer(200, live.subscribe(connection_id, message))
        return _answer(200, live.unsubscribe(connection_id, message))
    except ApiError as err:
        return _answer(err.status, live.error(err, action))
    except Exception:
        logger.exception("live route failed", extra={"route": route})
        return _answer(500, live.error(ApiError("internal error"), action))
