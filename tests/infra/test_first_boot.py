"""The dashboard's first boot, run for real in a sandbox.

The REAL user data (rendered by the construct's own renderer) runs under bash with a temporary root
(LEADERBOARD_BOOT_ROOT): everything it writes lands there. `aws`, `dnf`, `systemctl`, `sleep` and the swap
commands (`dd`, `mkswap`, `swapon`) are stand-ins on PATH (tests/infra/first_boot_stubs/); `curl`, `python3`
and `nginx` are real: the systemctl stand-in starts the real Nginx with the config the boot rendered, in
front of a stub API Gateway (HTTPS, a certificate for the API's host name, a CA the sandbox trusts). The site
asset is the dashboard_ec2 folder zipped as the construct ships it.

What must hold: the boot signals SUCCESS only once Nginx serves the dashboard and /api/ reaches the API
through it; transient failures are retried with backoff; a permanent one signals FAILURE with its reason.
"""

from __future__ import annotations

import base64
import fnmatch
import http.server
import json
import os
import shutil
import signal
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import pytest
from cdk_leaderboard.dashboard import SITE_ASSET_EXCLUDES, Dashboard
from cdk_leaderboard.paths import DASHBOARD_DIR

from local.dynamodb_local import free_port

STUBS = Path(__file__).resolve().parent / "first_boot_stubs"
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
OPENSSL = shutil.which("openssl")
CURL = shutil.which("curl")
LOGROTATE = shutil.which("logrotate") or ("/usr/sbin/logrotate" if Path("/usr/sbin/logrotate").exists() else None)
pytestmark = pytest.mark.skipif(
    not (NGINX and OPENSSL and CURL), reason="needs nginx, openssl and curl (CI installs them)"
)

INSTANCE_ID = "i-0123456789abcdef0"
API_HOST = "api.leaderboard.test"
EDGE_HOST = "d222222abcdef8.cloudfront.net"  # the edge: CloudFront in front of the API's public reads
ADMIN_KEY_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:admin-key-AbCdEf"
PASSWORD_ARN = "arn:aws:secretsmanager:us-east-1:123456789012:secret:admin-password-GhIjKl"
ADMIN_KEY, ADMIN_PASSWORD = "adminKey0123456789abcdefghijklmnopqrstu", "s3cretPassw0rd4Admin"
SITE_OBJECT = "cdk-assets-bucket/site-asset.zip"
DISTRIBUTION_HOST = "d111111abcdef8.cloudfront.net"  # the viewer's Host, which CloudFront forwards
# The Event API's realtime endpoint (a token in the template, filled in at deploy): the page connects to it itself
LIVE_REALTIME_URL = "wss://abcdefghijklmnopqrstuvwxyz.appsync-realtime-api.us-east-1.amazonaws.com/event/realtime"
ACCESS_LOG_GROUP = "leaderboard-dev-LeaderboardDashboardNginxAccessLogs1A2B3C4D-AbCdEf012345"
ERROR_LOG_GROUP = "leaderboard-dev-LeaderboardDashboardNginxErrorLogs5E6F7A8B-GhIjKl678901"


def eventually(effect, within: float = 30) -> bool:
    """True as soon as effect() is, False after `within` seconds: the bound of any wait for Nginx's asynchronous
    effects (a log line, a reload), generous for a loaded 2-core machine."""
    deadline = time.monotonic() + within
    while not effect():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def site_asset_zip(target: Path) -> None:
    """dashboard_ec2 zipped as the CDK asset is: every file but SITE_ASSET_EXCLUDES."""
    with zipfile.ZipFile(target, "w") as zf:
        for path in sorted(DASHBOARD_DIR.rglob("*")):
            relative = path.relative_to(DASHBOARD_DIR).as_posix()
            excluded = any(
                fnmatch.fnmatch(relative, p) or fnmatch.fnmatch(path.name, p.removeprefix("**/"))
                for p in SITE_ASSET_EXCLUDES
            )
            if path.is_file() and not excluded and "__pycache__" not in path.parts:
                zf.write(path, relative)


