"""The dashboard's nginx.conf: rendered for the local stack and for EC2, checked by real nginx.

The static checks read the rendered text. The live checks start nginx on a free port in
front of a tiny Python upstream and talk to it over HTTP, because the properties that
matter (the admin password is really asked for, the key is added only on the two write
routes, the browser never gets a challenge from the silent session probe) are behaviour,
not syntax. They need the `nginx` binary (Debian: apt-get install nginx; CI installs it)
and skip with that reason when it is missing.
"""

from __future__ import annotations

import base64
import http.server
import importlib.util
import json
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from string import Template

import pytest

from local.dynamodb_local import free_port

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "dashboard_ec2"
TEMPLATE = DASHBOARD / "nginx.conf.template"

_spec = importlib.util.spec_from_file_location("dashboard_render", DASHBOARD / "render.py")
render = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(render)

NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
needs_nginx = pytest.mark.skipif(NGINX is None, reason="nginx is not installed (apt-get install nginx); CI installs it")
OPENSSL = shutil.which("openssl")

ADMIN_USER, ADMIN_PASSWORD = "admin", "correct horse: battery staple"
API_KEY = "k3yFromTheUsagePlan0123456789"
JSON = {"Content-Type": "application/json"}


def local_values(tmp: Path, port: int = 8080, upstream_port: int = 3001) -> dict:
    """What the local stack passes: IP upstream, no stage path, listen on loopback."""
    return {
        "LISTEN_PORT": f"127.0.0.1:{port}",
        "SITE_ROOT": str(DASHBOARD / "site"),
        "API_UPSTREAM": f"http://127.0.0.1:{upstream_port}",
        "API_BASE_PATH": "",
        "API_HOST": f"127.0.0.1:{upstream_port}",
        "API_KEY": API_KEY,
        "HTPASSWD_FILE": str(tmp / "htpasswd"),
        "PREFIX_DIR": str(tmp),
        "RESOLVER": "127.0.0.1",
    }


def ec2_values(tmp: Path) -> dict:
    """What EC2 user data passes: API Gateway over TLS, the stage path, the VPC resolver."""
    host = "abc123defg.execute-api.us-east-1.amazonaws.com"
    return {
        "LISTEN_PORT": "80",
        "SITE_ROOT": str(DASHBOARD / "site"),
        "API_UPSTREAM": f"https://{host}",
        "API_BASE_PATH": "/prod",
        "API_HOST": host,
        "API_KEY": API_KEY,
        "HTPASSWD_FILE": str(tmp / "htpasswd"),
        "PREFIX_DIR": str(tmp),
        "RESOLVER": "169.254.169.253",
    }


def block(conf: str, header: str) -> str:
    """The text of the `{ ... }` block that follows `header` (braces balanced)."""
    start = conf.index(header)
    i = conf.index("{", start + len(header) - 1) if header.endswith("{") else conf.index("{", start)
    depth = 0
    for j in range(i, len(conf)):
        depth += {"{": 1, "}": -1}.get(conf[j], 0)
        if depth == 0:
            return conf[i + 1 : j]
    raise AssertionError(f"unbalanced block after {header!r}")


def nginx_test(conf_path: Path, prefix: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [NGINX, "-t", "-p", str(prefix), "-c", str(conf_path)], capture_output=True, text=True, timeout=30
    )


# --- rendering ---------------------------------------------------------------------------


@pytest.mark.parametrize("values_for", [local_values, ec2_values], ids=["local", "ec2"])
def test_every_placeholder_is_substituted(tmp_path, values_for):
    """No ${...} survives rendering, and every nginx variable came out as a single $."""
    conf = render.render_nginx_conf(values_for(tmp_path))
    assert "${" not in conf
    assert "$$" not in conf
    assert "$uri" in conf and "$binary_remote_addr" in conf


def test_template_placeholders_are_the_documented_keys():
    """The template uses exactly the keys render.py documents (required + optional)."""
    used = set(re.findall(r"(?<!\$)\$\{([A-Z_]+)\}", TEMPLATE.read_text()))
    assert used == set(render.REQUIRED_KEYS) | set(render.OPTIONAL_KEYS)


def test_plain_string_template_gives_the_same_text(tmp_path):
    """Anyone may render with string.Template directly (plus the optional defaults)."""
    values = local_values(tmp_path)
    plain = Template(TEMPLATE.read_text()).substitute({**render.optional_defaults(values), **values})
    assert plain == render.render_nginx_conf(values)


def test_a_missing_value_raises_and_names_it(tmp_path):
    """A forgotten value fails loudly instead of producing a half-rendered config."""
    values = local_values(tmp_path)
    del values["API_KEY"], values["RESOLVER"]
    with pytest.raises(KeyError, match="API_KEY, RESOLVER"):
        render.render_nginx_conf(values)


@pytest.mark.parametrize(
    "key, bad",
    [
        ("API_KEY", 'abc"; } server { listen 81; '),
        ("API_KEY", "abc\nx"),
        ("API_UPSTREAM", "https://host/with/path"),
        ("API_BASE_PATH", "prod/"),
        ("EDGE_UPSTREAM", "https://d111.cloudfront.net/prod"),
        ("EDGE_BASE_PATH", "prod"),
        ("SITE_ROOT", "relative/site"),
        ("LISTEN_PORT", "80; include /etc/passwd"),
    ],
)
def test_unsafe_values_are_refused(tmp_path, key, bad):
    """Values go verbatim into the config, so anything that could break out of a directive is refused."""
    values = local_values(tmp_path)
    values[key] = bad
    with pytest.raises(ValueError, match=key):
        render.render_nginx_conf(values)


