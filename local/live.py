"""API Gateway's WebSocket API, in-process: the live updates' local stand-in.

Like API Gateway it accepts WebSocket connections at /<stage>, gives each a connection id, and invokes the SAME
handler with API Gateway-shaped events (requestContext.routeKey, eventType, connectionId, domainName, stage):
$connect before the handshake completes (a non-200 answer refuses it), the route a message's "action" selects
(else $default), sending the handler's body back on the routes that have a route response, and $disconnect once
the connection is closed. Its management API (POST/GET/DELETE /<stage>/@connections/{id}, what boto3's
`apigatewaymanagementapi` client calls) is served over HTTP on a port of its own, with GoneException (410) for a
connection that is not open, so the broadcaster's client works unchanged with this endpoint URL.

Modelled limits: messages of at most 128 KB (API Gateway's); not modelled: the 10-minute idle timeout and the
2-hour connection limit (tests do not run that long), IAM on the management API.
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request

from local.gateway import routes_module

MAX_MESSAGE_BYTES = 128 * 1024  # API Gateway's WebSocket message limit
SEND_TIMEOUT_SECONDS = 5


@dataclass
class _Open:
    connection: ServerConnection
    connected_at_ms: int
    source_ip: str
    last_active_ms: int = field(default=0)


class LiveServer:
    """The WebSocket API on one port, its management API on another; `start(handler)` serves both."""

    def __init__(self, stage: str, quiet: bool = False, port: int = 0, management_port: int = 0) -> None:
        """Ports 0: any free ones (given ones: a restart at the same URLs, as tests stop and start the API)."""
        self.stage = stage
        self.quiet = quiet
        self._ws_socket = socket.create_server(("127.0.0.1", port))
        self.port = self._ws_socket.getsockname()[1]
        self.management = ThreadingHTTPServer(("127.0.0.1", management_port), _management_handler(self))
        self.management.daemon_threads = True
        self.open: dict[str, _Open] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None
        self.handler: Callable | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/{self.stage}"

    @property
    def management_url(self) -> str:
        """The stage's callback URL (https://{api}.execute-api.{region}.amazonaws.com/{stage} on AWS)."""
        return f"http://127.0.0.1:{self.management.server_address[1]}/{self.stage}"

    def start(self, handler: Callable) -> LiveServer:
        self.handler = handler
        self._ws_thread = threading.Thread(target=lambda: asyncio.run(self._serve()), name="live-ws", daemon=True)
        self._ws_thread.start()
        self._http_thread = threading.Thread(target=self.management.serve_forever, name="live-mgmt", daemon=True)
        self._http_thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the local WebSocket API did not start")
        return self

    def stop(self) -> None:
        if self.loop is not None and self._stopping is not None:
            self.loop.call_soon_threadsafe(self._stopping.set)
            self._ws_thread.join(timeout=10)
        if getattr(self, "_http_thread", None) is not None:  # shutdown() waits for a serve_forever() that ran
            self.management.shutdown()
        self.management.server_close()
        self._ws_socket.close()

    # --- the WebSocket side -------------------------------------------------------------------------

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        async with serve(
            self._connection,
            sock=self._ws_socket,
            process_request=self._connect,
            max_size=MAX_MESSAGE_BYTES,
            server_header="local-websocket-api",
        ):
            self._ready.set()
            await self._stopping.wait()

    def _event(self, connection_id: str, route: str, event_type: str, body: str | None = None) -> dict:
        now_ms = int(time.time() * 1000)
        opened = self.open.get(connection_id)
        event: dict = {
            "requestContext": {
                "routeKey": route,
                "eventType": event_type,
                "connectionId": connection_id,
                "domainName": f"127.0.0.1:{self.port}",
                "stage": self.stage,
                "apiId": "local",
                "requestId": secrets.token_hex(8),
                "messageId": base64.b64encode(secrets.token_bytes(10)).decode() if body is not None else None,
                "requestTimeEpoch": now_ms,
                "connectedAt": opened.connected_at_ms if opened else now_ms,
                "identity": {"sourceIp": opened.source_ip if opened else "127.0.0.1"},
            },
            "isBase64Encoded": False,
        }
        if body is not None:
            event["body"] = body
        return event

    async def _invoke(self, event: dict) -> dict:
        try:
            answer = await asyncio.to_thread(self.handler, event, None)
        except Exception:  # API Gateway answers an integration failure with its own message
            traceback.print_exc()
            return {"statusCode": 500, "body": json.dumps({"message": "Internal server error"})}
        return answer if isinstance(answer, dict) else {"statusCode": 200}

    async def _connect(self, connection: ServerConnection, request: Request):
        if request.path.split("?", 1)[0].rstrip("/") != f"/{self.stage}":
            return connection.respond(403, "Forbidden\n")
        connection_id = base64.b64encode(secrets.token_bytes(10)).decode()  # the shape of API Gateway's ids
        connection.connection_id = connection_id  # type: ignore[attr-defined]
        source_ip = request.headers.get("X-Forwarded-For", "").split(",")[-1].strip() or "127.0.0.1"
        now_ms = int(time.time() * 1000)
        self.open[connection_id] = _Open(connection, now_ms, source_ip, now_ms)
        answer = await self._invoke(self._event(connection_id, routes_module().LIVE_CONNECT, "CONNECT"))
        if answer.get("statusCode") != 200:
            self.open.pop(connection_id, None)
            return connection.respond(403, "Forbidden\n")
        return None

    def _route(self, body: str) -> str:
        """The route a message's "action" selects; $default for any frame that has none to read (not JSON, not an
        object, nested past the parser's recursion limit), as API Gateway routes it: the handler answers 400."""
        routes = routes_module()
        try:
            action = json.loads(body).get("action")
        except (ValueError, AttributeError, RecursionError):
            return routes.LIVE_DEFAULT
        if isinstance(action, str) and action in routes.LIVE_ROUTES and not action.startswith("$"):
            return action
        return routes.LIVE_DEFAULT

    async def _connection(self, connection: ServerConnection) -> None:
        connection_id = connection.connection_id  # type: ignore[attr-defined]
        routes = routes_module()
        try:
            async for message in connection:
                body = message if isinstance(message, str) else message.decode("utf-8", "replace")
                self.open[connection_id].last_active_ms = int(time.time() * 1000)
                route = self._route(body)
                answer = await self._invoke(self._event(connection_id, route, "MESSAGE", body))
                if route in routes.LIVE_ANSWERING_ROUTES and answer.get("body") is not None:
                    await connection.send(answer["body"])
        except Exception:  # a client gone mid-message: $disconnect below, as on AWS
            if not self.quiet:
                traceback.print_exc(file=sys.stderr)
        finally:
            self.open.pop(connection_id, None)
            await self._invoke(self._event(connection_id, routes.LIVE_DISCONNECT, "DISCONNECT"))

    # --- the management API (what post_to_connection calls) ------------------------------------------

    def post(self, connection_id: str, data: bytes) -> bool:
        opened = self.open.get(connection_id)
        if opened is None or self.loop is None:
            return False
        text = data.decode("utf-8", "replace")
        try:
            asyncio.run_coroutine_threadsafe(opened.connection.send(text), self.loop).result(SEND_TIMEOUT_SECONDS)
        except Exception:  # closed meanwhile
            return False
        return True

    def close(self, connection_id: str) -> bool:
        opened = self.open.get(connection_id)
        if opened is None or self.loop is None:
            return False
        asyncio.run_coroutine_threadsafe(opened.connection.close(1000, "Goodbye"), self.loop)
        return True