class StubApi(http.server.BaseHTTPRequestHandler):
    """API Gateway's stage /dev: GET /dev/leaderboards answers the scripted statuses, then 200."""

    def do_GET(self):
        self._answer()

    def do_POST(self):
        self._answer()

    def _answer(self):
        server = self.server
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        server.requests.append(
            {"method": self.command, "path": self.path, "headers": dict(self.headers), "at": time.time()}
        )
        status = server.statuses.pop(0) if server.statuses else 200
        body = json.dumps({"boards": []} if status == 200 else {"message": "Internal server error"}).encode()
        self.send_response(status)
        if getattr(server, "x_cache", None):
            self.send_header("X-Cache", server.x_cache)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def certificate(tmp_path_factory) -> tuple[Path, Path]:
    """A self-signed certificate for API_HOST and EDGE_HOST: its own CA, which the sandbox's CA bundle holds."""
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "api.crt", directory / "api.key"
    subprocess.run(
        [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", f"/CN={API_HOST}",
         "-addext", f"subjectAltName=DNS:{API_HOST},DNS:{EDGE_HOST}", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return cert, key


class Sandbox:
    """A temporary root, the stub state, the stub API; `boot()` runs the rendered user data."""

    def __init__(self, base: Path, certificate: tuple[Path, Path], edge: bool = False) -> None:
        self.root, self.state = base / "root", base / "state"
        self.root.mkdir()
        (self.state / "s3" / SITE_OBJECT).parent.mkdir(parents=True)
        site_asset_zip(self.state / "s3" / SITE_OBJECT)
        self.write_secrets(ADMIN_KEY, ADMIN_PASSWORD)
        for directory in ("var/lib/cloud/data", "etc/pki/tls/certs", "dev"):
            (self.root / directory).mkdir(parents=True)
        (self.root / "var/lib/cloud/data/instance-id").write_text(INSTANCE_ID + "\n")
        shutil.copyfile(certificate[0], self.root / "etc/pki/tls/certs/ca-bundle.crt")

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*certificate)
        self.api = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StubApi)
        self.api.socket = context.wrap_socket(self.api.socket, server_side=True)
        self.api.requests, self.api.statuses = [], []
        threading.Thread(target=self.api.serve_forever, daemon=True).start()
        # The edge (edge=True): a second stub on the same certificate, answering as CloudFront does (X-Cache), at
        # the API's paths without the stage.
        self.edge = http.server.ThreadingHTTPServer(("127.0.0.1", 0), StubApi)
        self.edge.socket = context.wrap_socket(self.edge.socket, server_side=True)
        self.edge.requests, self.edge.statuses, self.edge.x_cache = [], [], "Miss from cloudfront"
        threading.Thread(target=self.edge.serve_forever, daemon=True).start()
        self.port = free_port()
        self.user_data = base / "user-data.sh"
        self.user_data.write_text(
            Dashboard._render_user_data(
                REGION="us-east-1",
                STACK_NAME="leaderboard-dev",
                INSTANCE_LOGICAL_ID="LeaderboardDashboardInstance42CF32D7abcdef0123456789",
                SITE_S3_URL=f"s3://{SITE_OBJECT}",
                ADMIN_KEY_SECRET_ARN=ADMIN_KEY_ARN,
                ADMIN_PASSWORD_SECRET_ARN=PASSWORD_ARN,
                API_UPSTREAM=f"https://127.0.0.1:{self.api.server_address[1]}",
                API_HOST=API_HOST,
                API_STAGE="dev",
                API_URL=f"https://{API_HOST}/dev/",
                EDGE_UPSTREAM=f"https://127.0.0.1:{self.edge.server_address[1]}" if edge else "",
                EDGE_HOST=EDGE_HOST if edge else "",
                LIVE_REALTIME_URL=LIVE_REALTIME_URL,
                STAGE="dev",
                DASHBOARD_PORT=str(self.port),
                ACCESS_LOG_GROUP=ACCESS_LOG_GROUP,
                ERROR_LOG_GROUP=ERROR_LOG_GROUP,
            )
        )
        self.env = {
            **os.environ,
            "PATH": f"{STUBS}:{Path(NGINX).parent}:{os.environ['PATH']}",
            "LEADERBOARD_BOOT_ROOT": str(self.root),
            "STUB_STATE": str(self.state),
            "STUB_PYTHON": sys.executable,
        }

    def write_secrets(self, admin_key: str, password: str) -> None:
        secrets = {ADMIN_KEY_ARN: admin_key, PASSWORD_ARN: json.dumps({"username": "admin", "password": password})}
        (self.state / "secrets.json").write_text(json.dumps(secrets))

    def fail(self, what: str, times: int | str) -> None:
        (self.state / f"fail-{what}").write_text(str(times))

    def boot(self) -> subprocess.CompletedProcess:
        return subprocess.run(["bash", str(self.user_data)], env=self.env, capture_output=True, text=True, timeout=180)

    def systemctl(self, *args: str) -> subprocess.CompletedProcess:
        """What SSM Run Command does on the instance, e.g. restart the secrets unit."""
        return subprocess.run(
            [str(STUBS / "systemctl"), *args], env=self.env, capture_output=True, text=True, timeout=60
        )

    @property
    def signals(self) -> list[dict]:
        path = self.state / "signals.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def calls(self, name: str) -> list[list[str]]:
        path = self.state / "calls.log"
        lines = [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []
        return [line[1:] for line in lines if line[0] == name]

    @property
    def sleeps(self) -> list[int]:
        path = self.state / "sleeps"
        return [int(s) for s in path.read_text().split()] if path.exists() else []

    def request(
        self,
        path: str,
        method: str = "GET",
        auth: tuple[str, str] | None = None,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ):
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}", method=method, data=body, headers=headers or {}
        )
        if body is not None:
            req.add_header("Content-Type", "application/json")  # Nginx refuses admin bodies of any other type
        if auth:
            req.add_header("Authorization", "Basic " + base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode())
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as err:
            return err.code, err.read()

    def nginx_running(self) -> bool:
        return self.systemctl("is-active", "--quiet", "nginx.service").returncode == 0

    def close(self) -> None:
        pid_file = self.root / "run/nginx.pid"
        if pid_file.exists():
            pid = int(pid_file.read_text())
            try:
                os.kill(pid, signal.SIGTERM)
                deadline = time.monotonic() + 10
                while time.monotonic() < deadline:
                    os.kill(pid, 0)
                    time.sleep(0.05)
            except ProcessLookupError:
                pass
        for server in (self.api, self.edge):
            server.shutdown()
            server.server_close()


