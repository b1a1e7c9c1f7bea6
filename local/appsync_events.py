"""AWS AppSync Events, in-process: the live updates' local stand-in, on one port.

It speaks the two protocols AWS documents for an Event API, so the same clients work against it unchanged:

- the real-time WebSocket at `/event/realtime` ("Understanding the Event API WebSocket protocol",
  https://docs.aws.amazon.com/appsync/latest/eventapi/event-api-websocket-protocol.html): the subprotocols
  `aws-appsync-event-ws` and `header-<base64url of the authorization JSON {"host", "Authorization"}>` (the stack's
  Event API takes a Lambda authorizer's token, local/appsync_authorizer.py; without one, `{"host", "x-api-key"}`);
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
5 parts of at most 50 letters, digits or `-`; connectionTimeoutMs 300000 with a keep-alive a minute.
Not modelled: the 24-hour connection limit and the per-API rates (connections, inbound and outbound messages per
second), wildcard subscriptions (`/leaderboard/*`; nothing here subscribes to them), auth modes other than
the Lambda authorizer (or, without one, the API key) on connect and subscribe and IAM publishing, and channel
namespace handlers. The key's expiry: local/appsync_keys.py.

Fan-out: every publish is one synchronous pass on the event loop over the channel's subscriptions, each frame
written with websockets' `broadcast()` (no await, no task or thread per subscriber); it holds thousands of
subscribers on one channel (bench/live_delivery.py measures it).
"""

from __future__ import annotations

import asyncio
import collections
import hmac
import json
import logging
import socket
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from botocore.credentials import Credentials
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.protocol import State
from websockets.typing import Subprotocol

from local.appsync_authorizer import EVENT_CONNECT, EVENT_SUBSCRIBE, LambdaAuthorizer
from local.appsync_keys import KEY_PATH, ApiKeyRecord, update_key
from local.appsync_protocol import (
    CHANNEL_PATTERN,
    CONNECTION_TIMEOUT_MS,
    KEEP_ALIVE_SECONDS,
    MAX_FRAME_BYTES,
    MAX_PUBLISH_BYTES,
    MAX_SUBSCRIPTIONS_PER_CONNECTION,
    NAMESPACES,
    NOT_AUTHORIZED,
    PUBLISH_PATH,
    REALTIME_PATH,
    SUBPROTOCOL,
    auth_from_subprotocols,
    error,
    json_response,
    offered_subprotocols,
    publish_problem,
)
from local.appsync_signing import check_signature
from local.appsync_transport import Connection, text_frame_header

# websockets logs every connection opened and closed and every HTTP answer at INFO: thousands of lines a run
_LOG = logging.getLogger("local.appsync_events")
PUBLISH_TIMES_KEPT = 1000  # per channel
_LOG.setLevel(logging.WARNING)


