"""Run a bench (`python -m bench`, `bench.load`, `bench.launch`) as users do, as a child process, and read its JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from local import ROOT


def run_bench(tmp_path, module: str, *args: str, timeout: int) -> dict:
    out = tmp_path / f"{module}.json"
    done = subprocess.run(
        [sys.executable, "-m", module, *args, "--json", str(out)],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "JAVA_HOME", "TMPDIR")},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text())
