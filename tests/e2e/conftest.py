"""Browser tests: Debian's Chromium driven by Playwright, against the local stack behind Nginx.

Playwright's own browser download does not work here; the tests launch the system
Chromium (`apt-get install chromium`) through `executable_path`. Without Chromium or Nginx
they skip with that reason, except under CI (CI=true), where a missing tool is a failure.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import pytest
import requests
from cdk_leaderboard.dashboard_ec2.render import DEFAULT_ADMIN_USER
from dashboard_support import ARTIFACTS, DESKTOP, REPO
from playwright.sync_api import expect

from local.gateway import routes_module
from tests.support import clock

# The dashboard's /api/ reads through the local edge (as EC2's through CloudFront): a read may get an answer up to a
# live ranking's max-age + stale-while-revalidate old, the lag the product states (docs/API.md). The page shows
# what it knows of at once (pushes, its own admin actions); a change it cannot know of (a board created, a score
# submitted while nothing pushes it) shows within that lag, and a test waits it (Stack.wait_edge_lag) before it
# reads what the change affects.
_LIVE = routes_module().LIVE
EDGE_LAG_SECONDS = _LIVE.max_age + _LIVE.stale_seconds

# An assertion waits up to this long for the page to get there (Playwright's own default is 5 s): the suite runs
# beside others on 2 cores, where a poll or a restart can take several seconds. A wait that ends sooner passes sooner.
expect.set_options(timeout=15_000)

CHROMIUM = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if os.access("/usr/sbin/nginx", os.X_OK) else None)

API_KEY = "e2e-" + secrets.token_hex(12)  # the game key
ADMIN_KEY = "e2e-admin-" + secrets.token_hex(12)  # boards and snapshots
ADMIN_USER = DEFAULT_ADMIN_USER
ADMIN_PASSWORD = "e2e-" + secrets.token_hex(8)


def _require(ok: bool, reason: str) -> None:
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must install it: see .ci/run)")
    pytest.skip(reason)


@dataclass
class Stack:
    dashboard: str
    api: str
    served_by: str
    proc: subprocess.Popen
    http: requests.Session
    _lock: threading.Lock

    def command(self, cmd: str) -> str:
        """One command of stack_process.py's protocol; what its "ok" carried ("" for most)."""
        with self._lock:
            self.proc.stdin.write(cmd + "\n")
            self.proc.stdin.flush()
            reply = self.proc.stdout.readline().strip()
        assert reply == "ok" or reply.startswith("ok "), f"stack {cmd}: {reply or 'no answer (see the stack log)'}"
        return reply.removeprefix("ok").strip()

    def now(self) -> datetime:
        """The stack's time (tests/support/clock.RunningClock: the real time plus what advance() added)."""
        return datetime.fromisoformat(self.command("now"))

    def advance(self, seconds: float, *pages) -> datetime:
        """The stack's clock `seconds` forward, and each page's with it (their clocks follow the stack's: see
        new_page), so that a tournament ends or a snapshot is a minute later without waiting for it. Timers of
        the pages that fall due meanwhile fire once (Playwright's clock.fast_forward). The stack's time after."""
        moved = datetime.fromisoformat(self.command(f"advance {seconds}"))
        for page in pages:
            page.clock.fast_forward(int(seconds * 1000))
        return moved

    def reset(self) -> None:
        self.command("reset")

    def wait_edge_lag(self, since: float | None = None) -> None:
        """Until a read through the edge surely shows what changed before this call, or before `since` (a
        time.monotonic() taken before the change): the edge's stated lag."""
        start = time.monotonic() if since is None else since
        time.sleep(max(0.0, start + EDGE_LAG_SECONDS - time.monotonic()))

    def settle(self) -> None:
        """Ranks and totals follow writes once the stream consumer has counted them (a moment later)."""
        self.command("settle")

    def submit(self, player_id: str, score: int, name: str | None = None) -> dict:
        body = {"player_id": player_id, "score": score}
        if name:
            body["player_name"] = name
        resp = self.http.post(f"{self.api}/scores", json=body, headers={"x-api-key": API_KEY}, timeout=30)
        assert resp.status_code == 200, resp.text
        return resp.json()

    def submit_to(self, board: str, player_id: str, score: int, name: str | None = None) -> dict:
        """POST /leaderboards/{board}/scores, as a game server would."""
        body = {"player_id": player_id, "score": score}
        if name:
            body["player_name"] = name
        resp = self.http.post(
            f"{self.api}/leaderboards/{board}/scores", json=body, headers={"x-api-key": API_KEY}, timeout=30
        )
        assert resp.status_code == 200, resp.text
        return resp.json()

    def create_board(self, board: dict) -> dict:
        """POST /leaderboards (the tables are emptied by reset(): boards the stack declares stay)."""
        resp = self.http.post(f"{self.api}/leaderboards", json=board, headers={"x-api-key": ADMIN_KEY}, timeout=30)
        assert resp.status_code in (201, 409), resp.text
        return resp.json()

    def close_period(self, board: str, period_id: str) -> dict:
        """POST /leaderboards/{board}/periods/{period_id}/close (admin): what the scheduled closer does, now."""
        resp = self.http.post(
            f"{self.api}/leaderboards/{board}/periods/{period_id}/close", headers={"x-api-key": ADMIN_KEY}, timeout=30
        )
        assert resp.status_code == 200, resp.text
        return resp.json()

    def hide(self, board: str, player_id: str) -> dict:
        """PUT /leaderboards/{board}/players/{player_id}/hidden (admin): a moderator's decision, made elsewhere."""
        resp = self.http.put(
            f"{self.api}/leaderboards/{board}/players/{player_id}/hidden", headers={"x-api-key": ADMIN_KEY}, timeout=30
        )
        assert resp.status_code == 200, resp.text
        return resp.json()

    def snapshot(self, period: str = "all-time", limit: int = 25) -> dict:
        resp = self.http.post(
            f"{self.api}/snapshot",
            json={"period": period, "limit": limit},
            headers={"x-api-key": ADMIN_KEY},
            timeout=30,
        )
        assert resp.status_code == 201, resp.text
        return resp.json()


