"""Subscribers of a board period's live top, speaking AWS AppSync Events' WebSocket protocol (asyncio, one task per
connection): what the delivery benchmark and the integration tests open by the hundreds or thousands.

A subscriber follows exactly what discovery says (`GET /leaderboards/{board}` -> `live`): it gets a subscribe
token of its own (GET `live["api_url"]` + `live["token_path"]`, waiting out a 429's Retry-After; the caller adds
`api_url`) as its authorization `{"host", "Authorization": <token>}` (or takes `live["auth"]` / its own `auth` as
given), connects to `live["realtime_url"]` with the subprotocols `aws-appsync-event-ws` and `header-<base64url of
that authorization>`, sends `connection_init`, waits for `connection_ack`, subscribes to
`live["channels"][kind]` with the same authorization, and records every `data` event with the time it arrived
(the frame is parsed later, so the arrival time is not held up by the parsing of a thousand others that came with
it). A board hands a client only a few tokens (live_access.client_of: its connecting address): against a local
stack each token is asked for from an address of its own on the loopback network (127.0.0.0/8), as the viewers of a
real audience each have theirs.
"""

from __future__ import annotations

import asyncio
import base64
import http.client
import itertools
import json
import threading
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from websockets.asyncio.client import ClientConnection, connect

SUBPROTOCOL = "aws-appsync-event-ws"
OPEN_TIMEOUT_SECONDS = 30
TOKEN_ATTEMPTS = 10  # a board hands out so many tokens a minute: a crowd past it waits for the next minute


_VIEWERS = itertools.count(1)  # the next loopback address a token is asked for from
_VIEWERS_LOCK = threading.Lock()
LOOPBACK_HOSTS = ("127.0.0.1", "localhost")


def viewer_address() -> str:
    """A loopback address no earlier call gave (127.1.0.1, 127.1.0.2, ...): one viewer of a local stack."""
    with _VIEWERS_LOCK:
        n = next(_VIEWERS)
    return f"127.{1 + n // 65536 % 254}.{n // 256 % 256}.{n % 256}"


def token_auth(live: dict, source: str | None = None) -> dict:
    """A fresh live subscribe token from the API, as the authorization AppSync's Lambda mode takes (blocking). On a
    local stack it is asked for from `source` (default: a loopback address of its own, a viewer of its own)."""
    url = live["api_url"] + live["token_path"]
    parts = urlsplit(url)
    local = parts.hostname in LOOPBACK_HOSTS
    if local and source is None:
        source = viewer_address()
    for _ in range(TOKEN_ATTEMPTS):
        if local:
            status, headers, body = _get_from(parts, source)
            if status == 200:
                return {"host": live["http_host"], "Authorization": json.loads(body)["token"]}
            if status != 429:
                raise RuntimeError(f"GET {url} answered {status}: {body[:200]!r}")
            time.sleep(float(headers.get("Retry-After") or 1))
            continue
        try:
            with urllib.request.urlopen(url, timeout=30) as answer:
                token = json.load(answer)["token"]
            return {"host": live["http_host"], "Authorization": token}
        except urllib.error.HTTPError as err:
            if err.code != 429:
                raise
            time.sleep(float(err.headers.get("Retry-After") or 1))
    raise RuntimeError(f"no live token from {url} after {TOKEN_ATTEMPTS} attempts")


def _get_from(parts, source: str | None) -> tuple[int, dict, bytes]:
    """GET the URL over a connection from `source` (a local address; None: the system's choice)."""
    connection = http.client.HTTPConnection(
        parts.hostname, parts.port or 80, timeout=30, source_address=None if source is None else (source, 0)
    )
    try:
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request("GET", path)
        answer = connection.getresponse()
        return answer.status, dict(answer.getheaders()), answer.read()
    finally:
        connection.close()


def auth_subprotocol(auth: dict) -> str:
    """`header-` + the base64url (unpadded) of the authorization JSON, as AppSync's real-time endpoint reads it."""
    return "header-" + base64.urlsafe_b64encode(json.dumps(auth).encode()).decode().rstrip("=")


class SubscribeRefused(Exception):
    def __init__(self, answer: dict) -> None:
        super().__init__(json.dumps(answer))
        self.answer = answer


