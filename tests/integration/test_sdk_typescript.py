"""The TypeScript SDK (clients/typescript) against this worker's local stack: its Node test suite (node:test, the
compiled clients/typescript/build/*.test.js) runs with the stack's URLs and keys in its environment, as a Node 20
user runs it (the `ws` package as the WebSocket), and fails here with node's output. Every call the suite makes
through the SDK is recorded (method, the document's path template, status): the coverage test compares them with
the operations of the document the SDK is generated from ($(OPENAPI_JSON)). `make clients` builds the SDK and the
suite first (make test depends on it)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from datetime import timedelta
from pathlib import Path

import pytest

from tests.support import clock, jws

from .stack_config import ADMIN_KEY, API_KEY

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "clients" / "typescript"
DOCUMENT = ROOT / ".local" / "openapi.json"
SUITES = ("unit", "sdk", "live", "native", "retry")  # clients/typescript/test/<suite>.test.ts
BUILT = [*(SDK / "build" / f"{suite}.test.js" for suite in SUITES), SDK / "dist" / "index.js", DOCUMENT]
METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}
README = SDK / "README.md"
PLACEHOLDER = "/path/to/this/repository"  # the README's name for this checkout
# The 429 test starts this many seconds before the minute ends on the stack's clock: the per-minute limit's
# Retry-After is then at most this, and the retry lands in the next minute.
BEFORE_MINUTE_ENDS = 8.0


def _built() -> None:
    missing = [str(p.relative_to(ROOT)) for p in BUILT if not p.exists()]
    if missing:
        pytest.fail(f"the TypeScript SDK is not built ({', '.join(missing)} missing): run `make clients`")


def _node(stack, suite: str, tmp: Path, *flags: str, **extra: str) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "LEADERBOARD_API_URL": stack.api_url,
        # No edge in the integration stack: the reads go to the API, the same paths (tests/e2e has the edge)
        "LEADERBOARD_EDGE_URL": stack.api_url,
        "LEADERBOARD_GAME_KEY": API_KEY,
        "LEADERBOARD_ADMIN_KEY": ADMIN_KEY,
        "LEADERBOARD_SDK_COVERAGE": str(tmp / "coverage.txt"),
        **extra,
    }
    return subprocess.run(
        ["node", *flags, "--test", "--test-reporter=spec", f"build/{suite}.test.js"],
        cwd=SDK,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.fixture(scope="module")
def runs(stack, tmp_path_factory) -> dict:
    """Both suites run once, against this worker's stack; their results and the calls they made."""
    _built()
    tmp = tmp_path_factory.mktemp("sdk-typescript")
    receipt = tmp / "receipt.jws"
    results = {suite: _node(stack, suite, tmp) for suite in ("unit", "live")}
    # Node 20's own WebSocket is behind a flag (global from Node 22 on)
    results["native"] = _node(stack, "native", tmp, "--experimental-websocket")
    results["sdk"] = _node(stack, "sdk", tmp, LEADERBOARD_SDK_RECEIPT=str(receipt))
    now = stack.clock.now()
    minute_end = now.replace(second=0, microsecond=0) + timedelta(minutes=1)
    if (minute_end - now).total_seconds() < BEFORE_MINUTE_ENDS + 1:
        minute_end += timedelta(minutes=1)
    clock.move(stack, to=minute_end - timedelta(seconds=BEFORE_MINUTE_ENDS))
    results["retry"] = _node(stack, "retry", tmp)
    coverage = tmp / "coverage.txt"
    calls = coverage.read_text().split("\n") if coverage.exists() else []
    return {
        **results,
        "calls": [line.split(" ") for line in calls if line],
        "receipt": receipt.read_text() if receipt.exists() else None,
    }


def _passed(result: subprocess.CompletedProcess) -> None:
    if result.returncode != 0:
        pytest.fail(f"node --test exited {result.returncode}\n{result.stdout}\n{result.stderr}", pytrace=False)


def test_the_sdk_suite_passes(runs):
    """The run flow, a held score, paging to the end, a live update arriving, and every other operation."""
    _passed(runs["sdk"])


def test_the_sdk_unit_suite_passes(runs):
    """Retry-After parsing, what may be retried, the subprotocol's encoding, the browser bundle self-contained."""
    _passed(runs["unit"])


