"""Fallback when nginx is missing: the site's files plus the two proxies nginx.conf defines.

/api/...        GET/HEAD only, to the API without credentials
/admin-api/...  basic auth; ping/session answer 204, POST snapshot/simulate go on with the admin key
It is a stand-in for trying things out, not the deployed config: that is nginx's job.
"""

from __future__ import annotations

import base64
import functools
import hmac
import threading
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import MappingProxyType

ADMIN_ROUTES = MappingProxyType({"/admin-api/snapshot": "/snapshot", "/admin-api/simulate": "/simulate"})


class _Handler(SimpleHTTPRequestHandler):
    api_url = api_key = admin_auth = ""

    def do_GET(self) -> None:
        if self.path.startswith("/api/"):
            return self._proxy("GET", self.path[len("/api") :], None, {})
        if self.path.startswith("/admin-api/"):
            return self._admin()
        super().do_GET()

    def do_POST(self) -> None:
        if self.path.startswith("/admin-api/"):
            return self._admin()
        self._json(405 if self.path.startswith("/api/") else 404, b'{"error": "not allowed here"}')

    def _admin(self) -> None:
        path = self.path.split("?", 1)[0]
        if not hmac.compare_digest(self.headers.get("Authorization", ""), self.admin_auth):
            challenge = {} if path == "/admin-api/session" else {"WWW-Authenticate": 'Basic realm="Leaderboard admin"'}
            return self._json(401, b'{"error": "Not signed in as admin"}', challenge)
        if self.command == "GET" and path in ("/admin-api/ping", "/admin-api/session"):
            return self._json(204, b"")
        if self.command == "POST" and path in ADMIN_ROUTES:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            return self._proxy("POST", ADMIN_ROUTES[path], body, {"x-api-key": self.api_key})
        self._json(404, b'{"error": "Not found: the admin area proxies only POST snapshot and simulate"}')

    def _proxy(self, method: str, path: str, body: bytes | None, extra: dict) -> None:
        headers = {"Content-Type": self.headers.get("Content-Type", "application/json"), **extra}
        req = urllib.request.Request(self.api_url + path, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=65) as resp:
                status, payload = resp.status, resp.read()
        except urllib.error.HTTPError as err:
            status, payload = err.code, err.read()
        except OSError:
            status, payload = 502, b'{"error": "API unreachable"}'
        self._json(status, payload)

    def _json(self, status: int, payload: bytes, extra: dict | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-cache")
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format, *args) -> None:  # noqa: A002 - stdlib signature
        pass


def serve(port: int, site: Path, api_url: str, api_key: str, user: str, password: str) -> ThreadingHTTPServer:
    auth = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    handler = type("Handler", (_Handler,), {"api_url": api_url, "api_key": api_key, "admin_auth": auth})
    server = ThreadingHTTPServer(("127.0.0.1", port), functools.partial(handler, directory=str(site)))
    threading.Thread(target=server.serve_forever, name="dashboard", daemon=True).start()
    return server
