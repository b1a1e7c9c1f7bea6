"""Cold-start import time of each function's handler module, a fresh interpreter each run (docs/PERFORMANCE.md).

    python -m bench.import_times --source lambda_src [--deps DIR] [--runs 15] [--json FILE]

Each run is `python -S -B -c "import <handler>"` with PYTHONPATH = the Lambda package's root (`--source`), the
functions' third-party packages (`--deps`: a `pip install --target` of requirements-lambda.txt for THIS machine, since
the asset's own are aarch64 builds) and what Lambda provides (boto3 and Powertools, installed once under
.local/import-bench/runtime from requirements-dev.txt's pins). `-S`: no site-packages, so only those three folders are
seen (the venv's cryptography would otherwise reach vendored code that probes for it); `-B` and no __pycache__ in the
source: every module is compiled on import, as on Lambda, whose /var/task is read-only and the asset ships no bytecode.
Two runs per round, each timing the import and then one more figure: the first token (a run token issued and
verified: PyJWT is imported on first use) or the first receipt signature (the key derived from a seed, one
signature: the signer is imported on first use), each in a process of its own, as a function pays them on the first
request that needs them (the import figure is over both runs: 2 x --runs samples).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNTIME = ROOT / ".local" / "import-bench" / "runtime"
PROVIDED = ("boto3", "aws-lambda-powertools")  # the runtime's and the public layer's packages

IMPORT = """
import time, importlib
t = time.perf_counter()
importlib.import_module({module!r})
imported = time.perf_counter() - t
from cdk_leaderboard_lambda.domain import keyring, receipt_keys, tokens
t = time.perf_counter()
if {first!r} == "token":
    ring = keyring.CachedRing(lambda: keyring.Ring(keyring.Key("local", "k" * 64)))
    token = tokens.issue(ring, "i", "leaderboard:run", "p1", 60, now=1e9)[0]
    tokens.verify(ring, "i", token, "leaderboard:run", now=1e9)
else:
    receipt_keys.KeySet.parse("s" * 64).sign_compact({{"rank": 1}})
print(imported, time.perf_counter() - t)
"""


def provided_runtime() -> Path:
    """boto3 and Powertools at requirements-dev.txt's pins, for this machine's Python (installed and compiled once)."""
    if not (RUNTIME / "boto3").is_dir():
        pins = [
            line
            for line in (ROOT / "requirements-dev.txt").read_text().splitlines()
            if line.split("==")[0].lower() in PROVIDED
        ]
        subprocess.run(
            [sys.executable, "-m", "uv", "pip", "install", "--quiet", "--no-compile", "--target", str(RUNTIME), *pins],
            check=True,
        )
        # Lambda's own packages come with their bytecode: compiled once here, so runs compile only the asset's code
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(RUNTIME)], check=True)
    return RUNTIME


def handlers(source: Path) -> list[str]:
    folder = source / "cdk_leaderboard_lambda" / "handlers"
    return sorted(f"cdk_leaderboard_lambda.handlers.{p.stem}" for p in folder.glob("*.py") if p.stem != "__init__")


def measure(source: Path, deps: Path | None, runs: int) -> dict[str, dict[str, float]]:
    path = [str(source), *([str(deps)] if deps else []), str(provided_runtime())]
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": os.pathsep.join(path),
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        # what the stack sets on every function; keys given as values, so nothing is read from Secrets Manager
        "SCORES_TABLE": "scores",
        "SNAPSHOTS_TABLE": "snapshots",
        "DIGEST_KEY": "d" * 64,
        "TOKEN_SIGNING_KEY": "t" * 64,
        "CURSOR_SECRET": "c" * 64,
        "GAME_API_KEY": "g" * 40,
        "ADMIN_API_KEY": "a" * 40,
    }
    results: dict[str, dict[str, float]] = {}
    for module in handlers(source):
        imports, tokens, signs = [], [], []
        for _ in range(runs):
            for first, figures in (("token", tokens), ("signature", signs)):
                out = subprocess.run(
                    [sys.executable, "-S", "-B", "-c", IMPORT.format(module=module, first=first)],
                    env=env,
                    cwd="/",
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.split()
                imports.append(float(out[0]) * 1000)
                figures.append(float(out[1]) * 1000)
        name = module.rsplit(".", 1)[1]
        results[name] = {
            f"{figure}_{stat.__name__}_ms": round(stat(values), 1)
            for figure, values in (("import", imports), ("first_token", tokens), ("first_signature", signs))
            for stat in (min, statistics.median)
        }
        row = "".join(
            f"  {figure} {results[name][f'{figure}_min_ms']:6.1f} / {results[name][f'{figure}_median_ms']:6.1f}"
            for figure in ("import", "first_token", "first_signature")
        )
        print(f"{name:22}{row}  ms (min / median)", flush=True)
    return results


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.import_times", description=__doc__.split("\n\n")[0])
    p.add_argument("--source", type=Path, default=ROOT / "lambda_src", help="the Lambda package's root")
    p.add_argument("--deps", type=Path, help="the functions' third-party packages, installed for this machine")
    p.add_argument("--runs", type=int, default=15, help="fresh processes per handler (default 15)")
    p.add_argument("--json", type=Path, dest="json_path", help="write the figures to this file")
    a = p.parse_args(argv)
    if list(a.source.rglob("__pycache__")):
        p.error(f"{a.source} has __pycache__ folders: every run must compile, as on Lambda (delete them)")
    results = measure(a.source.resolve(), a.deps.resolve() if a.deps else None, a.runs)
    if a.json_path:
        a.json_path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