def test_security_headers_and_csp(tmp_path):
    """Every response carries the security headers; the CSP allows no inline script and no framing."""
    conf = render.render_nginx_conf(local_values(tmp_path))
    server = block(conf, "server {")
    headers = dict(re.findall(r'^\s*add_header\s+(\S+)\s+"([^"]*)"\s+always;', server, re.M))
    csp = dict(
        (part.split()[0], part.split()[1:])
        for part in (p.strip() for p in headers["Content-Security-Policy"].split(";"))
    )
    assert csp["default-src"] == ["'self'"]
    assert csp["script-src"] == ["'self'"]
    assert not any("unsafe" in source for sources in csp.values() for source in sources)
    assert csp["frame-ancestors"] == ["'none'"]
    assert csp["object-src"] == ["'none'"]
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["X-Frame-Options"] == "DENY"
    assert "Referrer-Policy" in headers
    # add_header in a location would silently drop all of the above there.
    assert len(re.findall(r"^\s*add_header\s", conf, re.M)) == len(headers)
    assert re.search(r"^\s*server_tokens off;", conf, re.M)
    assert re.search(r"^\s*client_max_body_size 16k;", conf, re.M)


def test_admin_area_is_password_protected_and_adds_the_key(tmp_path):
    """/admin-api/ asks for a password and forwards only snapshot, simulate, a player's hidden flag, a board's
    hidden list and its review queue (the list, approve and reject), with the key."""
    conf = render.render_nginx_conf(local_values(tmp_path))
    admin = block(conf, "location ^~ /admin-api/ {")
    assert 'auth_basic "Leaderboard admin";' in admin
    assert f"auth_basic_user_file {tmp_path / 'htpasswd'};" in admin
    for route in ("snapshot", "simulate"):
        write = block(admin, f"location = /admin-api/{route} {{")
        assert f'proxy_set_header x-api-key "{API_KEY}";' in write
        assert "limit_except POST" in write
        assert 'proxy_set_header Authorization "";' in write  # the admin password stays here
    hidden = block(admin, '/players/(?<mod_player>[A-Za-z0-9_.:@-]{1,128})/hidden$" {')
    assert f'proxy_set_header x-api-key "{API_KEY}";' in hidden and "limit_except PUT DELETE" in hidden
    listing = block(admin, '/(?<hidden_board>[a-z0-9][a-z0-9_-]{0,47})/hidden$" {')
    assert f'proxy_set_header x-api-key "{API_KEY}";' in listing and "limit_except GET {" in listing
    queue = block(admin, '/(?<pending_board>[a-z0-9][a-z0-9_-]{0,47})/pending$" {')
    assert f'proxy_set_header x-api-key "{API_KEY}";' in queue and "limit_except GET {" in queue
    decision = block(admin, '/(?<decision>approve|reject)$" {')
    assert f'proxy_set_header x-api-key "{API_KEY}";' in decision and "limit_except POST {" in decision
    assert conf.count(API_KEY) == 6  # nowhere else


def test_public_api_location_is_read_only_and_strips_credentials(tmp_path):
    """/api/ proxies GET to the stage path and never forwards a key, a password or cookies."""
    conf = render.render_nginx_conf(ec2_values(tmp_path))
    api = block(conf, "location ^~ /api/ {")
    assert "limit_except GET" in api
    assert "rewrite ^/api/(.*)$ /prod/$1 break;" in api
    assert 'proxy_set_header x-api-key "";' in api
    assert 'proxy_set_header Authorization "";' in api
    assert "proxy_set_header Host abc123defg.execute-api.us-east-1.amazonaws.com;" in api
    assert "proxy_ssl_server_name on;" in conf
    assert "proxy_ssl_verify on;" in conf


def test_htpasswd_uses_salted_sha512_crypt(tmp_path):
    """The admin password is stored as a salted SHA-512 crypt hash, never in clear."""
    path = tmp_path / "htpasswd"
    render.write_htpasswd(path, ADMIN_USER, ADMIN_PASSWORD)
    user, _, hashed = path.read_text().strip().partition(":")
    assert user == ADMIN_USER
    assert re.fullmatch(r"\$6\$[./0-9A-Za-z]{16}\$[./0-9A-Za-z]{86}", hashed)
    assert ADMIN_PASSWORD not in path.read_text()
    assert path.stat().st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    "password, salt, rounds, expected",
    [
        # Test vectors from Ulrich Drepper's "Unix crypt using SHA-256 and SHA-512".
        (
            "Hello world!",
            "saltstring",
            None,
            "$6$saltstring$svn8UoSVapNtMuq1ukKS4tPQd8iKwSMHWjl/O817G3uBnIFNjnQJuesI68u4OTLiBFdcbYEdFCoEOfaS35inz1",
        ),
        (
            "Hello world!",
            "saltstringsaltstring",
            10000,
            "$6$rounds=10000$saltstringsaltst$OW1/O6BYHV6BcXZu8QVeXbDWra3Oeqh0sbHbbMCVNSnCM/UrjmM0Dp8vOuZeHBy/YTBmSK6H9qs/y3RnOaw5v.",
        ),
    ],
)
def test_sha512_crypt_matches_the_specification(password, salt, rounds, expected):
    """The pure-Python hash is the one glibc/libxcrypt crypt() (which nginx calls) computes."""
    assert render.sha512_crypt(password, salt, rounds) == expected


@pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed")
@pytest.mark.parametrize(
    "password, salt",
    [("s3cret", "abcdefgh12345678"), ("pässwörd with spaces", "ab"), ("x" * 70, "ZZZ"), ("a" * 200, "q/.9")],
)
def test_sha512_crypt_matches_openssl(password, salt):
    """Same hash as `openssl passwd -6` for short, long (> 64 bytes) and non-ASCII passwords."""
    expected = subprocess.run(
        [OPENSSL, "passwd", "-6", "-salt", salt, password], capture_output=True, text=True, check=True, timeout=30
    ).stdout.strip()
    assert render.sha512_crypt(password, salt) == expected


def test_cli_renders_reads_secrets_from_files_and_writes_everything(tmp_path):
    """The command EC2 user data runs: KEY=@FILE for the key, the password on stdin."""
    key_file = tmp_path / "api-key"
    key_file.write_text(API_KEY + "\n")
    values = {**ec2_values(tmp_path), "API_KEY": f"@{key_file}"}
    out = tmp_path / "nginx.conf"
    result = subprocess.run(
        [
            "python3",
            str(DASHBOARD / "render.py"),
            "--out",
            str(out),
            "--htpasswd",
            str(tmp_path / "htpasswd"),
            "--site-config",
            str(tmp_path / "config.json"),
            "--stage",
            "prod",
            "--api-url",
            "https://x.example/prod",
        ]
        + [f"{k}={v}" for k, v in values.items()],
        input=ADMIN_PASSWORD + "\n",
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert f'"{API_KEY}"' in out.read_text()
    assert out.stat().st_mode & 0o777 == 0o600
    assert (tmp_path / "htpasswd").read_text().startswith(f"{ADMIN_USER}:$6$")
    assert json.loads((tmp_path / "config.json").read_text()) == {
        "apiBase": "/api",
        "adminBase": "/admin-api",
        "stage": "prod",
        "apiUrl": "https://x.example/prod",
    }
    bad = subprocess.run(
        ["python3", str(DASHBOARD / "render.py"), "--out", str(out), "LISTEN_PORT=80"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode == 2 and "missing nginx.conf values" in bad.stderr


# --- nginx -t ------------------------------------------------------------------------------


@needs_nginx
@pytest.mark.parametrize("values_for", [local_values, ec2_values], ids=["local", "ec2"])
def test_nginx_accepts_the_rendered_config(tmp_path, values_for):
    """`nginx -t` passes on the config exactly as the local stack and EC2 render it."""
    values = values_for(tmp_path)
    render.write_htpasswd(values["HTPASSWD_FILE"], ADMIN_USER, ADMIN_PASSWORD)
    conf = tmp_path / "nginx.conf"
    render.write_nginx_conf(conf, values)
    result = nginx_test(conf, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "test is successful" in result.stderr


# --- live behaviour --------------------------------------------------------------------------


UPSTREAM_CACHE_CONTROL = "public, max-age=5, stale-while-revalidate=2"  # a live ranking's, as the API states it


class EchoUpstream(http.server.BaseHTTPRequestHandler):
    """Stands in for API Gateway: answers every request with what it received."""

    seen: list = []  # (method, path) of every request that reached the upstream

    def _echo(self):
        self.seen.append((self.command, self.path))
        length = int(self.headers.get("content-length") or 0)
        body = json.dumps(
            {
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": self.rfile.read(length).decode() if length else "",
                "sni": getattr(self.connection, "sni", None),
            }
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("cache-control", UPSTREAM_CACHE_CONTROL)
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = _echo

    def log_message(self, *args):
        pass


@pytest.fixture
def upstream():
    handler = type("Echo", (EchoUpstream,), {"seen": []})  # a fresh request log per test
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


class Nginx:
    def __init__(self, tmp: Path, values: dict):
        self.tmp, self.values = tmp, values
        self.port = int(values["LISTEN_PORT"].rsplit(":", 1)[-1])
        self.base = f"http://127.0.0.1:{self.port}"
        render.write_htpasswd(values["HTPASSWD_FILE"], ADMIN_USER, ADMIN_PASSWORD)
        self.conf = tmp / "nginx.conf"
        render.write_nginx_conf(self.conf, values)
        self.proc = subprocess.Popen(
            [NGINX, "-p", str(tmp), "-c", str(self.conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30  # a loaded machine: the bound only, it returns once Nginx listens
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"nginx exited: {self.proc.stderr.read().decode()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise AssertionError("nginx did not start listening")

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def request(self, path, method="GET", body=None, auth=None, headers=None):
        req = urllib.request.Request(self.base + path, method=method, data=body, headers=dict(headers or {}))
        if auth:
            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode()
            req.add_header("Authorization", f"Basic {token}")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.headers, err.read()


@pytest.fixture
def local_nginx(tmp_path, upstream):
    values = local_values(tmp_path, port=free_port(), upstream_port=upstream.server_address[1])
    server = Nginx(tmp_path, values)
    yield server
    server.stop()


@needs_nginx
def test_live_static_site_headers(local_nginx):
    """The page comes with the security headers and is revalidated on each load."""
    status, headers, body = local_nginx.request("/")
    assert status == 200 and b"<html" in body.lower()
    assert "unsafe-inline" not in headers["Content-Security-Policy"]
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Cache-Control"] == "no-cache"
    assert headers.get("Server") == "nginx"  # no version
    status, headers, _ = local_nginx.request("/app.js", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Type"].startswith("application/javascript")
    assert headers.get("Content-Encoding") == "gzip"
    # The script is native ES modules: with nosniff, a browser runs a module only if it comes as JavaScript.
    status, headers, _ = local_nginx.request("/js/views/table.js")
    assert status == 200 and headers["Content-Type"].startswith("application/javascript")
    assert headers["Cache-Control"] == "no-cache"
    status, _, _ = local_nginx.request("/.gitignore")
    assert status == 404


@needs_nginx
def test_live_api_reads_are_proxied_without_credentials(local_nginx):
    """GET /api/x reaches the upstream as /x with its query, stripped of key, password and cookies."""
    status, headers, body = local_nginx.request(
        "/api/leaderboard?period=daily&limit=25",
        auth=("someone", "pw"),
        headers={"x-api-key": "guessed", "Cookie": "session=1"},
    )
    assert status == 200, body
    echoed = json.loads(body)
    assert echoed["path"] == "/leaderboard?period=daily&limit=25"
    assert "x-api-key" not in echoed["headers"]
    assert "authorization" not in echoed["headers"]
    assert "cookie" not in echoed["headers"]
    assert headers["Content-Security-Policy"].startswith("default-src 'self'")
    # The route's caching as the API (or the edge) stated it: the page reads it to know the edge's lag.
    assert headers["Cache-Control"] == UPSTREAM_CACHE_CONTROL
    status, _, _ = local_nginx.request("/api/scores", method="POST", body=b"{}")
    assert status == 403  # writes only through the admin area


@needs_nginx
def test_live_admin_ping_asks_for_the_password(local_nginx):
    """/admin-api/ping: 401 with a Basic challenge without (or with wrong) credentials, 204 with them."""
    status, headers, _ = local_nginx.request("/admin-api/ping")
    assert status == 401
    assert headers["WWW-Authenticate"].startswith("Basic ")
    status, _, _ = local_nginx.request("/admin-api/ping", auth=(ADMIN_USER, "wrong"))
    assert status == 401
    status, _, _ = local_nginx.request("/admin-api/ping", auth=(ADMIN_USER, ADMIN_PASSWORD))
    assert status == 204


@needs_nginx
def test_live_admin_session_probe_never_challenges(local_nginx):
    """/admin-api/session answers 401 without WWW-Authenticate (no browser dialog) and 204 when signed in."""
    for auth in (None, (ADMIN_USER, "wrong")):
        status, headers, body = local_nginx.request("/admin-api/session", auth=auth)
        assert status == 401, body
        assert "WWW-Authenticate" not in headers
        assert json.loads(body) == {"error": "Not signed in as admin"}
    status, _, _ = local_nginx.request("/admin-api/session", auth=(ADMIN_USER, ADMIN_PASSWORD))
    assert status == 204


@needs_nginx
def test_live_admin_writes_add_the_key_and_nothing_else_passes(local_nginx):
    """Signed in, POST snapshot/simulate and PUT/DELETE a player's hidden flag reach the API with the key;
    anything else does not."""
    for route in ("snapshot", "simulate"):
        status, _, _ = local_nginx.request(f"/admin-api/{route}", method="POST", body=b"{}", headers=JSON)
        assert status == 401
        status, _, body = local_nginx.request(
            f"/admin-api/{route}",
            method="POST",
            body=b'{"period": "daily"}',
            auth=(ADMIN_USER, ADMIN_PASSWORD),
            headers={"Content-Type": "application/json"},
        )
        assert status == 200, body
        echoed = json.loads(body)
        assert echoed["path"] == f"/{route}"
        assert echoed["headers"]["x-api-key"] == API_KEY
        assert "authorization" not in echoed["headers"]
        assert echoed["body"] == '{"period": "daily"}'
        status, _, _ = local_nginx.request(f"/admin-api/{route}", auth=(ADMIN_USER, ADMIN_PASSWORD))
        assert status == 403  # GET is not a write
    status, _, _ = local_nginx.request(
        "/admin-api/scores", method="POST", body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD)
    )
    assert status == 404
    hidden = "/admin-api/leaderboards/race/players/ada.b:c@d-1/hidden"
    for method in ("PUT", "DELETE"):
        assert local_nginx.request(hidden, method=method)[0] == 401
        status, _, body = local_nginx.request(hidden, method=method, auth=(ADMIN_USER, ADMIN_PASSWORD))
        assert status == 200, body
        echoed = json.loads(body)
        assert (echoed["method"], echoed["path"]) == (method, "/leaderboards/race/players/ada.b:c@d-1/hidden")
        assert echoed["headers"]["x-api-key"] == API_KEY and "authorization" not in echoed["headers"]
    assert local_nginx.request(hidden, auth=(ADMIN_USER, ADMIN_PASSWORD))[0] == 403  # GET is not a write
    for other in ("/admin-api/leaderboards/race/players/ada", "/admin-api/leaderboards/Race/players/ada/hidden"):
        assert local_nginx.request(other, method="PUT", auth=(ADMIN_USER, ADMIN_PASSWORD))[0] == 404
    status, _, _ = local_nginx.request(
        "/admin-api/simulate", method="POST", body=b"x" * 40_000, auth=(ADMIN_USER, ADMIN_PASSWORD), headers=JSON
    )
    assert status == 413


def upstream_requests(upstream) -> list:
    return upstream.RequestHandlerClass.seen


@needs_nginx
def test_live_admin_writes_from_another_site_are_refused(local_nginx, upstream):
    """A form or script on another site, run while the admin's browser holds the password, gets a JSON 403 and
    reaches nothing: Sec-Fetch-Site must say same-origin and Origin must be the dashboard's own, when sent."""
    own = local_nginx.base
    hidden = "/admin-api/leaderboards/race/players/ada/hidden"
    writes = [("POST", "/admin-api/snapshot"), ("POST", "/admin-api/simulate"), ("PUT", hidden), ("DELETE", hidden)]
    refused = [
        {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
        {"Sec-Fetch-Site": "same-site", "Origin": "https://other.example"},  # a sibling subdomain is not us
        {"Origin": "https://evil.example"},  # an older browser: Origin only
        {"Origin": "null"},  # a sandboxed frame or a data: page
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-origin", "Origin": "https://evil.example"},
    ]
    before = len(upstream_requests(upstream))
    for method, path in writes:
        for headers in refused:
            status, _, body = local_nginx.request(
                path, method=method, body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD), headers={**JSON, **headers}
            )
            assert status == 403, (method, path, headers, body)
            assert "same origin" in json.loads(body)["error"]
    assert len(upstream_requests(upstream)) == before  # nothing reached the API
    allowed = [{"Sec-Fetch-Site": "same-origin", "Origin": own}, {"Origin": own}, {}]  # {}: curl, not a browser
    for method, path in writes:
        for headers in allowed:
            status, _, body = local_nginx.request(
                path, method=method, body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD), headers={**JSON, **headers}
            )
            assert status == 200, (method, path, headers, body)
    # Reads stay readable from the page whatever the headers (a browser keeps another site from reading them).
    status, _, _ = local_nginx.request(
        "/admin-api/leaderboards/race/hidden",
        auth=(ADMIN_USER, ADMIN_PASSWORD),
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert status == 200


def behind_cloudfront_values(tmp: Path, port: int, upstream_port: int) -> dict:
    """The EC2 render (as refresh-secrets.sh passes it) on a free port, its API upstream the local echo server."""
    return {
        **ec2_values(tmp),
        "LISTEN_PORT": f"127.0.0.1:{port}",
        "API_UPSTREAM": f"http://127.0.0.1:{upstream_port}",
        "API_HOST": f"127.0.0.1:{upstream_port}",
        "REAL_IP_FROM": "0.0.0.0/0",
    }


@needs_nginx
@pytest.mark.parametrize("values_for", [local_values, behind_cloudfront_values], ids=["local", "ec2"])
def test_live_admin_writes_behind_cloudfront_compare_origin_with_https_and_the_forwarded_host(
    tmp_path, upstream, values_for
):
    """On EC2 the page is https://<distribution> and CloudFront forwards the viewer's Host (its own name or alias,
    the only Host it routes to this origin) but speaks HTTP to Nginx inside the VPC: a same-origin write from the
    page passes, one marked cross-site or from any other origin is refused before the password is checked and
    reaches nothing. (Before, the check knew only the Host Nginx saw and a DASHBOARD_ORIGIN setting.)"""
    host = "d111111abcdef8.cloudfront.net"
    server = Nginx(tmp_path, values_for(tmp_path, port=free_port(), upstream_port=upstream.server_address[1]))
    try:

        def write(headers):
            return server.request(
                "/admin-api/snapshot", method="POST", body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD),
                headers={**JSON, "Host": host, **headers},
            )  # fmt: skip

        before = len(upstream_requests(upstream))
        for headers in (
            {"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
            {"Origin": f"https://{host}", "Sec-Fetch-Site": "cross-site"},  # Sec-Fetch-Site decides too
            {"Origin": "https://d2.cloudfront.net", "Sec-Fetch-Site": "same-origin"},  # another distribution
            {"Origin": f"https://{host}.evil.example"},  # a name that merely starts like ours
            {"Origin": "https://evil.example"},
        ):
            status, _, body = write(headers)
            assert status == 403, (headers, body)
            assert "same origin" in json.loads(body)["error"]
        assert len(upstream_requests(upstream)) == before
        for headers in ({"Origin": f"https://{host}", "Sec-Fetch-Site": "same-origin"}, {"Origin": f"https://{host}"}):
            status, _, body = write(headers)
            assert status == 200, (headers, body)
        assert len(upstream_requests(upstream)) == before + 2
    finally:
        server.stop()


@needs_nginx
@pytest.mark.parametrize("route", ["snapshot", "simulate"])
def test_live_admin_bodies_must_be_declared_json_and_not_empty(local_nginx, upstream, route):
    """What a cross-site form can send (urlencoded, multipart, text/plain) gets 415; an empty body gets 400 instead
    of being read as {}; neither reaches the API."""
    before = len(upstream_requests(upstream))
    for content_type in ("application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", None):
        headers = {"Content-Type": content_type} if content_type else {}
        status, headers_out, body = local_nginx.request(
            f"/admin-api/{route}", method="POST", body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD), headers=headers
        )
        assert status == 415, (content_type, body)
        assert headers_out["Content-Type"].startswith("application/json")
        assert "application/json" in json.loads(body)["error"]
    for empty in (b"", None):
        status, _, body = local_nginx.request(
            f"/admin-api/{route}", method="POST", body=empty, auth=(ADMIN_USER, ADMIN_PASSWORD), headers=JSON
        )
        assert status == 400, body
        assert "JSON body is required" in json.loads(body)["error"]
    assert len(upstream_requests(upstream)) == before
    status, _, body = local_nginx.request(
        f"/admin-api/{route}",
        method="POST",
        body=b"{}",
        auth=(ADMIN_USER, ADMIN_PASSWORD),
        headers={"Content-Type": "application/json; charset=utf-8"},
    )
    assert status == 200 and json.loads(body)["body"] == "{}"


@needs_nginx
def test_live_ids_starting_with_a_dot_reach_the_api(local_nginx):
    """Player ids may start with "." (the API's pattern allows it): the site's dot-file rule must not answer them."""
    for path in ("/api/players/.dot-player/boards", "/api/leaderboards/race/players/.x.y"):
        status, headers, body = local_nginx.request(path)
        assert status == 200, (path, body)
        assert json.loads(body)["path"] == path.removeprefix("/api")
    status, _, body = local_nginx.request(
        "/admin-api/leaderboards/race/players/.dot-player/hidden", method="PUT", auth=(ADMIN_USER, ADMIN_PASSWORD)
    )
    assert status == 200, body
    assert json.loads(body)["path"] == "/leaderboards/race/players/.dot-player/hidden"
    assert local_nginx.request("/.gitignore")[0] == 404  # the site's own dot files stay hidden


@needs_nginx
def test_live_head_on_a_public_read_answers_as_get_without_a_body(local_nginx, upstream):
    """HEAD /api/... goes upstream as GET (API Gateway has no HEAD methods) and answers its status and headers."""
    status, headers, body = local_nginx.request("/api/leaderboards?limit=5", method="HEAD")
    assert status == 200 and body == b""
    assert headers["Content-Type"].startswith("application/json")
    assert upstream_requests(upstream)[-1] == ("GET", "/leaderboards?limit=5")
    assert local_nginx.request("/api/leaderboards", method="DELETE")[0] == 403


@needs_nginx
def test_live_api_down_is_a_json_502(local_nginx, upstream):
    """With the API stopped, /api/ answers a JSON 502 the dashboard can show."""
    upstream.shutdown()
    upstream.server_close()
    status, headers, body = local_nginx.request("/api/leaderboard")
    assert status == 502
    assert headers["Content-Type"].startswith("application/json")
    assert "API unreachable" in json.loads(body)["error"]


@pytest.fixture
def tls_upstream(tmp_path):
    """An HTTPS upstream with a certificate for API_HOST, signed by a CA made for the test."""
    if OPENSSL is None:
        pytest.skip("openssl is not installed")
    host = "api.leaderboard.test"
    cert, key = tmp_path / "upstream.crt", tmp_path / "upstream.key"
    subprocess.run(
        [
            OPENSSL,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "2",
            "-subj",
            f"/CN={host}",
            "-addext",
            f"subjectAltName=DNS:{host}",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)

    def remember_sni(sock, server_name, _ctx):
        sock.sni = server_name

    context.sni_callback = remember_sni
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), EchoUpstream)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield host, server.server_address[1], cert
    server.shutdown()
    server.server_close()


@needs_nginx
def test_live_tls_upstream_with_stage_path_sni_and_verification(tmp_path, tls_upstream):
    """EC2 shape: HTTPS upstream, /prod stage path, Host and SNI set, certificate verified."""
    host, port, cert = tls_upstream
    values = {
        **local_values(tmp_path, port=free_port()),
        "API_UPSTREAM": f"https://127.0.0.1:{port}",
        "API_BASE_PATH": "/prod",
        "API_HOST": host,
        "CA_BUNDLE": str(cert),
    }
    server = Nginx(tmp_path, values)
    try:
        status, _, body = server.request("/api/player?player_id=p-1")
        assert status == 200, body
        echoed = json.loads(body)
        assert echoed["path"] == "/prod/player?player_id=p-1"
        assert echoed["headers"]["host"] == host
        status, _, body = server.request(
            "/admin-api/snapshot", method="POST", body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD), headers=JSON
        )
        assert status == 200 and json.loads(body)["path"] == "/prod/snapshot"
    finally:
        server.stop()


# --- the edge behind /api/ ------------------------------------------------------------------


def test_without_an_edge_api_reads_use_the_api_values(tmp_path):
    """No EDGE_UPSTREAM: /api/ is rendered with the API's upstream, host and stage path (API Gateway, as before)."""
    defaults = render.optional_defaults(ec2_values(tmp_path))
    assert defaults["EDGE_UPSTREAM"] == "https://abc123defg.execute-api.us-east-1.amazonaws.com"
    assert defaults["EDGE_HOST"] == "abc123defg.execute-api.us-east-1.amazonaws.com"
    assert defaults["EDGE_BASE_PATH"] == "/prod"
    edge = render.optional_defaults({**ec2_values(tmp_path), "EDGE_UPSTREAM": "https://d111.cloudfront.net"})
    assert edge["EDGE_HOST"] == "d111.cloudfront.net" and edge["EDGE_BASE_PATH"] == ""


@pytest.fixture
def edge_upstream():
    """A second echo server, standing in for the edge (CloudFront, or the local edge's Nginx)."""
    handler = type("EdgeEcho", (EchoUpstream,), {"seen": []})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server
    server.shutdown()
    server.server_close()


@needs_nginx
def test_live_reads_go_to_the_edge_and_admin_calls_to_the_api(tmp_path, upstream, edge_upstream):
    """With an edge: GET and HEAD under /api/ reach the edge (its own Host, no stage path, no credentials);
    /admin-api/ still reaches the API with the admin key; the edge never sees an admin call."""
    edge = f"127.0.0.1:{edge_upstream.server_address[1]}"
    values = {
        **local_values(tmp_path, port=free_port(), upstream_port=upstream.server_address[1]),
        "API_BASE_PATH": "/prod",
        "EDGE_UPSTREAM": f"http://{edge}",
    }
    server = Nginx(tmp_path, values)
    try:
        status, _, body = server.request("/api/leaderboards/race/top?period=daily&limit=5", auth=("a", "b"))
        assert status == 200, body
        echoed = json.loads(body)
        assert echoed["path"] == "/leaderboards/race/top?period=daily&limit=5"  # the edge's paths: the API's
        assert echoed["headers"]["host"] == edge
        assert "authorization" not in echoed["headers"] and "x-api-key" not in echoed["headers"]
        assert server.request("/api/leaderboards", method="HEAD")[0] == 200
        status, _, body = server.request(
            "/admin-api/snapshot", method="POST", body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD), headers=JSON
        )
        assert status == 200, body
        admin = json.loads(body)
        assert admin["path"] == "/prod/snapshot" and admin["headers"]["x-api-key"] == API_KEY
        status, _, body = server.request(
            "/admin-api/leaderboards/race/hidden?limit=5", auth=(ADMIN_USER, ADMIN_PASSWORD)
        )
        assert status == 200 and json.loads(body)["path"] == "/prod/leaderboards/race/hidden?limit=5"
        assert upstream_requests(edge_upstream) == [
            ("GET", "/leaderboards/race/top?period=daily&limit=5"),
            ("GET", "/leaderboards"),
        ]
        assert upstream_requests(upstream) == [
            ("POST", "/prod/snapshot"),
            ("GET", "/prod/leaderboards/race/hidden?limit=5"),
        ]
    finally:
        server.stop()


@needs_nginx
def test_live_without_an_edge_reads_and_admin_calls_both_go_to_the_api(local_nginx, upstream):
    """No edge (edge=False, or no nginx for the local edge): /api/ reads from the API, as /admin-api/ does."""
    assert local_nginx.request("/api/leaderboards?limit=5")[0] == 200
    status, _, _ = local_nginx.request(
        "/admin-api/snapshot", method="POST", body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD), headers=JSON
    )
    assert status == 200
    assert upstream_requests(upstream) == [("GET", "/leaderboards?limit=5"), ("POST", "/snapshot")]


@needs_nginx
def test_live_tls_edge_with_its_own_sni_and_verification(tmp_path, upstream, tls_upstream):
    """AWS shape: the edge over HTTPS with its own Host and SNI (the CloudFront name, not the API's), certificate
    verified, no stage path; /admin-api/ keeps the API's upstream and stage path."""
    host, port, cert = tls_upstream
    values = {
        **local_values(tmp_path, port=free_port(), upstream_port=upstream.server_address[1]),
        "API_BASE_PATH": "/prod",
        "EDGE_UPSTREAM": f"https://127.0.0.1:{port}",
        "EDGE_HOST": host,
        "CA_BUNDLE": str(cert),
    }
    server = Nginx(tmp_path, values)
    try:
        status, _, body = server.request("/api/player?player_id=p-1")
        assert status == 200, body
        echoed = json.loads(body)
        assert echoed["path"] == "/player?player_id=p-1"
        assert echoed["headers"]["host"] == host and echoed["sni"] == host
        status, _, body = server.request(
            "/admin-api/snapshot", method="POST", body=b"{}", auth=(ADMIN_USER, ADMIN_PASSWORD), headers=JSON
        )
        assert status == 200 and json.loads(body)["path"] == "/prod/snapshot"
    finally:
        server.stop()
    values["EDGE_HOST"] = "other.leaderboard.test"  # the edge's certificate must match EDGE_HOST
    wrong = Nginx(tmp_path, values)
    try:
        assert wrong.request("/api/player?player_id=p-1")[0] == 502
    finally:
        wrong.stop()


@needs_nginx
def test_live_tls_upstream_with_the_wrong_name_is_refused(tmp_path, tls_upstream):
    """A certificate that does not match API_HOST is not trusted: nginx answers 502, nothing leaks."""
    _host, port, cert = tls_upstream
    values = {
        **local_values(tmp_path, port=free_port()),
        "API_UPSTREAM": f"https://127.0.0.1:{port}",
        "API_HOST": "other.leaderboard.test",
        "CA_BUNDLE": str(cert),
    }
    server = Nginx(tmp_path, values)
    try:
        status, _, body = server.request("/api/leaderboard")
        assert status == 502, body
    finally:
        server.stop()


def _last_client(prefix: Path) -> str:
    time.sleep(0.2)  # the access log line is written after the response
    return json.loads((prefix / "access.log").read_text().splitlines()[-1])["client"]


@needs_nginx
@pytest.mark.parametrize(
    "real_ip_from, expected", [(None, "127.0.0.1"), ("127.0.0.1/32", "203.0.113.7")], ids=["no-proxy", "behind-proxy"]
)
def test_live_client_address_behind_a_trusted_proxy(tmp_path, upstream, real_ip_from, expected):
    """Behind CloudFront (REAL_IP_FROM on EC2) the client is the LAST X-Forwarded-For address, the one the
    proxy appended; what a client sends itself comes first and is ignored. Without a proxy (the default,
    `make run`) the header changes nothing, so nobody can pick the address the admin rate limit counts."""
    values = local_values(tmp_path, port=free_port(), upstream_port=upstream.server_address[1])
    if real_ip_from:
        values["REAL_IP_FROM"] = real_ip_from
    server = Nginx(tmp_path, values)
    try:
        status, _, _ = server.request("/", headers={"X-Forwarded-For": "198.51.100.1, 203.0.113.7"})
        assert status == 200
        assert _last_client(tmp_path) == expected
    finally:
        server.stop()


@needs_nginx
def test_live_logs_go_to_log_dir_when_given(tmp_path, upstream):
    """EC2 passes LOG_DIR=/var/log/nginx (rotated by logrotate, read by the CloudWatch agent): both logs land
    there, nothing under PREFIX_DIR. Without it (`make run`) they stay under PREFIX_DIR."""
    log_dir = tmp_path / "log"
    log_dir.mkdir()
    values = {**local_values(tmp_path, port=free_port(), upstream_port=upstream.server_address[1])}
    values["LOG_DIR"] = str(log_dir)
    server = Nginx(tmp_path, values)
    try:
        assert server.request("/no-such-file")[0] == 404
        time.sleep(0.2)  # the access log line is written after the response
        assert json.loads((log_dir / "access.log").read_text().splitlines()[-1])["uri"] == "/no-such-file"
        assert (log_dir / "error.log").exists()
        assert not (tmp_path / "access.log").exists() and not (tmp_path / "error.log").exists()
    finally:
        server.stop()


def test_log_dir_defaults_to_prefix_dir_and_must_be_absolute(tmp_path):
    conf = render.render_nginx_conf(local_values(tmp_path))
    assert f"access_log {tmp_path}/access.log json_lines;" in conf
    assert f"error_log {tmp_path}/error.log warn;" in conf
    with pytest.raises(ValueError, match="LOG_DIR"):
        render.render_nginx_conf({**local_values(tmp_path), "LOG_DIR": "var/log/nginx"})


def test_real_ip_from_refuses_what_is_not_an_address(tmp_path):
    values = {**local_values(tmp_path), "REAL_IP_FROM": "all"}
    with pytest.raises(ValueError, match="REAL_IP_FROM"):
        render.render_nginx_conf(values)


# --- live updates: the page connects to the AppSync Event API itself; its CSP names that endpoint exactly -------


def _csp(conf: str) -> dict[str, list[str]]:
    (policy,) = re.findall(r'add_header Content-Security-Policy "([^"]*)" always;', conf)
    return {part.split()[0]: part.split()[1:] for part in (p.strip() for p in policy.split(";")) if part}


@pytest.mark.parametrize(
    "values_for, realtime_url",
    [
        (local_values, "ws://127.0.0.1:4510/event/realtime"),  # make run's stand-in
        (ec2_values, "wss://abcdefghijklmnopqrstuvwxyz.appsync-realtime-api.us-east-1.amazonaws.com/event/realtime"),
    ],
    ids=["local", "ec2"],
)
def test_csp_connects_to_the_page_and_the_event_apis_realtime_endpoint_only(tmp_path, values_for, realtime_url):
    """connect-src is the page's own origin (its /api/ reads) and the realtime endpoint, scheme, host and path: no
    other host, no wildcard. Nothing is proxied for live updates any more (no /live location)."""
    conf = render.render_nginx_conf(values_for(tmp_path) | {"LIVE_REALTIME_URL": realtime_url})
    assert _csp(conf)["connect-src"] == ["'self'", realtime_url]
    assert "location = /live" not in conf and "Upgrade" not in conf


def test_csp_without_live_updates_connects_to_the_page_only(tmp_path):
    assert _csp(render.render_nginx_conf(ec2_values(tmp_path)))["connect-src"] == ["'self'"]
    assert _csp(render.render_nginx_conf(ec2_values(tmp_path) | {"LIVE_REALTIME_URL": ""}))["connect-src"] == ["'self'"]


@pytest.mark.parametrize(
    "bad",
    [
        "https://abc.appsync-realtime-api.us-east-1.amazonaws.com/event/realtime",  # not a WebSocket URL
        "wss://*.amazonaws.com",  # a wildcard
        "wss://a.example/event/realtime,wss://b.example",  # two sources in one
        "wss://a.example/event/realtime 'unsafe-inline'",
        "wss://a.example/event/realtime; script-src *",
    ],
)
def test_csp_realtime_url_must_be_one_websocket_url(tmp_path, bad):
    with pytest.raises(ValueError, match="LIVE_REALTIME_URL"):
        render.render_nginx_conf(ec2_values(tmp_path) | {"LIVE_REALTIME_URL": bad})