@pytest.fixture
def sandbox(tmp_path, certificate):
    box = Sandbox(tmp_path, certificate)
    yield box
    box.close()


@pytest.fixture(scope="module")
def booted(tmp_path_factory, certificate):
    """One sandbox booted once with nothing failing, for the tests that only read what that boot left (files, calls,
    signals) or send Nginx requests that change nothing it serves; each boot costs seconds. `boot_result` and
    `boot_requests` (what the stub API had received when the boot ended) are the boot's own, whatever those tests
    send afterwards. A test that scripts a failure, rotates a secret or rotates the logs boots its own `sandbox`."""
    box = Sandbox(tmp_path_factory.mktemp("booted"), certificate)
    box.boot_result = box.boot()
    box.boot_requests = list(box.api.requests)
    yield box
    box.close()


@pytest.fixture
def edge_sandbox(tmp_path, certificate):
    box = Sandbox(tmp_path, certificate, edge=True)
    yield box
    box.close()


def success_only(box: Sandbox) -> dict:
    (signal_,) = box.signals
    assert signal_["status"] == "SUCCESS", signal_
    assert signal_["unique_id"] == INSTANCE_ID
    assert signal_["stack"] == "leaderboard-dev"
    assert signal_["logical_id"] == "LeaderboardDashboardInstance42CF32D7abcdef0123456789"
    return signal_


def test_happy_path_signals_success_once_the_dashboard_and_the_api_proxy_answer(booted):
    sandbox, result = booted, booted.boot_result
    assert result.returncode == 0, result.stdout + result.stderr
    signal_ = success_only(sandbox)
    # The boot's own check went through Nginx to the API before it signalled.
    checks = [r for r in sandbox.boot_requests if r["path"] == "/dev/leaderboards"]
    assert checks and checks[-1]["at"] < signal_["at"]
    assert checks[-1]["headers"]["Host"] == API_HOST
    # And Nginx still serves both.
    status, page = sandbox.request("/")
    assert status == 200 and b"<html" in page
    assert sandbox.request("/api/leaderboards") == (200, b'{"boards": []}')
    config = json.loads((sandbox.root / "opt/leaderboard/site/config.json").read_text())
    assert config["apiUrl"] == f"https://{API_HOST}/dev/"
    assert "Dashboard ready" in result.stdout