def test_live_following_reconnects_and_falls_back_to_polling(runs):
    """A dropped connection made again with pushes on the new one; no WebSocket: polling; the browser bundle."""
    _passed(runs["live"])


def test_node_20s_own_websocket_goes_live(runs):
    """The other path a Node 20 user may take: `node --experimental-websocket`, no WebSocket passed."""
    _passed(runs["native"])


def test_a_429_is_retried_after_retry_after(runs):
    """A real 429 of the stack's per-player limit, retried by the SDK once its Retry-After has passed."""
    _passed(runs["retry"])


def test_the_receipt_of_the_run_verifies(runs, api):
    """The receipt the SDK fetched after the run is signed by a key the API publishes (checked with `cryptography`)."""
    _passed(runs["sdk"])
    claims = jws.verify(runs["receipt"], api.get("/.well-known/jwks.json").json())
    assert claims["rank"] == 1 and claims["score"] == 4321


def test_every_operation_of_the_document_is_called_through_the_sdk(runs):
    """Each operation of the document the SDK is generated from answered a 2xx to a call through the SDK at least
    once: an operation the document gains is missed here until the suite calls it."""
    document = json.loads(DOCUMENT.read_text())
    operations = {(m.upper(), path) for path, item in document["paths"].items() for m in item if m in METHODS}
    answered = {(method, path) for method, path, status in runs["calls"] if status.startswith("2")}
    missing = sorted(f"{m} {p}" for m, p in operations - answered)
    assert len(operations) == 39
    assert not missing, f"{len(missing)} operation(s) never answered a 2xx through the SDK: {missing}"


def _blocks(text: str, heading: str) -> list[tuple[str, str]]:
    """The fenced blocks (language, body) of the README's section `heading`, in order."""
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^```(\w*)\n(.*?)^```$", section, flags=re.M | re.S)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A new project outside the repository with the package installed as the README's Install section says (the
    tarball `make clients` packs, and `ws`; from npm's cache when it has them)."""
    _built()
    (_, install), *_ = _blocks(README.read_text(), "Install")
    (line,) = [cmd for cmd in install.splitlines() if cmd.startswith("npm install")]
    argv = shlex.split(line.split("#", 1)[0].replace(PLACEHOLDER, str(ROOT)))
    tarball = Path(argv[2])
    if not tarball.exists():
        pytest.fail(f"the README installs {tarball}, which `make clients` did not pack")
    project = tmp_path_factory.mktemp("ts-user-project")
    assert ROOT not in project.parents
    done = subprocess.run(
        [*argv, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return project


def test_the_readme_quickstart_runs_as_written_in_a_new_project(stack, installed, tmp_path):
    """The Quickstart's file and command, verbatim (the repository's path put in), against a stack's run.json as
    `make run` writes it: it exits 0 and prints the README's block."""
    blocks = _blocks(README.read_text(), "Quickstart")
    code = next(body for lang, body in blocks if lang == "js")
    command = next(body for lang, body in blocks if lang == "bash").strip()
    shown = next(body for lang, body in blocks if lang == "")
    (installed / "quickstart.mjs").write_text(code)
    repo = tmp_path / "repository"
    (repo / ".local" / "run").mkdir(parents=True)
    state = {"api": stack.api_url, "edge": "none", "api_key": API_KEY, "admin_key": ADMIN_KEY}
    (repo / ".local" / "run" / "run.json").write_text(json.dumps(state))
    env = {k: v for k, v in os.environ.items() if not k.startswith("LEADERBOARD_")}
    done = subprocess.run(
        command.replace(PLACEHOLDER, str(repo)),
        shell=True,
        cwd=installed,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == shown, done.stdout + done.stderr


def test_the_installed_package_loads_with_require_and_has_types(installed):
    """The CommonJS entry (exports' `require`) and the declarations the package ships."""
    script = (
        "const c = require('@cdk-leaderboard/client'); console.log(typeof c.createLeaderboardClient, "
        "typeof c.verifyReceipt)"
    )
    done = subprocess.run(["node", "-e", script], cwd=installed, capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout) == (0, "function function\n"), done.stderr
    package = installed / "node_modules" / "@cdk-leaderboard" / "client"
    manifest = json.loads((package / "package.json").read_text())
    assert (package / manifest["types"]).exists()
    assert manifest["version"] and "private" not in manifest
