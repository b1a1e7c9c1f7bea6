"""A stand-in for the leaderboard's public API on a local port, for the verifier's `--url` mode: each GET is
answered by a function of the path and query, as JSON (None: a 404)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

Answer = Callable[[str, dict[str, list[str]]], Any]


@contextmanager
def serving(answer: Answer) -> Iterator[tuple[str, list[str]]]:
    """Serves `answer(path, query)` until the block ends; yields the base URL and every path asked (with its
    query string), in order."""
    asked: list[str] = []

    class Api(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802  (http.server's name)
            asked.append(self.path)
            url = urlparse(self.path)
            body = answer(url.path, parse_qs(url.query))
            data = json.dumps(body).encode()
            self.send_response(404 if body is None else 200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", asked
    finally:
        server.shutdown()
        server.server_close()
