"""A real local HTTP endpoint standing in for AppSync Events' publish endpoint in unit tests (what the publish
client sends, and what the broadcaster publishes through it)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Endpoint:
    """A local HTTP server standing in for AppSync's publish endpoint: records each request, answers as told."""

    def __init__(self):
        self.requests: list[dict] = []
        self.status, self.answer, self.delay = 200, {"successful": [], "failed": []}, 0.0
        self.released = threading.Event()
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                endpoint.requests.append({"path": self.path, "headers": dict(self.headers.items()), "body": body})
                if endpoint.delay:
                    endpoint.released.wait(endpoint.delay)
                data = json.dumps(endpoint.answer).encode()
                self.send_response(endpoint.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, args=(0.02,), daemon=True).start()

    def close(self):
        self.released.set()
        self.server.shutdown()
        self.server.server_close()

    def published(self) -> list[tuple[str, list[dict]]]:
        """(channel, events) of every request received, the events decoded from their JSON strings."""
        bodies = [json.loads(r["body"]) for r in self.requests]
        return [(b["channel"], [json.loads(e) for e in b["events"]]) for b in bodies]
