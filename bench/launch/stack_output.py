"""What the harness reads from `make run`'s output: the URLs it prints, and the local gateway's line per request.

`make run` (local/runner.py) prints, once it is up:

    Dashboard: http://127.0.0.1:8080/
    API: http://127.0.0.1:3001
    Live: ws://127.0.0.1:<port>/event/realtime   (the AppSync Events stand-in)
    Edge: http://127.0.0.1:<port>            (once the edge lands: Nginx's proxy cache in front of the gateway)
    ...
    Ready in 9 s. Ctrl-C stops everything.

and, without --quiet, the local gateway writes one line per request it serves (local/gateway.py, stderr):

    api  GET /leaderboards/global/top?limit=25 -> 200 (12 ms)

With the edge, the gateway also keeps a request log, one line per request ("1764600000.123 GET /leaderboard?limit=5
200": unix time, method, target, status), and
`make run` says where:

    Requests that reach the API (past the edge's cache): /path/to/api-requests.log

Requests the edge answers from its cache never reach the gateway, so either kind of line counts the origin's
requests (the log file when the stack names one, else the stderr lines).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

_URL_LINE = re.compile(r"^(Dashboard|API|Live|Edge): (\S+)\s*$")
_REQUEST_LOG_LINE = re.compile(r"^Requests that reach the API[^:]*: (\S+)\s*$")
_READY = re.compile(r"^Ready in \d+ s\.")
# stderr: "api  <METHOD> <path[?query]> -> <status> (<ms> ms)"; the request log: "<METHOD> <path[?query]> <status>"
_GATEWAY_LINE = re.compile(r"^(?:api\s+([A-Z]+) (\S+) -> (\d{3})\b|(?:\d+(?:\.\d+)? )?([A-Z]+) (/\S*) (\d{3})$)")


@dataclass(frozen=True)
class StackUrls:
    api: str
    live: str | None = None
    edge: str | None = None
    dashboard: str | None = None
    request_log: str | None = None  # the gateway's request log file, when the stack names one

    @property
    def reads(self) -> str:
        """Where public reads go: the edge when the stack has one, else straight to the API."""
        return self.edge or self.api


def is_ready(line: str) -> bool:
    """The last line `make run` prints before it serves."""
    return bool(_READY.match(line.strip()))


def parse_urls(lines: Iterable[str]) -> StackUrls:
    """The URLs from `make run`'s start-up lines (trailing slashes dropped: paths are appended to them)."""
    found: dict[str, str] = {}
    for line in lines:
        m = _URL_LINE.match(line.strip())
        if m:
            found.setdefault(m.group(1), m.group(2).rstrip("/"))
        m = _REQUEST_LOG_LINE.match(line.strip())
        if m:
            found.setdefault("log", m.group(1))
    if "API" not in found:
        raise ValueError("no 'API: <url>' line in the stack's output")
    return StackUrls(found["API"], found.get("Live"), found.get("Edge"), found.get("Dashboard"), found.get("log"))


@dataclass(frozen=True)
class GatewayRequest:
    method: str
    path: str  # without the query string
    query: str
    status: int


def parse_gateway_line(line: str) -> GatewayRequest | None:
    """One request the local gateway served, or None for any other line."""
    m = _GATEWAY_LINE.match(line.strip())
    if not m:
        return None
    method, target, status = m.groups()[0:3] if m.group(1) else m.groups()[3:6]
    url = urlsplit(target)
    return GatewayRequest(method, url.path, url.query, int(status))


def count_origin_requests(lines: Iterable[str], classify) -> Counter:
    """Gateway requests per operation name; `classify(method, path)` names the operation (None: not counted)."""
    counts: Counter = Counter()
    for line in lines:
        req = parse_gateway_line(line)
        if req is not None:
            name = classify(req.method, req.path)
            if name is not None:
                counts[name] += 1
    return counts
