"""The local API gateway: the deployed REST API's behaviour, in-process.

It dispatches with the same route table the CDK stack builds API Gateway from, each method as the imported
document in the synthesized template has it (key, required headers, the function it invokes),
answers what API Gateway answers itself (CORS preflight, missing or wrong API key,
a throttled method or key (429, with the template's buckets: throttles.py, when
given them), a missing required query parameter or header, invalid application/json
body, a function past its timeout), and hands everything else to the real
handler as a REST v1 proxy event, counting the invocations of each function. Its own answers carry the one static
Access-Control-Allow-Origin that the deployed API's gateway responses carry.
"""

from __future__ import annotations

import hmac
import importlib
import json
import secrets
import string
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from local import LAMBDA_SRC, schema
from local.events import LambdaContext, Request, build_event, http_response
from local.template import DeployedMethod
from local.throttles import Throttle, Throttles

# API Gateway's own payload cap: it answers 413 itself above this. Smaller bodies reach the handler,
# which enforces the API's 64 KiB limit (its 413 carries the caller's allowed origin, like any handler answer).
MAX_BODY = 10 * 1024 * 1024
DRAIN_LIMIT = MAX_BODY  # past this we just hang up
INTEGRATION_TIMEOUT_SECONDS = 29  # API Gateway's default: a longer function still gets a 504 at 29 s

Headers = list[tuple[str, str]]
Response = tuple[int, Headers, bytes]


def routes_module():
    if str(LAMBDA_SRC) not in sys.path:
        sys.path.insert(0, str(LAMBDA_SRC))  # the Lambda code asset's root: the `leaderboard` package
    return importlib.import_module("cdk_leaderboard_lambda.web.routes")


def load_handlers(runtime: Any = None) -> dict[str, Callable]:
    """Every function's entry point ("module.attr" relative to lambda_src/): the module's own (built at import
    from the environment, as on AWS), or, given a runtime (composition.Runtime), the module's handler for it.

    Call it after the handlers' environment is set: each module builds its own runtime at import.
    """
    routes = routes_module()
    out = {}
    for fn in routes.FUNCTIONS:
        module, _, attr = fn.handler.rpartition(".")
        loaded = importlib.import_module(module)
        out[fn.handler] = getattr(loaded, attr) if runtime is None else loaded.handler_for(runtime)
    return out


def _same(given: str | None, expected: str | None) -> bool:
    return bool(given and expected and hmac.compare_digest(given.encode(), expected.encode()))


def new_key_id() -> str:
    """An id as API Gateway gives a new key: 10 random lowercase letters and digits, nothing to do with its value
    (a rotated key gets a new one)."""
    return "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(10))


@dataclass(frozen=True)
class GatewayConfig:
    api_key: str  # the game key: score submissions (routes with access GAME)
    allowed_origins: tuple[str, ...]  # "*" allows any origin
    admin_key: str | None = None  # the admin key: boards, snapshots, the simulator (access ADMIN)
    allow_headers: str = ""  # the template's preflight answer (template.preflight_settings)
    max_age: str = "3600"
    stage: str = "local"
    quiet: bool = False
    # The static origin of the gateway's own responses (the template's gateway responses); None: the stack's rule.
    gateway_origin: str | None = None
    # Function name -> timeout in seconds, from the template; missing ones use the route table's.
    timeouts: dict[str, int] = field(default_factory=dict)
    integration_timeout: float = INTEGRATION_TIMEOUT_SECONDS
    # One line per request served ("1764600000.123 GET /leaderboard?limit=5 200": Unix time, method, target,
    # status), quiet or not: what reaches the origin, which the edge's tests count.
    request_log: Path | None = None
    # API Gateway's key check: the id of the enabled key with this value in a usage plan of the stage, or None
    # (local/keys.py asks its API Gateway stand-in). None: the two keys above, each with an id made up at start.
    key_lookup: Callable[[str | None], str | None] | None = None
    # The key class (its usage plan's: routes.GAME or routes.ADMIN) of a key value key_lookup accepts. None: the
    # two keys above.
    key_class: Callable[[str], str | None] | None = None
    # The template's throttles (throttles.from_template): None, no 429 (the test stacks, which call the admin
    # routes faster than the admin plan's few requests per second).
    throttles: Throttles | None = None
    # The imported document's methods (template.deployed_methods): which methods exist, take a key, require a
    # header and invoke which function, as API Gateway reads them. None: the route table's own (unit tests).
    deployed: Mapping[tuple[str, str], DeployedMethod] | None = None

    @property
    def static_origin(self) -> str:
        if self.gateway_origin:
            return self.gateway_origin
        return "*" if "*" in self.allowed_origins else self.allowed_origins[0]