def _management_handler(server: LiveServer) -> type[BaseHTTPRequestHandler]:
    prefix = f"/{server.stage}/@connections/"

    class Management(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            if not server.quiet:
                super().log_message(format, *args)

        def _connection_id(self) -> str | None:
            return unquote(self.path[len(prefix) :]) if self.path.startswith(prefix) else None

        def _answer(self, status: int, body: dict | None = None, error_type: str | None = None) -> None:
            data = json.dumps(body).encode() if body is not None else b""
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Date", formatdate(usegmt=True))
            if error_type:
                self.send_header("x-amzn-ErrorType", error_type)
            # One request per connection: a kept-alive one would outlive a restart of this server (its handler
            # thread answering for the old one), and API Gateway's callers open a fresh one often anyway.
            self.send_header("Connection", "close")
            self.close_connection = True
            self.end_headers()
            self.wfile.write(data)

        def _gone(self) -> None:
            self._answer(410, {"message": None}, "GoneException")

        def do_POST(self):  # noqa: N802 - http.server's naming
            data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            connection_id = self._connection_id()
            if connection_id is None:
                return self._answer(404, {"message": "Not Found"})
            if len(data) > MAX_MESSAGE_BYTES:
                return self._answer(413, {"message": "Payload too large"}, "PayloadTooLargeException")
            return self._answer(200) if server.post(connection_id, data) else self._gone()

        def do_DELETE(self):  # noqa: N802
            connection_id = self._connection_id()
            if connection_id is None:
                return self._answer(404, {"message": "Not Found"})
            return self._answer(204) if server.close(connection_id) else self._gone()

        def do_GET(self):  # noqa: N802
            connection_id = self._connection_id()
            opened = server.open.get(connection_id or "")
            if opened is None:
                return self._gone()
            iso = lambda ms: time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(ms / 1000))  # noqa: E731
            return self._answer(
                200,
                {
                    "connectedAt": iso(opened.connected_at_ms),
                    "identity": {"sourceIp": opened.source_ip},
                    "lastActiveAt": iso(opened.last_active_ms),
                },
            )

    return Management
