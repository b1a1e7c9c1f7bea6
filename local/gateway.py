"""The local API gateway: the deployed REST API's behaviour, in-process.

It dispatches with the same route table the CDK stack builds API Gateway from,
answers what API Gateway answers itself (CORS preflight, missing API key,
unknown route, wrong method, missing query parameter, invalid body), and hands
everything else to the real handler as a REST v1 proxy event.
"""

from __future__ import annotations

import hmac
import importlib
import json
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

from local import LAMBDA_SRC, schema
from local.events import LambdaContext, Request, build_event, http_response

MAX_BODY = 64 * 1024  # the API's documented limit (413 above it)
DRAIN_LIMIT = 10 * 1024 * 1024  # API Gateway's own payload cap: past it we just hang up

Headers = list[tuple[str, str]]
Response = tuple[int, Headers, bytes]


def routes_module():
    if str(LAMBDA_SRC) not in sys.path:
        sys.path.insert(0, str(LAMBDA_SRC))  # the Lambda code asset's root: the `leaderboard` package
    return importlib.import_module("leaderboard.routes")


def load_handlers() -> dict[str, Callable]:
    """Import every function's entry point ("module.attr" relative to lambda_src/).

    Call it after the handlers' environment is set: settings may be read at import.
    """
    routes = routes_module()
    out = {}
    for fn in routes.FUNCTIONS:
        module, _, attr = fn.handler.rpartition(".")
        out[fn.handler] = getattr(importlib.import_module(module), attr)
    return out


@dataclass(frozen=True)
class GatewayConfig:
    api_key: str
    allowed_origins: tuple[str, ...]  # "*" allows any origin
    allow_headers: str = "Content-Type,X-Api-Key,Authorization"  # the template's preflight answer
    max_age: str = "3600"
    stage: str = "local"
    quiet: bool = False


class LocalGateway:
    def __init__(self, config: GatewayConfig, handlers: dict[str, Callable] | None = None) -> None:
        self.config = config
        self.routes = routes_module()
        self.handlers = handlers if handlers is not None else load_handlers()

    # --- what API Gateway answers by itself -------------------------------------------
    def cors_headers(self, origin: str | None) -> Headers:
        """The same answer as the handlers' CORS: the origin if allowed, else the first allowed one."""
        allowed = self.config.allowed_origins
        value = "*" if "*" in allowed else origin if origin in allowed else allowed[0]
        return [("Access-Control-Allow-Origin", value), ("Vary", "Origin")]

    def error(self, status: int, message: str, origin: str | None) -> Response:
        body = json.dumps({"error": message}).encode()
        return status, [("Content-Type", "application/json"), *self.cors_headers(origin)], body

    def gateway_error(self, err, origin: str | None) -> Response:
        return self.error(err.status, err.message, origin)

    def preflight(self, path: str, origin: str | None) -> Response:
        methods = sorted({r.method for r in self.routes.ROUTES if r.match(path) is not None} | {"OPTIONS"})
        headers = [
            *self.cors_headers(origin),
            ("Access-Control-Allow-Methods", ",".join(methods)),
            ("Access-Control-Allow-Headers", self.config.allow_headers),
            ("Access-Control-Max-Age", self.config.max_age),
        ]
        return 204, headers, b""

    # --- dispatch ----------------------------------------------------------------------
    def dispatch(self, req: Request) -> Response:
        origin = req.header("origin")
        route, path_known, params = self.routes.match_route(req.method, req.path)
        if not path_known:
            return self.gateway_error(self.routes.UNKNOWN_ROUTE, origin)
        if req.method == "OPTIONS" and route is None:
            return self.preflight(req.path, origin)
        if route is None:
            return self.gateway_error(self.routes.METHOD_NOT_ALLOWED, origin)
        key = req.header("x-api-key")
        if route.needs_key and not (key and hmac.compare_digest(key.encode(), self.config.api_key.encode())):
            return self.gateway_error(self.routes.INVALID_API_KEY, origin)
        missing = [q for q in route.required_query if not dict(req.query).get(q)]
        if missing:
            return self.error(400, f"Missing required request parameters: [{', '.join(missing)}]", origin)
        problem = self._body_problem(route, req.body)
        if problem:
            return self.error(400, f"Invalid request body: {problem}", origin)
        return self._invoke(route, req, params, key if route.needs_key else None)

    @staticmethod
    def _body_problem(route, body: bytes | None) -> str | None:
        if not route.body_schema or not body or not body.strip():
            return None  # no body: the handler applies its defaults or rejects it
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            return "not valid JSON"
        errs = schema.errors(value, route.body_schema)
        return "; ".join(errs) if errs else None

    def _invoke(self, route, req: Request, params: dict[str, str], api_key: str | None) -> Response:
        fn = route.function
        event = build_event(req, route.path, params, self.config.stage, api_key)
        context = LambdaContext(fn.name, req.request_id, fn.timeout_seconds)
        try:
            return http_response(self.handlers[fn.handler](event, context))
        except Exception:  # includes MalformedResult
            # Like API Gateway: the client learns nothing of the failure but its status.
            print(f"[{req.request_id}] {fn.handler} failed on {req.method} {req.path}:", file=sys.stderr)
            traceback.print_exc()
            return self.error(502, "internal error", req.header("origin"))

    # --- HTTP --------------------------------------------------------------------------
    def serve(self, host: str = "127.0.0.1", port: int = 0) -> ThreadingHTTPServer:
        """Serve on a background thread; returns the server (its .server_address has the port)."""
        try:
            server = _Server((host, port), _HTTPHandler)
        except OSError as err:
            raise SystemExit(f"the local API cannot listen on {host}:{port}: {err.strerror}") from None
        server.gateway = self
        threading.Thread(target=server.serve_forever, name="local-gateway", daemon=True).start()
        return server