class LocalGateway:
    def __init__(self, config: GatewayConfig, handlers: dict[str, Callable] | None = None) -> None:
        self.config = config
        self.routes = routes_module()
        self.handlers = handlers if handlers is not None else load_handlers()
        self._log_lock = threading.Lock()
        self._fixed_ids = {k: new_key_id() for k in (config.api_key, config.admin_key) if k}
        self.throttle = Throttle(config.throttles) if config.throttles is not None else None
        self.invocations: Counter[str] = Counter()  # function name -> times invoked, as Lambda's Invocations metric
        self._count_lock = threading.Lock()

    def key_id(self, key: str | None) -> str | None:
        """The id of the key API Gateway would accept with this value on a keyed method, or None (403)."""
        if self.config.key_lookup is not None:
            return self.config.key_lookup(key)
        return next((kid for value, kid in self._fixed_ids.items() if _same(key, value)), None)

    def access_of(self, key: str) -> str | None:
        """The class of the usage plan a key accepted by key_id belongs to (its per-key bucket's limit)."""
        if self.config.key_class is not None:
            return self.config.key_class(key)
        routes = self.routes
        return {self.config.api_key: routes.GAME, self.config.admin_key: routes.ADMIN}.get(key)

    def log_request(self, method: str, target: str, status: int) -> None:
        if self.config.request_log is None:
            return
        with self._log_lock, open(self.config.request_log, "a", encoding="utf-8") as log:
            log.write(f"{time.time():.3f} {method} {target} {status}\n")

    # --- what API Gateway answers by itself -------------------------------------------
    def cors_headers(self, origin: str | None) -> Headers:
        """The CORS preflight's answer (CDK's preflight template): the origin if allowed, else the first."""
        allowed = self.config.allowed_origins
        value = "*" if "*" in allowed else origin if origin in allowed else allowed[0]
        return [("Access-Control-Allow-Origin", value), ("Vary", "Origin")]

    def error(self, status: int, message: str, extra: Sequence[tuple[str, str]] = ()) -> Response:
        """An answer of the gateway itself: gateway responses carry one static origin, whatever the caller's."""
        body = json.dumps({"error": message}).encode()
        cors = [("Access-Control-Allow-Origin", self.config.static_origin), ("Vary", "Origin")]
        return status, [("Content-Type", "application/json"), *cors, *extra], body

    def gateway_error(self, err, extra: Sequence[tuple[str, str]] = ()) -> Response:
        return self.error(err.status, err.message, extra)

    def methods(self, path: str) -> list[str]:
        return sorted({r.method for r in self.routes.ROUTES if r.match(path) is not None} | {"OPTIONS"})

    def deployed_method(self, route) -> DeployedMethod | None:
        """The method as the deployed document has it (the route table's reading where no document was given);
        None where the document lacks it (API Gateway's ANY mock then answers 405)."""
        if self.config.deployed is None:
            return DeployedMethod(route.needs_key, route.required_headers, route.function.handler)
        return self.config.deployed.get((route.path, route.method))

    def preflight(self, path: str, origin: str | None) -> Response:
        methods = self.methods(path)
        headers = [
            *self.cors_headers(origin),
            ("Access-Control-Allow-Methods", ",".join(methods)),
            ("Access-Control-Allow-Headers", self.config.allow_headers),
            ("Access-Control-Max-Age", self.config.max_age),
        ]
        return 204, headers, b""

    # --- dispatch ----------------------------------------------------------------------
    def dispatch(self, req: Request) -> Response:
        route, path_known, params = self.routes.match_route(req.method, req.path)
        if not path_known:
            return self.gateway_error(self.routes.UNKNOWN_ROUTE)
        if req.method == "OPTIONS" and route is None:
            return self.preflight(req.path, req.header("origin"))
        if route is None:
            return self.gateway_error(self.routes.METHOD_NOT_ALLOWED, [("Allow", ", ".join(self.methods(req.path)))])
        method = self.deployed_method(route)
        if method is None:
            return self.gateway_error(self.routes.METHOD_NOT_ALLOWED, [("Allow", ", ".join(self.methods(req.path)))])
        key = req.header("x-api-key")
        # API Gateway takes a key of any usage plan of the stage on every keyed method and names it to the
        # function (requestContext.identity.apiKey and apiKeyId): the function refuses a key of the wrong class
        # itself (403), by its value.
        checked_id = self.key_id(key) if method.needs_key else None
        if method.needs_key and checked_id is None:
            return self.gateway_error(self.routes.INVALID_API_KEY)
        # Its key's plan bucket, then the method's (API Gateway's order); a 429 invokes nothing.
        if self.throttle is not None and not self.throttle.admit(
            route.method, route.path, checked_id, self.access_of(key) if checked_id and key else None
        ):
            return self.gateway_error(self.routes.THROTTLED)
        # Present and not blank, as API Gateway's parameter validation checks (it does not look at values): the
        # bearer routes' Authorization, the one parameter the stack makes it require (web/routes/gateway_errors.py).
        if any(not (req.header(h) or "").strip() for h in method.required_headers):
            return self.gateway_error(self.routes.MISSING_CREDENTIALS, [self.routes.BEARER_CHALLENGE])
        problem = self._body_problem(route, req)
        if problem:
            return self.error(400, f"Invalid request body: {problem}")
        return self._invoke(route, method.handler, req, params, key if method.needs_key else None, checked_id)

    @staticmethod
    def _body_problem(route, req: Request) -> str | None:
        """API Gateway validates a body against the route's model only for the model's content type,
        application/json (also assumed when Content-Type is absent); any other type reaches the handler as is.

        An object naming a member twice is checked as json.loads reads it (the last one wins) and, if that passes,
        reaches the function, which refuses it (400 naming the member: web/validation.strict_json): API Gateway's
        model validation does not refuse duplicates either, so the function's answer is the one AWS gives."""
        body = req.body
        if not route.body_schema or not body or not body.strip():
            return None  # no body: the handler applies its defaults or rejects it
        media_type = (req.header("content-type") or "application/json").split(";", 1)[0].strip().lower()
        if media_type != "application/json":
            return None
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            return "not valid JSON"
        errs = schema.errors(value, routes_module().thaw(route.body_schema))  # the frozen model as plain JSON
        return "; ".join(errs) if errs else None

    def _invoke(
        self, route, handler: str, req: Request, params: dict[str, str], api_key: str | None, api_key_id: str | None
    ) -> Response:
        fn = next(f for f in self.routes.FUNCTIONS if f.handler == handler)  # the function the integration names
        timeout = self.config.timeouts.get(fn.name, fn.timeout_seconds)
        event = build_event(req, route.path, params, self.config.stage, api_key, api_key_id)
        context = LambdaContext(fn.name, req.request_id, timeout)
        with self._count_lock:
            self.invocations[fn.name] += 1
        outcome: dict = {}

        def run() -> None:
            try:
                outcome["result"] = http_response(self.handlers[fn.handler](event, context))
            except Exception as exc:  # includes MalformedResult
                outcome["error"] = exc
                outcome["trace"] = traceback.format_exc()

        # Lambda stops a function at its timeout and API Gateway stops waiting at its integration timeout.
        # A Python thread cannot be stopped: past the deadline the answer is given and the thread's result dropped.
        worker = threading.Thread(target=run, name=f"lambda-{fn.name}", daemon=True)
        worker.start()
        worker.join(min(timeout, self.config.integration_timeout))
        if worker.is_alive():
            if timeout <= self.config.integration_timeout:
                print(f"[{req.request_id}] {fn.handler}: Task timed out after {timeout} seconds", file=sys.stderr)
                return self.error(502, "Internal server error")
            return self.error(504, "Endpoint request timed out")
        if "error" in outcome:
            # Like API Gateway: the client learns nothing of the failure but its status.
            print(f"[{req.request_id}] {fn.handler} failed on {req.method} {req.path}:", file=sys.stderr)
            print(outcome["trace"], file=sys.stderr, end="")
            return self.error(502, "Internal server error")
        return outcome["result"]

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
    gateway: LocalGateway  # set by LocalGateway.serve