def test_with_an_edge_the_boot_checks_api_reads_through_the_edge(edge_sandbox):
    """EDGE_HOST set (the construct's edge on): Nginx's /api/ reads from the edge (its Host and SNI, the API's paths
    without the stage), the boot's check went that way and saw the edge's X-Cache; /admin-api/ still calls the API
    with the admin key, and no read reached the API directly."""
    box = edge_sandbox
    result = box.boot()
    assert result.returncode == 0, result.stdout + result.stderr
    signal_ = success_only(box)
    checks = [r for r in box.edge.requests if r["path"] == "/leaderboards"]
    assert checks and checks[-1]["at"] < signal_["at"]
    assert checks[-1]["headers"]["Host"] == EDGE_HOST
    assert "x-api-key" not in {h.lower() for h in checks[-1]["headers"]}
    assert f"through the edge {EDGE_HOST} (X-Cache: Miss from cloudfront)" in result.stdout
    assert box.request("/api/leaderboards/race/top?limit=5")[0] == 200
    assert box.edge.requests[-1]["path"] == "/leaderboards/race/top?limit=5"
    status, _ = box.request("/admin-api/snapshot", method="POST", body=b"{}", auth=("admin", ADMIN_PASSWORD))
    assert status == 200
    assert [r["path"] for r in box.api.requests] == ["/dev/snapshot"]
    assert box.api.requests[0]["headers"]["x-api-key"] == ADMIN_KEY


def test_with_an_edge_an_answer_that_did_not_come_through_it_fails_the_boot(edge_sandbox):
    """A 200 under /api/ without the edge's X-Cache header did not come through CloudFront: no success."""
    edge_sandbox.edge.x_cache = None
    result = edge_sandbox.boot()
    assert result.returncode != 0
    (signal_,) = edge_sandbox.signals
    assert signal_["status"] == "FAILURE"
    assert (
        signal_["unique_id"]
        == f"{INSTANCE_ID}: /api/leaderboards answered 200 (no X-Cache), not 200 from the edge"[:64]
    )


def test_without_an_edge_the_boot_env_names_none_and_reads_go_to_the_api(booted):
    sandbox = booted
    assert sandbox.boot_result.returncode == 0
    env = (sandbox.root / "etc/leaderboard/boot.env").read_text()
    assert 'EDGE_HOST=""' in env and 'EDGE_UPSTREAM=""' in env
    assert not sandbox.edge.requests
    assert "through the edge" not in (sandbox.root / "var/log/leaderboard-boot.log").read_text()


def test_the_boot_adds_swap_for_dnf_and_enables_the_secrets_unit_for_every_boot(booted):
    sandbox = booted
    assert sandbox.boot_result.returncode == 0
    assert sandbox.calls("dd") and sandbox.calls("mkswap") and sandbox.calls("swapon")
    assert (sandbox.root / "swapfile").stat().st_mode & 0o777 == 0o600
    assert "/swapfile none swap defaults 0 0" in (sandbox.root / "etc/fstab").read_text()
    order = [json.loads(line)[0] for line in (sandbox.state / "calls.log").read_text().splitlines()]
    assert order.index("swapon") < order.index("dnf")  # swap before the install that needs the memory
    enabled = (sandbox.state / "enabled").read_text().split()
    assert {"leaderboard-secrets.service", "nginx.service"} <= set(enabled)
    unit = (sandbox.root / "etc/systemd/system/leaderboard-secrets.service").read_text()
    assert "Before=nginx.service" in unit and "WantedBy=multi-user.target" in unit
    assert "ExecStart=/bin/bash /opt/leaderboard/boot/refresh-secrets.sh" in unit