@dataclass(eq=False)
class _Client:
    """One open WebSocket: whether it sent connection_init, and its subscriptions (id -> channel)."""

    connection: ServerConnection
    authorized: bool
    acknowledged: bool = False
    subscriptions: dict[str, str] = field(default_factory=dict)


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
        api_key_expires: int | None = None,
        clock: Callable[[], float] = time.time,
        authorizer: Callable[[dict], dict] | None = None,
        authorizer_ttl_seconds: int = 0,
    ) -> None:
        self.api_key = api_key
        # AWS_LAMBDA on connect and subscribe (the stack's Event API): the API key then admits nothing
        self.authorizer = (
            None if authorizer is None else LambdaAuthorizer(authorizer, authorizer_ttl_seconds, clock=time.monotonic)
        )
        # AppSync's rules for the key: 7 days unless told, renewed by UpdateApiKey, refused once expired
        self.key = ApiKeyRecord(api_key, expires=api_key_expires, clock=clock)
        self.credentials = Credentials(access_key_id, secret_access_key)
        self.region = region
        self.keep_alive_seconds = keep_alive_seconds
        self._socket = socket.create_server(("127.0.0.1", port), backlog=4096)
        self.port = self._socket.getsockname()[1]
        self.clients: set[_Client] = set()
        self.channels: dict[str, dict[tuple[_Client, str], None]] = {}  # channel -> its subscriptions, in order
        self.published = 0  # events accepted by POST /event
        # When each channel's publishes were accepted (monotonic seconds, the newest PUBLISH_TIMES_KEPT): what tests
        # time the broadcaster's once-a-second limit by, rather than by arrivals, which each delivery delays
        self.publish_times: dict[str, collections.deque[float]] = {}
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
            create_connection=Connection,
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
            if KEY_PATH.fullmatch(path):
                return update_key(self.key, self.credentials, self.region, request)
            if path != PUBLISH_PATH:
                return json_response(404, {"errors": [error("NotFoundException", "Not Found")]})
            status, body = self._publish_http(request)
            return json_response(status, body)
        if request.method != "GET" or path != REALTIME_PATH:
            return json_response(404, {"errors": [error("NotFoundException", "Not Found")]})
        if request.headers.get("Upgrade", "").lower() != "websocket":  # a plain GET: publishing is all it serves
            return json_response(400, {"errors": [error("BadRequestException", "WebSocket upgrade required")]})
        offered = offered_subprotocols(request.headers)
        if SUBPROTOCOL not in offered:
            return json_response(
                400, {"errors": [error("BadRequestException", f"The {SUBPROTOCOL} subprotocol is required")]}
            )
        # The connection's authorization travels in the header- subprotocol; a wrong one is told after the
        # handshake (connection_error), as AppSync does, so a browser can read why (the authorizer, if any, is
        # asked then, off the event loop).
        connection.appsync_authorization = auth_from_subprotocols(offered)  # type: ignore[attr-defined]
        return None

    def _select_subprotocol(
        self, connection: ServerConnection, subprotocols: Sequence[Subprotocol]
    ) -> Subprotocol | None:
        return Subprotocol(SUBPROTOCOL) if SUBPROTOCOL in subprotocols else None

    async def _admitted(self, authorization: object, operation: str, channel: str | None = None) -> bool:
        """Whether the connect or subscribe's authorization passes the API's mode for it: the Lambda authorizer
        (the stack's), else the API key."""
        if self.authorizer is None:
            return self._authorized(authorization if isinstance(authorization, dict) else None)
        return await asyncio.to_thread(self.authorizer.allows, authorization, operation, channel)

    def _authorized(self, authorization: dict | None) -> bool:
        key = authorization.get("x-api-key") if isinstance(authorization, dict) else None
        matches = isinstance(key, str) and hmac.compare_digest(key.encode(), self.api_key.encode())
        return matches and self.key.valid_now()

    def _publish_http(self, request: Request) -> tuple[int, dict]:
        body: bytes = request.body  # type: ignore[attr-defined]
        headers = request.headers
        authorization = headers.get("Authorization")
        if authorization is None:
            if headers.get("x-api-key") is not None:  # the namespace publishes with IAM only
                return 401, {"errors": [error("UnauthorizedException", NOT_AUTHORIZED)]}
            return 401, {"errors": [error("UnauthorizedException", "Missing authorization")]}
        refused = check_signature(self.credentials, self.region, request, authorization, body)
        if refused is not None:
            return refused
        if len(body) > MAX_PUBLISH_BYTES:
            return 400, {"errors": [error("BadRequestException", "Request size exceeds the limit of 1.2 MB")]}
        try:
            message = json.loads(body)
        except (ValueError, RecursionError):
            return 400, {"errors": [error("BadRequestException", "Invalid JSON body")]}
        problem = publish_problem(message)
        if problem is not None:
            return 400, {"errors": [error("BadRequestException", problem)]}
        successful = self.publish(message["channel"], message["events"])
        return 200, {"failed": [], "successful": successful}

    def publish(self, channel: str, events: list[str]) -> list[dict]:
        """Take events for every subscriber of channel (called on the event loop); the `successful` list. As on
        AppSync, the publisher's answer does not wait for the delivery: it runs on the loop's next turn, after
        the answer is written."""
        self.published += len(events)
        self.publish_times.setdefault(channel, collections.deque(maxlen=PUBLISH_TIMES_KEPT)).append(time.monotonic())
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
                connection.transport.write(text_frame_header(len(payload)) + payload)

    # --- the WebSocket ------------------------------------------------------------------------------------

    async def _client(self, connection: ServerConnection) -> None:
        authorization = getattr(connection, "appsync_authorization", None)
        client = _Client(connection, await self._admitted(authorization, EVENT_CONNECT))
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
            {"type": "connection_error", "errors": [error("UnauthorizedException", NOT_AUTHORIZED, errorCode=401)]},
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
                {"type": "error", "errors": [error("MessageProcessingError", "Message is not a valid JSON object")]},
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
                await _send(client, {"type": "error", "errors": [error("BadRequestException", "id is required")]})
                return
            # the namespace publishes with IAM only, and the browser's API key is not that
            refused = [error("UnauthorizedException", NOT_AUTHORIZED)]
            await _send(client, {"type": "publish_error", "id": message_id, "errors": refused})
        else:
            answer: dict = {
                "type": "error",
                "errors": [error("UnsupportedOperation", f"{kind} not supported through the realtime channel")],
            }
            if isinstance(message_id, str):
                answer["id"] = message_id
            await _send(client, answer)

    async def _subscribe(self, client: _Client, message: dict) -> None:
        subscription_id, channel = message.get("id"), message.get("channel")
        if not isinstance(subscription_id, str) or not subscription_id:
            await _send(client, {"type": "error", "errors": [error("BadRequestException", "id is required")]})
            return

        async def refuse(error_type: str, text: str) -> None:
            errors = [error(error_type, text)]
            await _send(client, {"type": "subscribe_error", "id": subscription_id, "errors": errors})

        # The channel and its namespace first: the namespace says which auth modes subscribe to it
        if not isinstance(channel, str) or not CHANNEL_PATTERN.fullmatch(channel):
            return await refuse("BadRequestException", "Invalid channel path")
        asked, channel = channel, "/" + channel.strip("/")
        if channel.split("/")[1] not in NAMESPACES:
            return await refuse("BadRequestException", f"Channel namespace {channel.split('/')[1]} not found")
        # the authorizer judges the channel as the client wrote it (a trailing slash is not the board's channel)
        if not await self._admitted(message.get("authorization"), EVENT_SUBSCRIBE, asked):
            return await refuse("UnauthorizedException", NOT_AUTHORIZED)
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
                    "errors": [error("UnknownOperationError", f"Unknown operation id {subscription_id}")],
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