class _BodyTooLarge(Exception):
    pass


class _HTTPHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, so clients can reuse connections
    server_version = "leaderboard-local-gateway"
    server: _Server
    sys_version = ""

    def version_string(self) -> str:
        return self.server_version

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        # What the stdlib refuses before a request is parsed (a request line past 64 KiB: 414; headers past its
        # limits: 431; a malformed line: 400) answered in JSON like every other gateway error, not its HTML page;
        # the connection closes, as the stdlib's own error page would close it.
        self.close_connection = True
        if code == 414:  # the rest of the request first: closing on unread data resets, losing the answer
            self._skip_head()
        phrase = message or self.responses.get(code, ("Error",))[0]
        self._send(*self.server.gateway.error(code, phrase))

    def _skip_head(self) -> None:
        left = DRAIN_LIMIT
        try:
            self.connection.settimeout(5)
            while left > 0:
                line = self.rfile.readline(65536)
                left -= len(line)
                if line in (b"\r\n", b"\n", b""):
                    break
        except (TimeoutError, OSError):
            pass

    def _handle(self) -> None:
        started = time.monotonic()
        gw: LocalGateway = self.server.gateway
        url = urlsplit(self.path)
        path = unquote(url.path).rstrip("/") or "/"
        try:
            body = self._read_body()
        except _BodyTooLarge:
            self.close_connection = True
            self._send(*gw.error(413, f"Request body too large: the limit is {MAX_BODY // (1024 * 1024)} MiB"))
            self._drain()
            return self._log(413, started)
        except ValueError:
            self._send(*gw.error(400, "Bad Content-Length or chunked encoding"))
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
        self._log(status, started)  # before the answer: a client that has it finds its line in the log
        self._send(status, [*headers, ("x-amzn-RequestId", req.request_id)], payload)

    def __getattr__(self, name: str):
        # Every method goes through the route table (TRACE, CONNECT, QUERY ...): a known path answers 405
        # with Allow, like the deployed API's catch-all method, rather than the stdlib's 501 HTML page.
        if name.startswith("do_"):
            return self._handle
        raise AttributeError(name)

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
        self.server.gateway.log_request(self.command, self.path, status)
        if not self.server.gateway.config.quiet:
            ms = (time.monotonic() - started) * 1000
            sys.stderr.write(f"api  {self.command} {self.path} -> {status} ({ms:.0f} ms)\n")

    def log_message(self, format, *args) -> None:  # noqa: A002 - stdlib signature
        pass  # _log writes one concise line per request instead