def test_nginx_logs_under_var_log_nginx_rotated_by_our_logrotate_file(booted):
    """Nginx writes both logs to /var/log/nginx (not /var/lib/nginx), and /etc/logrotate.d/nginx is ours (it
    replaces the package's file for the same logs, so nothing is rotated twice): daily, compressed, 3 kept,
    Nginx told to reopen its logs; logrotate's timer is on (AL2023 has no cron)."""
    sandbox = booted
    assert sandbox.boot_result.returncode == 0
    assert sandbox.request("/no-such-page")[0] == 404
    log_dir = sandbox.root / "var/log/nginx"
    # The access log line is written after the response: wait for it (as long as a loaded machine needs)
    access = log_dir / "access.log"
    assert eventually(lambda: access.exists() and '"uri":"/no-such-page"' in access.read_text())
    assert json.loads(access.read_text().splitlines()[-1])["uri"] == "/no-such-page"
    assert (log_dir / "error.log").exists()
    assert not list((sandbox.root / "var/lib/nginx").glob("*.log"))
    conf = (sandbox.root / "etc/nginx/nginx.conf").read_text()
    assert f"access_log {log_dir}/access.log json_lines;" in conf and f"error_log {log_dir}/error.log warn;" in conf

    (dnf_call,) = sandbox.calls("dnf")
    assert {"nginx", "logrotate", "amazon-cloudwatch-agent"} <= set(dnf_call)  # one dnf call for all three
    rotate = (sandbox.root / "etc/logrotate.d/nginx").read_text()
    (rule,) = [line for line in rotate.splitlines() if line.startswith("/")]
    assert rule == "/var/log/nginx/access.log /var/log/nginx/error.log {"
    words = [line.strip() for line in rotate.splitlines()]
    assert {"daily", "rotate 3", "compress", "delaycompress", "missingok", "notifempty"} <= set(words)
    assert any(w.startswith("/bin/kill -USR1") and "/run/nginx.pid" in w for w in words)
    assert "logrotate.timer" in (sandbox.state / "enabled").read_text().split()
    assert "logrotate.timer" in (sandbox.state / "started").read_text().split()


