"""AWS AppSync Events, in-process: the live updates' local stand-in, on one port.

It speaks the two protocols AWS documents for an Event API, so the same clients work against it unchanged:

- the real-time WebSocket at `/event/realtime` ("Understanding the Event API WebSocket protocol",
  https://docs.aws.amazon.com/appsync/latest/eventapi/event-api-websocket-protocol.html): the subprotocols
  `aws-appsync-event-ws` and `header-<base64url of the authorization JSON {"host", "x-api-key"}>`;
  `{"type": "connection_init"}` answered by `{"type": "connection_ack", "connectionTimeoutMs": 300000}`;
  `{"type": "ka"}` keep-alives (every 60 s; a client that hears none for connectionTimeoutMs closes);
  `{"type": "subscribe", "id", "channel", "authorization": {"host", "x-api-key"}}` answered by
  `{"type": "subscribe_success", "id"}` or `{"type": "subscribe_error", "id", "errors": [{"errorType", "message"}]}`;
  every event published to the channel as `{"type": "data", "id", "event": "<JSON string>"}`;
  `{"type": "unsubscribe", "id"}` answered by `{"type": "unsubscribe_success", "id"}` or `unsubscribe_error`
  (`UnknownOperationError`, "Unknown operation id ..."); `publish` over the socket answered by `publish_error` here,
  since the namespace lets only IAM publish ("Publish events via WebSocket",
  https://docs.aws.amazon.com/appsync/latest/eventapi/publish-websocket.html).
- the HTTP publish endpoint `POST /event` ("Publish events via HTTP",
  https://docs.aws.amazon.com/appsync/latest/eventapi/publish-http.html): body `{"channel", "events": [...]}`, up to
  5 events, each a stringified JSON value; answered `{"successful": [{"identifier", "index"}], "failed": []}`.
  Publishing is the only action on it. The `leaderboard` namespace publishes with IAM only (as the construct
  configures it), so a SigV4 signature (service `appsync`) is verified with the local fake credentials: botocore
  computes the signature the request should carry, as AppSync would; an `x-api-key` publish is refused.

Error shapes: AppSync answers with `{"errors": [{"errorType", "message"}]}` (HTTP) and with `errors` on the
`*_error` messages (WebSocket); the message types and field names above are the documented ones, and the shapes
of `subscribe_error`/`unsubscribe_error`/`publish_error`/`broadcast_error` match AWS's own Events client
(aws-amplify/aws-appsync-events-swift). What the pages do not spell out is modelled on AppSync's known answers:
a connection with a wrong API key gets `connection_error` with `UnauthorizedException` ("You are not authorized to
make this call.", errorCode 401) and is closed; a frame that is not a JSON object gets
`{"type": "error", "errors": [{"errorType": "MessageProcessingError", ...}]}`, an unknown message type
`UnsupportedOperation`; a bad channel or unknown namespace `subscribe_error`/HTTP 400 `BadRequestException`, a wrong
signature HTTP 403 `BadRequestException` ("The request signature we calculated does not match ..."), no or
the wrong kind of auth HTTP 401 `UnauthorizedException`.

Modelled limits (AppSync Events quotas, https://docs.aws.amazon.com/general/latest/gr/appsync.html): 5 events per
publish, 240 KB per event, 1.2 MB per publish request, 200 subscriptions per connection, channel paths of at most
5 segments of at most 50 letters, digits or `-`; connectionTimeoutMs 300000 with a keep-alive a minute.
Not modelled: the 24-hour connection limit and the per-API rates (connections, inbound and outbound messages per
second), wildcard subscriptions (`/leaderboard/*`; nothing here subscribes to them), auth modes other than the
subscribe API key and IAM publishing, channel namespace handlers, and API key expiry.

Fan-out: every publish is one synchronous pass on the event loop over the channel's subscriptions, each frame
written with websockets' `broadcast()` (no await, no task or thread per subscriber); it holds thousands of
subscribers on one channel (bench/live_delivery.py measures it).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hmac
import http
import json
import logging
import re
import socket
import threading
import time
import uuid
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response, parse_headers, parse_line
from websockets.protocol import State
from websockets.server import ServerProtocol
from websockets.typing import Subprotocol

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
SIGNATURE_MAX_AGE_SECONDS = 300  # SigV4: a request dated more than 5 minutes off is refused
_SEGMENT = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,48}[A-Za-z0-9])?"
CHANNEL_PATTERN = re.compile(rf"/?{_SEGMENT}(?:/{_SEGMENT}){{0,4}}/?")
_AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/,\s]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request,"
    r"\s*SignedHeaders=(?P<signed>[a-z0-9;-]+),\s*Signature=(?P<signature>[0-9a-f]{64})"
)

NOT_AUTHORIZED = "You are not authorized to make this call."
# websockets logs every connection opened and closed and every HTTP answer at INFO: thousands of lines a run
_LOG = logging.getLogger("local.appsync_events")
_LOG.setLevel(logging.WARNING)


def _error(error_type: str, message: str, **extra) -> dict:
    return {"errorType": error_type, "message": message, **extra}


@dataclass(eq=False)
class _Client:
    """One open WebSocket: whether it sent connection_init, and its subscriptions (id -> channel)."""

    connection: ServerConnection
    authorized: bool
    acknowledged: bool = False
    subscriptions: dict[str, str] = field(default_factory=dict)


class _HttpOrWebSocketProtocol(ServerProtocol):
    """websockets' server protocol, also reading a POST request with its body (websockets reads GET handshakes
    only, and refuses a body): the POST reaches process_request as a Request with a `body`, and the answer goes
    back as an HTTP response, as a refused handshake's would. One port then serves both of AppSync's endpoints."""

    def parse(self) -> Generator[None]:
        try:
            request = yield from self._read_request()
        except Exception as exc:  # not HTTP, or too large: close, as websockets does
            self.handshake_exc = exc
            self.send_eof()
            self.parser = self.discard()
            next(self.parser)
            yield
            return
        self.events.append(request)
        yield from super(ServerProtocol, self).parse()  # the frames, once the handshake is done

    def _read_request(self) -> Generator[None, None, Request]:
        from websockets.exceptions import InvalidHeader
        from websockets.http11 import RequestLineTooLong

        line = yield from parse_line(self.reader.read_line, RequestLineTooLong)
        method, path, protocol = line.decode("ascii").split(" ", 2)
        headers = yield from parse_headers(self.reader.read_line)
        body = b""
        if method == "POST":
            try:
                length = int(headers.get("Content-Length", "0"))
            except ValueError:
                raise InvalidHeader("Content-Length") from None
            if length > MAX_PUBLISH_BYTES + 64 * 1024:
                raise ValueError("publish request too large")
            body = bytes((yield from self.reader.read_exact(length)))
        elif not set(headers.get_all("Content-Length")) <= {"0"}:
            raise ValueError("unsupported request body")
        request = Request(path, headers, method, protocol)
        request.body = body  # type: ignore[attr-defined]
        return request


class _Connection(ServerConnection):
    def __init__(self, protocol: ServerProtocol, *args, **kwargs) -> None:
        # The protocol object's parser is a generator started in its constructor, before any byte has arrived:
        # restart it as the subclass's.
        protocol.__class__ = _HttpOrWebSocketProtocol
        protocol.parser = protocol.parse()
        next(protocol.parser)
        super().__init__(protocol, *args, **kwargs)


class AppSyncEventsServer:
    """The stand-in on one port: `start()` serves it on a thread of its own, `stop()` closes every connection."""

    def __init__(
        self,
        api_key: str,
        access_key_id: str,
        secret_access_key: str,
        region: str,
        port: int = 0,
        keep_alive_seconds: float = KEEP_ALIVE_SECONDS,
    ) -> None:
        self.api_key = api_key
        self.credentials = Credentials(access_key_id, secret_access_key)
        self.region = region
        self.keep_alive_seconds = keep_alive_seconds
        self._socket = socket.create_server(("127.0.0.1", port), backlog=4096)
        self.port = self._socket.getsockname()[1]
        self.clients: set[_Client] = set()
        self.channels: dict[str, dict[tuple[_Client, str], None]] = {}  # channel -> its subscriptions, in order
        self.published = 0  # events accepted by POST /event
        self.loop: asyncio.AbstractEventLoop | None = None
        self._ready = threading.Event()
        self._stopping: asyncio.Event | None = None
        self._thread: threading.Thread | None = None

    @property
    def http_url(self) -> str:
        """What LIVE_EVENTS_HTTP_URL names (https://<http domain> on AWS); the publish endpoint is <url>/event."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def http_host(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def realtime_url(self) -> str:
        """What LIVE_EVENTS_REALTIME_URL names (wss://<realtime domain>/event/realtime on AWS)."""
        return f"ws://127.0.0.1:{self.port}{REALTIME_PATH}"

    def start(self) -> AppSyncEventsServer:
        self._thread = threading.Thread(target=lambda: asyncio.run(self._serve()), name="appsync-events", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("the local AppSync Events stand-in did not start")
        return self

    def stop(self) -> None:
        if self.loop is not None and self._stopping is not None and self._thread is not None:
            self.loop.call_soon_threadsafe(self._stopping.set)
            self._thread.join(timeout=10)
        self._socket.close()

    def subscriber_count(self, channel: str) -> int:
        return len(self.channels.get(channel, {}))

    async def _serve(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        async with serve(
            self._client,
            sock=self._socket,
            create_connection=_Connection,
            process_request=self._process_request,
            select_subprotocol=self._select_subprotocol,
            max_size=MAX_FRAME_BYTES,
            # AppSync keeps a connection alive with its own "ka" messages; no WebSocket pings on top (a loaded
            # machine would miss a pong and drop subscribers a real client would keep)
            ping_interval=None,
            server_header="local-appsync-events",
            logger=_LOG,
            # No permessage-deflate: compressing every frame once per subscriber (each connection has its own
            # compression context) tripled the fan-out's CPU; AWS does not document that the endpoint offers it
            compression=None,
            write_limit=2**20,
        ):
            keep_alive = asyncio.create_task(self._keep_alive())
            self._ready.set()
            await self._stopping.wait()
            keep_alive.cancel()

    # --- HTTP: the handshake's checks and POST /event ----------------------------------------------------

    def _process_request(self, connection: ServerConnection, request: Request) -> Response | None:
        path = request.path.split("?", 1)[0]
        if request.method == "POST":
            if path != PUBLISH_PATH:
                return _json_response(404, {"errors": [_error("NotFoundException", "Not Found")]})
            status, body = self._publish_http(request)
            return _json_response(status, body)
        if request.method != "GET" or path != REALTIME_PATH:
            return _json_response(404, {"errors": [_error("NotFoundException", "Not Found")]})
        if request.headers.get("Upgrade", "").lower() != "websocket":  # a plain GET: publishing is all it serves
            return _json_response(400, {"errors": [_error("BadRequestException", "WebSocket upgrade required")]})
        offered = _offered_subprotocols(request.headers)
        if SUBPROTOCOL not in offered:
            return _json_response(
                400, {"errors": [_error("BadRequestException", f"The {SUBPROTOCOL} subprotocol is required")]}
            )
        # The connection's authorization travels in the header- subprotocol; a wrong one is told after the
        # handshake (connection_error), as AppSync does, so a browser can read why.
        connection.appsync_authorized = self._authorized(_auth_from_subprotocols(offered))  # type: ignore[attr-defined]
        return None

    def _select_subprotocol(
        self, connection: ServerConnection, subprotocols: Sequence[Subprotocol]
    ) -> Subprotocol | None:
        return Subprotocol(SUBPROTOCOL) if SUBPROTOCOL in subprotocols else None

    def _authorized(self, authorization: dict | None) -> bool:
        key = authorization.get("x-api-key") if isinstance(authorization, dict) else None
        return isinstance(key, str) and hmac.compare_digest(key.encode(), self.api_key.encode())

    def _publish_http(self, request: Request) -> tuple[int, dict]:
        body: bytes = request.body  # type: ignore[attr-defined]
        headers = request.headers
        authorization = headers.get("Authorization")
        if authorization is None:
            if headers.get("x-api-key") is not None:  # the namespace publishes with IAM only
                return 401, {"errors": [_error("UnauthorizedException", NOT_AUTHORIZED)]}
            return 401, {"errors": [_error("UnauthorizedException", "Missing authorization")]}
        refused = self._check_signature(request, authorization, body)
        if refused is not None:
            return refused
        if len(body) > MAX_PUBLISH_BYTES:
            return 400, {"errors": [_error("BadRequestException", "Request size exceeds the limit of 1.2 MB")]}
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            return 400, {"errors": [_error("BadRequestException", "Invalid JSON body")]}
        problem = _publish_problem(message)
        if problem is not None:
            return 400, {"errors": [_error("BadRequestException", problem)]}
        successful = self.publish(message["channel"], message["events"])
        return 200, {"failed": [], "successful": successful}

    def _check_signature(self, request: Request, authorization: str, body: bytes) -> tuple[int, dict] | None:
        """None when the request carries the SigV4 signature of the local credentials, else AppSync's answer."""
        parsed = _AUTHORIZATION.fullmatch(authorization.strip())
        if parsed is None:
            return 401, {"errors": [_error("UnauthorizedException", NOT_AUTHORIZED)]}
        if parsed["key"] != self.credentials.access_key or parsed["service"] != "appsync":
            return 403, {"errors": [_error("UnrecognizedClientException", "The security token included is invalid.")]}
        amz_date = request.headers.get("X-Amz-Date", "")
        try:
            signed_at = datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        except ValueError:
            return 403, {"errors": [_error("BadRequestException", "Missing or invalid X-Amz-Date")]}
        if abs(time.time() - signed_at.timestamp()) > SIGNATURE_MAX_AGE_SECONDS:
            return 403, {"errors": [_error("BadRequestException", "Signature expired")]}
        signed = parsed["signed"].split(";")
        if "host" not in signed:
            return 403, {"errors": [_error("BadRequestException", "The host header must be signed")]}
        expected = _signature(
            self.credentials,
            parsed["region"],
            request.path,
            {name: request.headers.get(name, "") for name in signed},
            body,
            amz_date,
        )
        if parsed["region"] != self.region or not hmac.compare_digest(expected, parsed["signature"]):
            return 403, {
                "errors": [
                    _error(
                        "BadRequestException",
                        "The request signature we calculated does not match the signature you provided. "
                        "Check your AWS Secret Access Key and signing method.",
                    )
                ]
            }
        return None

    def publish(self, channel: str, events: list[str]) -> list[dict]:
        """Take events for every subscriber of channel (called on the event loop); the `successful` list. As on
        AppSync, the publisher's answer does not wait for the delivery: it runs on the loop's next turn, after
        the answer is written."""
        self.published += len(events)
        assert self.loop is not None
        self.loop.call_soon(self._deliver, channel, list(events))
        return [{"identifier": str(uuid.uuid4()), "index": index} for index in range(len(events))]

    def _deliver(self, channel: str, events: list[str]) -> None:
        subscriptions = list(self.channels.get(channel, {}))
        for event in events:
            # {"type": "data", "id": <subscription id>, "event": <the event, a JSON string>}: built once, the id
            # spliced in per subscription, each frame written straight to its connection's transport (an unmasked
            # text frame: no extension is negotiated, see compression=None); what websockets' broadcast() does,
            # at a third of its CPU per subscriber
            tail = (',"event":' + json.dumps(event) + "}").encode()
            for client, subscription_id in subscriptions:
                connection = client.connection
                if connection.protocol.state is not State.OPEN:
                    continue
                payload = b'{"type":"data","id":' + json.dumps(subscription_id).encode() + tail
                connection.transport.write(_text_frame_header(len(payload)) + payload)

    # --- the WebSocket ------------------------------------------------------------------------------------

    async def _client(self, connection: ServerConnection) -> None:
        client = _Client(connection, getattr(connection, "appsync_authorized", False))
        self.clients.add(client)
        try:
            async for frame in connection:
                if not client.authorized:
                    await self._refuse_connection(client)
                    return
                await self._handle(client, frame)
        except ConnectionClosed:
            pass
        finally:
            self.clients.discard(client)
            for subscription_id, channel in client.subscriptions.items():
                self._forget(channel, client, subscription_id)

    async def _refuse_connection(self, client: _Client) -> None:
        await _send(
            client,
            {"type": "connection_error", "errors": [_error("UnauthorizedException", NOT_AUTHORIZED, errorCode=401)]},
        )
        await client.connection.close(1000, "Unauthorized")

    async def _handle(self, client: _Client, frame: str | bytes) -> None:
        try:
            message = json.loads(frame)
        except (ValueError, RecursionError):
            message = None
        if not isinstance(message, dict):
            await _send(
                client,
                {"type": "error", "errors": [_error("MessageProcessingError", "Message is not a valid JSON object")]},
            )
            return
        kind = message.get("type")
        message_id = message.get("id")
        if kind == "connection_init":
            client.acknowledged = True
            await _send(client, {"type": "connection_ack", "connectionTimeoutMs": CONNECTION_TIMEOUT_MS})
        elif kind == "subscribe":
            await self._subscribe(client, message)
        elif kind == "unsubscribe":
            await self._unsubscribe(client, message)
        elif kind == "publish":
            if not isinstance(message_id, str) or not message_id:
                await _send(client, {"type": "error", "errors": [_error("BadRequestException", "id is required")]})
                return
            # the namespace publishes with IAM only, and the browser's API key is not that
            refused = [_error("UnauthorizedException", NOT_AUTHORIZED)]
            await _send(client, {"type": "publish_error", "id": message_id, "errors": refused})
        else:
            answer: dict = {
                "type": "error",
                "errors": [_error("UnsupportedOperation", f"{kind} not supported through the realtime channel")],
            }
            if isinstance(message_id, str):
                answer["id"] = message_id
            await _send(client, answer)

    async def _subscribe(self, client: _Client, message: dict) -> None:
        subscription_id, channel = message.get("id"), message.get("channel")
        if not isinstance(subscription_id, str) or not subscription_id:
            await _send(client, {"type": "error", "errors": [_error("BadRequestException", "id is required")]})
            return

        async def refuse(error_type: str, text: str) -> None:
            errors = [_error(error_type, text)]
            await _send(client, {"type": "subscribe_error", "id": subscription_id, "errors": errors})

        if not self._authorized(message.get("authorization")):
            return await refuse("UnauthorizedException", NOT_AUTHORIZED)
        if not isinstance(channel, str) or not CHANNEL_PATTERN.fullmatch(channel):
            return await refuse("BadRequestException", "Invalid channel path")
        channel = "/" + channel.strip("/")
        if channel.split("/")[1] not in NAMESPACES:
            return await refuse("BadRequestException", f"Channel namespace {channel.split('/')[1]} not found")
        if subscription_id in client.subscriptions:
            return await refuse("BadRequestException", f"Subscription id {subscription_id} is already in use")
        if len(client.subscriptions) >= MAX_SUBSCRIPTIONS_PER_CONNECTION:
            return await refuse(
                "LimitExceededException", f"At most {MAX_SUBSCRIPTIONS_PER_CONNECTION} subscriptions per connection"
            )
        client.subscriptions[subscription_id] = channel
        self.channels.setdefault(channel, {})[(client, subscription_id)] = None
        await _send(client, {"type": "subscribe_success", "id": subscription_id})

    async def _unsubscribe(self, client: _Client, message: dict) -> None:
        subscription_id = message.get("id")
        channel = client.subscriptions.pop(subscription_id, None) if isinstance(subscription_id, str) else None
        if channel is None:
            await _send(
                client,
                {
                    "type": "unsubscribe_error",
                    "id": subscription_id if isinstance(subscription_id, str) else None,
                    "errors": [_error("UnknownOperationError", f"Unknown operation id {subscription_id}")],
                },
            )
            return
        assert isinstance(subscription_id, str)  # else no channel was found
        self._forget(channel, client, subscription_id)
        await _send(client, {"type": "unsubscribe_success", "id": subscription_id})

    def _forget(self, channel: str, client: _Client, subscription_id: str) -> None:
        subscribers = self.channels.get(channel)
        if subscribers is not None:
            subscribers.pop((client, subscription_id), None)
            if not subscribers:
                del self.channels[channel]

    async def _keep_alive(self) -> None:
        while True:
            await asyncio.sleep(self.keep_alive_seconds)
            broadcast([c.connection for c in self.clients if c.acknowledged], '{"type":"ka"}')


async def _send(client: _Client, message: dict) -> None:
    try:
        await client.connection.send(json.dumps(message))
    except ConnectionClosed:
        pass


def _text_frame_header(length: int) -> bytes:
    """RFC 6455 header of a final, unmasked text frame (what a server sends) carrying `length` bytes."""
    if length < 126:
        return bytes((0x81, length))
    if length < 65536:
        return bytes((0x81, 126)) + length.to_bytes(2, "big")
    return bytes((0x81, 127)) + length.to_bytes(8, "big")


def _json_response(status: int, body: dict) -> Response:
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


def _offered_subprotocols(headers: Headers) -> list[str]:
    return [p.strip() for value in headers.get_all("Sec-WebSocket-Protocol") for p in value.split(",") if p.strip()]


def _auth_from_subprotocols(offered: list[str]) -> dict | None:
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


def _publish_problem(message) -> str | None:
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


def _signature(credentials: Credentials, region: str, path: str, headers: dict, body: bytes, amz_date: str) -> str:
    """The SigV4 signature (service appsync) of a request with these signed headers, computed by botocore."""
    host = headers.get("host", "")
    request = AWSRequest(method="POST", url=f"http://{host}{path}", data=body, headers=headers)
    request.context["timestamp"] = amz_date
    signer = SigV4Auth(credentials, "appsync", region)
    canonical = signer.canonical_request(request)
    return signer.signature(signer.string_to_sign(request, canonical), request)