@dataclass
class Subscriber:
    live: dict  # discovery's `live` field
    channel: str
    auth: dict | None = None  # what it sends; None: live["auth"], else a token of its own (token_auth)
    subscription_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    frames: list[tuple[float, str]] = field(default_factory=list)  # (time.monotonic() at arrival, raw frame)
    control: list[dict] = field(default_factory=list)  # every message that is not a data event
    ws: ClientConnection | None = None
    _reader: asyncio.Task | None = None
    _arrived: asyncio.Event = field(default_factory=asyncio.Event)

    async def open(self) -> Subscriber:
        """Connected, acknowledged and subscribed (raises SubscribeRefused with AppSync's answer otherwise)."""
        auth = self.auth or self.live.get("auth") or await asyncio.to_thread(token_auth, self.live)
        self.ws = await connect(
            self.live["realtime_url"],
            subprotocols=[SUBPROTOCOL, auth_subprotocol(auth)],
            open_timeout=OPEN_TIMEOUT_SECONDS,
            ping_interval=None,  # AppSync's "ka" messages keep the connection; no pings on a loaded machine
            max_size=None,
            max_queue=None,
        )
        await self.ws.send(json.dumps({"type": "connection_init"}))
        ack = await self._answer()
        if ack.get("type") != "connection_ack":
            raise SubscribeRefused(ack)
        subscribe = {"type": "subscribe", "id": self.subscription_id, "channel": self.channel, "authorization": auth}
        await self.ws.send(json.dumps(subscribe))
        answer = await self._answer()
        if answer.get("type") != "subscribe_success" or answer.get("id") != self.subscription_id:
            raise SubscribeRefused(answer)
        self._reader = asyncio.create_task(self._read())
        return self

    async def _answer(self) -> dict:
        """The next message that is not a keep-alive: AppSync sends "ka" at any time after connection_ack, so one
        may come before the answer to a subscribe (on a loaded machine, it did)."""
        assert self.ws is not None
        deadline = asyncio.get_running_loop().time() + OPEN_TIMEOUT_SECONDS
        while True:
            left = deadline - asyncio.get_running_loop().time()
            message = json.loads(await asyncio.wait_for(self.ws.recv(), max(left, 0.001)))
            if message.get("type") != "ka":
                return message

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for frame in self.ws:
                at = time.monotonic()
                head = frame[:120]  # a data message names its type before the event it carries
                if '"type":"data"' in head or '"type": "data"' in head:
                    self.frames.append((at, frame))
                else:
                    message = json.loads(frame)
                    if message.get("type") == "data":
                        self.frames.append((at, frame))
                    else:
                        self.control.append(message)
                self._arrived.set()
        except Exception:  # closed: what it got is what it got
            pass

    def events(self, after: int = 0) -> list[tuple[float, dict]]:
        """(arrival time, the published event) of every data message from index `after`, for this subscription."""
        out = []
        for at, frame in self.frames[after:]:
            message = json.loads(frame)
            if message.get("type") == "data" and message.get("id") == self.subscription_id:
                out.append((at, json.loads(message["event"])))
        return out

    async def wait_for(self, predicate: Callable[[dict], bool], timeout: float, after: int = 0) -> tuple[float, dict]:
        """The first event (from data message `after`) for which predicate holds."""
        deadline = time.monotonic() + timeout
        seen = after
        while True:
            for at, event in self.events(seen):
                if predicate(event):
                    return at, event
            seen = len(self.frames)
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no such event within {timeout} s; got {self.events(after)}")
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), left)
            except TimeoutError:
                pass

    async def request(self, message: dict, timeout: float = 10) -> dict:
        """Send a control message; the next control message that comes back."""
        assert self.ws is not None
        seen = len(self.control)
        await self.ws.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while len(self.control) == seen:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no answer to {message} within {timeout} s")
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), left)
            except TimeoutError:
                pass
        return self.control[seen]

    async def unsubscribe(self) -> dict:
        return await self.request({"type": "unsubscribe", "id": self.subscription_id})

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await self._reader


async def open_subscribers(live: dict, channel: str, count: int, at_once: int = 100) -> list[Subscriber]:
    """`count` subscribers of `channel`, opened `at_once` at a time (a connect storm is not what is measured)."""
    gate = asyncio.Semaphore(at_once)

    async def one() -> Subscriber:
        async with gate:
            return await Subscriber(live, channel).open()

    return list(await asyncio.gather(*(one() for _ in range(count))))


async def close_all(subscribers: list[Subscriber]) -> None:
    await asyncio.gather(*(s.close() for s in subscribers), return_exceptions=True)