class _Server(ThreadingHTTPServer):
    # The stdlib's listen backlog is 5: a burst of clients (a game server, the concurrency test)
    # would see connections reset before a thread picks them up.
    request_queue_size = 128
    daemon_threads = True


class _BodyTooLarge(Exception):
    pass


class _HTTPHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so clients can reuse connections
    server_version = "leaderboard-local-gateway"
    sys_version = ""

    def version_string(self) -> str:
        return self.server_version

    def _handle(self) -> None:
        started = time.monotonic()
        gw: LocalGateway = self.server.gateway
        url = urlsplit(self.path)
        path = unquote(url.path).rstrip("/") or "/"
        try:
            body = self._read_body()
        except _BodyTooLarge:
            self.close_connection = True
            self._send(
                *gw.error(
                    413, f"Request body too large: the limit is {MAX_BODY // 1024} KiB", self.headers.get("Origin")
                )
            )
            self._drain()
            return self._log(413, started)
        except ValueError:
            self._send(*gw.error(400, "Bad Content-Length or chunked encoding", self.headers.get("Origin")))
            self.close_connection = True
            return self._log(400, started)
        req = Request(
            method=self.command,
            path=path,
            query=parse_qsl(url.query, keep_blank_values=True),
            headers=list(self.headers.items()),
            body=body,
            source_ip=self.client_address[0],
        )
        status, headers, payload = gw.dispatch(req)
        self._send(status, [*headers, ("x-amzn-RequestId", req.request_id)], payload)
        self._log(status, started)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = do_HEAD = _handle

    def _read_body(self) -> bytes | None:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            return self._read_chunked()
        length = int(self.headers.get("Content-Length") or 0)
        if length < 0:
            raise ValueError(length)
        if length > MAX_BODY:
            raise _BodyTooLarge
        return self.rfile.read(length) if length else None

    def _read_chunked(self) -> bytes | None:
        body = bytearray()
        while True:
            size = int(self.rfile.readline(1024).split(b";")[0].strip() or b"x", 16)
            if size == 0:
                while self.rfile.readline(65536) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return bytes(body) or None
            if len(body) + size > MAX_BODY:
                raise _BodyTooLarge
            body += self.rfile.read(size)
            self.rfile.readline(3)

    def _drain(self) -> None:
        """Discard an oversized body so the client reads our 413 instead of a reset; then hang up."""
        self.close_connection = True
        left = min(int(self.headers.get("Content-Length") or 0), DRAIN_LIMIT)
        try:
            self.connection.settimeout(5)
            while left > 0:
                chunk = self.rfile.read(min(left, 65536))
                if not chunk:
                    break
                left -= len(chunk)
        except (TimeoutError, OSError):
            pass

    def _send(self, status: int, headers: Headers, payload: bytes) -> None:
        try:
            self.send_response(status)
            for name, value in headers:
                if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _log(self, status: int, started: float) -> None:
        if not self.server.gateway.config.quiet:
            ms = (time.monotonic() - started) * 1000
            sys.stderr.write(f"api  {self.command} {self.path} -> {status} ({ms:.0f} ms)\n")

    def log_message(self, format, *args) -> None:  # noqa: A002 - stdlib signature
        pass  # _log writes one concise line per request instead
