"""AppSync Events' wire format as the local stand-in speaks it (local/appsync_events.py describes the protocol and
its sources): the endpoints, subprotocols and modelled quotas, the error shapes, and the checks of what a client sends.
"""

from __future__ import annotations

import base64
import binascii
import http
import json
import re

from websockets.datastructures import Headers
from websockets.http11 import Response

NAMESPACES = ("leaderboard",)  # the Event API's channel namespaces (the construct makes this one)
REALTIME_PATH = "/event/realtime"
PUBLISH_PATH = "/event"
SUBPROTOCOL = "aws-appsync-event-ws"
AUTH_SUBPROTOCOL_PREFIX = "header-"
CONNECTION_TIMEOUT_MS = 300_000  # what connection_ack announces
KEEP_ALIVE_SECONDS = 60.0
MAX_EVENTS_PER_PUBLISH = 5
MAX_EVENT_BYTES = 240 * 1024
MAX_PUBLISH_BYTES = 1_200_000  # 1.2 MB per publish request
MAX_SUBSCRIPTIONS_PER_CONNECTION = 200
MAX_FRAME_BYTES = 1_200_000  # what a client may send in one WebSocket message
_PATH_PART = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,48}[A-Za-z0-9])?"  # one part of a channel's path
CHANNEL_PATTERN = re.compile(rf"/?{_PATH_PART}(?:/{_PATH_PART}){{0,4}}/?")
NOT_AUTHORIZED = "You are not authorized to make this call."


def error(error_type: str, message: str, **extra) -> dict:
    return {"errorType": error_type, "message": message, **extra}


def json_response(status: int, body: dict) -> Response:
    data = json.dumps(body).encode()
    headers = Headers(
        [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(data))),
            ("Connection", "close"),  # one request per connection (websockets closes after an HTTP answer)
        ]
    )
    if status >= 400:
        headers["x-amzn-ErrorType"] = body["errors"][0]["errorType"]
    return Response(status, http.HTTPStatus(status).phrase, headers, data)


def offered_subprotocols(headers: Headers) -> list[str]:
    return [p.strip() for value in headers.get_all("Sec-WebSocket-Protocol") for p in value.split(",") if p.strip()]


def auth_from_subprotocols(offered: list[str]) -> dict | None:
    """The authorization JSON a client put in its `header-<base64url>` subprotocol, or None."""
    for protocol in offered:
        if protocol.startswith(AUTH_SUBPROTOCOL_PREFIX):
            encoded = protocol[len(AUTH_SUBPROTOCOL_PREFIX) :]
            try:
                decoded = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
                authorization = json.loads(decoded)
            except (binascii.Error, ValueError, RecursionError):
                return None
            return authorization if isinstance(authorization, dict) else None
    return None


def publish_problem(message) -> str | None:
    """What is wrong with a publish body (channel, up to 5 events, each a JSON string), or None."""
    if not isinstance(message, dict):
        return "The request body must be a JSON object"
    channel, events = message.get("channel"), message.get("events")
    if not isinstance(channel, str) or not CHANNEL_PATTERN.fullmatch(channel):
        return "Invalid channel path"
    namespace = channel.strip("/").split("/")[0]
    if namespace not in NAMESPACES:
        return f"Channel namespace {namespace} not found"
    if "*" in channel:
        return "Cannot publish to a wildcard channel"
    if not isinstance(events, list) or not events:
        return "events must be a non-empty list"
    if len(events) > MAX_EVENTS_PER_PUBLISH:
        return f"At most {MAX_EVENTS_PER_PUBLISH} events per publish"
    for event in events:
        if not isinstance(event, str):
            return "Each event must be a stringified JSON value"
        if len(event.encode()) > MAX_EVENT_BYTES:
            return "Event size exceeds the limit of 240 KB"
        try:
            json.loads(event)
        except (ValueError, RecursionError):
            return "Each event must be a stringified JSON value"
    message["channel"] = "/" + channel.strip("/")
    return None
