"""schemathesis (CLI `st run`) against a local stack of its own, from the OpenAPI document the stack serves.

Every operation, then sequences of them along the links schemathesis infers (the stateful phase); all of
schemathesis's checks (no 5xx, responses that conform to the document, no request the
document calls valid refused, invalid ones refused, undeclared methods answered 405 with Allow, keys enforced);
each keyed operation with its own key (the document's gameKey / adminKey schemes), without one and with a wrong
one. No hooks: every case goes out as generated. Settings: tests/fuzz/schemathesis.toml (FUZZ_EXAMPLES=N: N cases per
operation in the fuzzing phase instead of its 20; FUZZ_SEED=N: another seed than its own); the summary of a run is
in docs/SECURITY.md.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest
import requests

from local import ROOT
from local.backend import Backend
from tests.support import clock

CONFIG = ROOT / "tests" / "fuzz" / "schemathesis.toml"
ST = os.path.join(os.path.dirname(sys.executable), "st")
RUN_TIMEOUT_SECONDS = 900  # a hung run fails here rather than at CI's limit
GAME_KEY, ADMIN_KEY = "fuzz-game-key-00000001", "fuzz-admin-key-0000001"  # API Gateway: 20+ characters
FUZZING_EXAMPLES = "generation = { max-examples = 20 }"  # schemathesis.toml's [phases.fuzzing], FUZZ_EXAMPLES replaces
SEED = "seed = 20261130"  # schemathesis.toml's seed line, which FUZZ_SEED replaces
STATEFUL = "Stateful tests"  # the stateful phase's test case in the JUnit report (sequences along inferred links)


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    backend = Backend(
        api_key=GAME_KEY,
        admin_key=ADMIN_KEY,
        quiet=True,
        run_dir=tmp_path_factory.mktemp("fuzz"),
        clock=clock.RunningClock(),  # moved past midnight rather than waited for (the test starts clear of it)
    )
    try:
        yield backend.start()
    finally:
        backend.stop()


@pytest.mark.slow
def test_schemathesis_finds_nothing(stack, tmp_path):
    clock.clear_of_midnight(stack)
    document = requests.get(f"{stack.api_url}/openapi.json", timeout=30)
    assert document.status_code == 200
    operations = {f"{m.upper()} {path}" for path, methods in document.json()["paths"].items() for m in methods}
    # Served, then read from a file: given the document's own URL, schemathesis would leave GET /openapi.json out.
    (tmp_path / "openapi.json").write_bytes(document.content)
    env = {
        **os.environ,
        "FUZZ_API_URL": stack.api_url,
        "FUZZ_GAME_KEY": GAME_KEY,
        "FUZZ_ADMIN_KEY": ADMIN_KEY,
        "PYTHONPATH": str(ROOT),  # the hooks module: tests.fuzz.hooks
        "NO_COLOR": "1",
        "COLUMNS": "120",
    }
    config, text = CONFIG, CONFIG.read_text()
    for variable, line, replacement in (
        # a deeper fuzzing phase than schemathesis.toml's (FUZZ_EXAMPLES=100), or other examples (FUZZ_SEED=7)
        ("FUZZ_EXAMPLES", FUZZING_EXAMPLES, "generation = {{ max-examples = {} }}"),
        ("FUZZ_SEED", SEED, "seed = {}"),
    ):
        if os.environ.get(variable):
            assert line in text, f"{CONFIG} no longer has the line {line!r}"
            text = text.replace(line, replacement.format(int(os.environ[variable])))
            config = tmp_path / "schemathesis.toml"
    if config != CONFIG:
        config.write_text(text)
    command = [
        ST,
        "--config-file",
        str(config),
        "run",
        str(tmp_path / "openapi.json"),
        "--report",
        "junit",
        "--report-dir",
        str(tmp_path),
    ]
    started = time.monotonic()
    done = subprocess.run(
        command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS, check=False
    )
    elapsed = time.monotonic() - started
    output = done.stdout + done.stderr
    print(output[-6000:])
    assert done.returncode == 0, output[-20000:]
    tested = set(re.findall(r'testcase name="([^"]+)"', next(tmp_path.glob("junit*.xml")).read_text()))
    assert STATEFUL in tested, "the stateful phase did not run"
    tested.discard(STATEFUL)
    assert tested == operations, f"not tested: {sorted(operations - tested)}"
    # Its cost is bounded by its example counts (schemathesis.toml), not by a clock: a time bound failed a loaded
    # run (254 s) with nothing wrong; the time is printed for the record
    print(f"schemathesis took {elapsed:.0f} s")