@pytest.fixture(scope="session")
def _stack_process(tmp_path_factory):
    """The stack's child process, started and not waited for: the browser fixture requests it before it launches
    Chromium, so that the two start side by side (`stack` then waits for the child's ready line)."""
    _require(NGINX is not None, "nginx is not installed (apt-get install nginx)")
    run_dir = tmp_path_factory.mktemp("e2e-stack")
    with open(run_dir / "stack.log", "w") as log:
        proc = subprocess.Popen(
            [
                sys.executable,
                str(Path(__file__).with_name("stack_process.py")),
                str(run_dir),
                API_KEY,
                ADMIN_KEY,
                ADMIN_PASSWORD,
            ],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            text=True,
            bufsize=1,
        )
        try:
            yield proc, run_dir
        finally:
            if proc.poll() is None:
                try:
                    proc.stdin.write("quit\n")
                    proc.stdin.flush()
                except OSError:  # already gone: still make sure it is
                    pass
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture(scope="session")
def stack(_stack_process):
    """DynamoDB Local, the handlers behind the local gateway and Nginx, in a child process, on a clock the tests
    move (tests/support/clock.RunningClock)."""
    proc, run_dir = _stack_process
    line = proc.stdout.readline()
    if not line:
        proc.wait(30)
        pytest.fail(f"the local stack did not start:\n{(run_dir / 'stack.log').read_text()[-4000:]}")
    info = json.loads(line)
    assert info["served_by"].startswith("nginx"), info["served_by"]
    with requests.Session() as http:
        yield Stack(info["dashboard"], info["api"], info["served_by"], proc, http, threading.Lock())


@pytest.fixture(autouse=True)
def _clear_of_midnight(stack):
    """A test does not start within two minutes of 00:00 UTC on the stack's clock (the daily and weekly boards
    change there: what it wrote before would be on another period than what it reads after): the clock is moved
    past it instead. The pages' clocks start at the stack's time (new_page)."""
    left = clock.seconds_to_midnight(stack.now())
    if left < clock.MIDNIGHT_MARGIN_SECONDS:
        stack.advance(left + 1)


@pytest.fixture(scope="session", autouse=True)
def _fresh_failure_screenshots():
    """Failure screenshots of an earlier run would mislead: remove them."""
    for old in ARTIFACTS.glob("FAILED-*.png"):
        old.unlink()


@pytest.fixture(scope="session")
def browser(_stack_process):
    _require(os.access(CHROMIUM, os.X_OK), f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def new_page(browser, stack, request):
    """new_page(viewport=DESKTOP, admin=False, password=None): a fresh context's page, watched for errors.

    admin=True gives the context the admin's basic-auth credentials, which the browser
    answers Nginx's challenge with (as a person would in the password dialog); password=
    answers with that password instead. (With neither, headless Chromium leaves the
    challenge pending, like a dialog nobody answers.)
    """
    contexts = []

    def make(viewport=DESKTOP, admin=False, password=None, **kwargs):
        options = {"viewport": viewport, "reduced_motion": "reduce", **kwargs}
        if admin or password:
            options["http_credentials"] = {"username": ADMIN_USER, "password": password or ADMIN_PASSWORD}
        context = browser.new_context(**options)
        context.set_default_timeout(15_000)
        # The page's clock is the stack's (it runs on from there): what the page works out from the time (a
        # countdown, the next reset, whether a period has ended) agrees with the stack, also once a test has moved
        # the stack's clock on (Stack.advance moves the page's with it).
        context.clock.install(time=stack.now())
        contexts.append(context)
        page = context.new_page()
        page.problems = []
        page.on("pageerror", lambda err: page.problems.append(f"page error: {err}"))
        page.on(
            "console",
            lambda msg: (
                page.problems.append(f"console: {msg.text}")
                # a failed load or WebSocket handshake is the network's doing (the API stopped), not the page's
                if msg.type == "error"
                and "Failed to load resource" not in msg.text
                and "WebSocket connection to" not in msg.text
                else None
            ),
        )
        # Any Content-Security-Policy violation (an inline script or style) is recorded.
        page.add_init_script(
            "window.__cspViolations = [];"
            "document.addEventListener('securitypolicyviolation',"
            " e => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));"
        )
        return page

    yield make
    failed = getattr(request.node, "rep_call", None) is not None and request.node.rep_call.failed
    for i, context in enumerate(contexts):
        if failed:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            for j, page in enumerate(context.pages):
                try:
                    page.screenshot(path=ARTIFACTS / f"FAILED-{request.node.name}-{i}-{j}.png", full_page=True)
                except Exception:
                    pass
        context.close()


@pytest.hookimpl(tryfirst=True, hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"rep_{report.when}", report)