@pytest.mark.skipif(LOGROTATE is None, reason="needs logrotate (apt-get install logrotate)")
def test_real_logrotate_with_our_file_rotates_and_nginx_reopens_its_logs(sandbox):
    """The boot's /etc/logrotate.d/nginx run by real logrotate (its paths moved into the sandbox), forced as the
    daily run would: each run renames the logs, the postrotate USR1 makes Nginx write a new access.log, yesterday's
    file stays plain (delaycompress), older ones are compressed, and only 3 are kept."""
    assert sandbox.boot().returncode == 0
    log_dir = sandbox.root / "var/log/nginx"
    rules = (sandbox.root / "etc/logrotate.d/nginx").read_text()
    rules = rules.replace("/var/log/nginx/", f"{log_dir}/").replace("/run/nginx.pid", f"{sandbox.root}/run/nginx.pid")
    conf = sandbox.state / "logrotate.conf"
    conf.write_text(rules)
    conf.chmod(0o644)

    def logged(uri: str) -> bool:
        def seen() -> bool:  # Nginx reopens its logs asynchronously after USR1
            assert sandbox.request(uri)[0] == 404
            access = log_dir / "access.log"
            return access.exists() and uri in access.read_text()

        return eventually(seen)

    for day in range(5):
        assert logged(f"/day-{day}")
        run = subprocess.run(
            [LOGROTATE, "-f", "-s", str(sandbox.state / "logrotate.status"), str(conf)],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert run.returncode == 0, run.stdout + run.stderr
    assert logged("/today")
    names = sorted(p.name for p in log_dir.iterdir() if p.name.startswith("access.log"))
    assert names == ["access.log", "access.log.1", "access.log.2.gz", "access.log.3.gz"]
    assert "/day-4" in (log_dir / "access.log.1").read_text()
    assert "/today" not in (log_dir / "access.log.1").read_text()


def test_the_cloudwatch_agent_ships_both_logs_to_the_stacks_log_groups_and_starts_at_every_boot(booted):
    """The agent's configuration names the stack's two log groups (one stream per instance), fetch-config keeps
    it for every later boot, and systemd starts the agent now and at every boot."""
    sandbox, result = booted, booted.boot_result
    assert result.returncode == 0, result.stdout + result.stderr
    config = json.loads((sandbox.root / "etc/leaderboard/cloudwatch-agent.json").read_text())
    assert config["agent"] == {"region": "us-east-1"}
    assert set(config) == {"agent", "logs"}  # logs only: no metrics, no permission beyond writing the groups
    shipped = {f["file_path"]: f for f in config["logs"]["logs_collected"]["files"]["collect_list"]}
    assert {path: f["log_group_name"] for path, f in shipped.items()} == {
        "/var/log/nginx/access.log": ACCESS_LOG_GROUP,
        "/var/log/nginx/error.log": ERROR_LOG_GROUP,
    }
    assert {f["log_stream_name"] for f in shipped.values()} == {"{instance_id}"}
    (fetch,) = sandbox.calls("amazon-cloudwatch-agent-ctl")
    agent_config = sandbox.root / "etc/leaderboard/cloudwatch-agent.json"
    assert fetch == ["-a", "fetch-config", "-m", "ec2", "-c", f"file:{agent_config}"]
    assert "amazon-cloudwatch-agent.service" in (sandbox.state / "enabled").read_text().split()
    assert "amazon-cloudwatch-agent.service" in (sandbox.state / "started").read_text().split()
    assert sandbox.signals[-1]["status"] == "SUCCESS"


def test_nginx_adds_the_admin_key_on_the_admin_routes_only(booted):
    sandbox = booted
    assert sandbox.boot_result.returncode == 0
    status, _ = sandbox.request("/admin-api/snapshot", method="POST", body=b"{}", auth=("admin", ADMIN_PASSWORD))
    assert status == 200
    snapshot = [r for r in sandbox.api.requests if r["path"] == "/dev/snapshot"][-1]
    assert snapshot["headers"]["x-api-key"] == ADMIN_KEY
    reads = [r for r in sandbox.api.requests if r["path"] == "/dev/leaderboards"]
    assert all("x-api-key" not in {h.lower() for h in r["headers"]} for r in reads)
    assert sandbox.request("/admin-api/snapshot", method="POST", body=b"{}", auth=("admin", "wrong"))[0] == 401


def test_admin_writes_are_accepted_from_the_page_behind_cloudfront_only(booted):
    """The Nginx the boot configured, as CloudFront reaches it (the viewer's Host forwarded, HTTP inside the VPC):
    the page's own write passes; a cross-site one, or one from another origin, is a 403 that reaches nothing. The
    boot needs no setting for it (no DASHBOARD_ORIGIN: the distribution is built after the instance)."""
    sandbox = booted
    assert sandbox.boot_result.returncode == 0
    assert "DASHBOARD_ORIGIN" not in (sandbox.root / "etc/leaderboard/boot.env").read_text()

    def snapshot(origin: str, fetch_site: str) -> int:
        headers = {"Host": DISTRIBUTION_HOST, "Origin": origin, "Sec-Fetch-Site": fetch_site}
        return sandbox.request(
            "/admin-api/snapshot", method="POST", body=b"{}", auth=("admin", ADMIN_PASSWORD), headers=headers
        )[0]

    before = len([r for r in sandbox.api.requests if r["path"] == "/dev/snapshot"])
    assert snapshot("https://evil.example", "cross-site") == 403
    assert snapshot("https://d2.cloudfront.net", "same-origin") == 403
    assert len([r for r in sandbox.api.requests if r["path"] == "/dev/snapshot"]) == before
    assert snapshot(f"https://{DISTRIBUTION_HOST}", "same-origin") == 200
    assert len([r for r in sandbox.api.requests if r["path"] == "/dev/snapshot"]) == before + 1


def test_the_pages_csp_connects_to_its_own_origin_and_the_event_apis_realtime_endpoint_only(booted):
    """User data hands the Event API's realtime endpoint to Nginx (boot.env, so every later render too): the page's
    Content-Security-Policy lets it open that WebSocket, and nothing else beyond its own origin."""
    sandbox = booted
    assert sandbox.boot_result.returncode == 0
    assert f'LIVE_REALTIME_URL="{LIVE_REALTIME_URL}"' in (sandbox.root / "etc/leaderboard/boot.env").read_text()
    with urllib.request.urlopen(f"http://127.0.0.1:{sandbox.port}/", timeout=30) as resp:
        policy = resp.headers["Content-Security-Policy"]
    directives = {part.split()[0]: part.split()[1:] for part in (p.strip() for p in policy.split(";")) if part}
    assert directives["connect-src"] == ["'self'", LIVE_REALTIME_URL]
    assert directives["default-src"] == ["'self'"]


def test_secrets_unit_rereads_the_secrets_and_reloads_nginx(sandbox):
    """What rotation does through SSM Run Command: new values in Secrets Manager, then restart the unit."""
    assert sandbox.boot().returncode == 0
    sandbox.write_secrets("rotatedAdminKey0123456789abcdefghijklmn", "rotatedPassw0rd")
    result = sandbox.systemctl("restart", "leaderboard-secrets.service")
    assert result.returncode == 0, result.stdout + result.stderr
    new_key = "rotatedAdminKey0123456789abcdefghijklmn"

    def forwards_the_new_key() -> bool:
        """The password file is read at each request; the key is in the config: the reload's new workers send it."""
        status, _ = sandbox.request("/admin-api/simulate", method="POST", body=b"{}", auth=("admin", "rotatedPassw0rd"))
        assert status == 200
        simulate = [r for r in sandbox.api.requests if r["path"] == "/dev/simulate"][-1]
        return simulate["headers"]["x-api-key"] == new_key

    assert eventually(forwards_the_new_key)  # the reload replaces the workers, at its own pace on a loaded machine
    assert sandbox.request("/admin-api/ping", auth=("admin", ADMIN_PASSWORD))[0] == 401


def test_a_transient_install_failure_is_retried_with_backoff(sandbox):
    sandbox.fail("dnf", 2)
    result = sandbox.boot()
    assert result.returncode == 0, result.stdout + result.stderr
    success_only(sandbox)
    assert len(sandbox.calls("dnf")) == 3
    assert sandbox.sleeps[:2] == [2, 4]


def test_a_permanent_install_failure_signals_failure_with_its_reason(sandbox):
    sandbox.fail("dnf", "always")
    result = sandbox.boot()
    assert result.returncode != 0
    (signal_,) = sandbox.signals
    assert signal_["status"] == "FAILURE"
    assert signal_["unique_id"] == f"{INSTANCE_ID}: installing packages failed (exit 1)"
    assert len(sandbox.calls("dnf")) == 5
    assert sandbox.sleeps == [2, 4, 8, 16]
    assert "BOOT FAILED: installing packages failed" in (sandbox.root / "dev/console").read_text()
    assert not sandbox.nginx_running()


def test_no_success_while_the_api_does_not_answer_through_the_proxy(sandbox):
    """Nginx serves the page, but /api/ gets 500s from the API: the boot fails, with the answer it got."""
    sandbox.api.statuses = [500] * 20
    result = sandbox.boot()
    assert result.returncode != 0
    (signal_,) = sandbox.signals
    assert signal_["status"] == "FAILURE"
    assert signal_["unique_id"] == f"{INSTANCE_ID}: /api/leaderboards answered 500, not 200"[:64]
    assert len([r for r in sandbox.api.requests if r["path"] == "/dev/leaderboards"]) == 8


def test_an_api_that_comes_up_late_is_waited_for(sandbox):
    """Lambda cold starts and permissions still being created: 502s at first, then success."""
    sandbox.api.statuses = [502, 502, 500]
    result = sandbox.boot()
    assert result.returncode == 0, result.stdout + result.stderr
    signal_ = success_only(sandbox)
    checks = [r for r in sandbox.api.requests if r["path"] == "/dev/leaderboards"]
    assert len(checks) == 4 and checks[-1]["at"] < signal_["at"]


def test_the_boot_waits_for_the_network_and_retries_secret_reads(sandbox):
    sandbox.fail("network", 3)
    sandbox.fail("secrets", 2)
    result = sandbox.boot()
    assert result.returncode == 0, result.stdout + result.stderr
    success_only(sandbox)
    assert len([c for c in sandbox.calls("aws") if c[:2] == ["sts", "get-caller-identity"]]) == 4
    assert len([c for c in sandbox.calls("aws") if c[:2] == ["secretsmanager", "get-secret-value"]]) == 4


def test_a_site_that_cannot_be_fetched_signals_failure(sandbox):
    sandbox.fail("s3", "always")
    assert sandbox.boot().returncode != 0
    (signal_,) = sandbox.signals
    assert (signal_["status"], signal_["unique_id"]) == ("FAILURE", f"{INSTANCE_ID}: fetching the site failed (exit 1)")
