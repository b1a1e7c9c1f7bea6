"""python -m bench [--players N] [--json FILE]: see docs/PERFORMANCE.md."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import bench  # noqa: F401  (puts lambda_src on sys.path)
from bench.runner import Options, main


def parse(argv: list[str] | None = None) -> Options:
    p = argparse.ArgumentParser(
        prog="python -m bench",
        description="Load N players onto a board in DynamoDB Local, then measure submit, top-25, player stats, "
        "around-me and a page of 100 through the real handlers, next to the original COUNT-based design.",
    )
    p.add_argument("--players", type=int, default=10_000, help="players on the board (default 10,000)")
    p.add_argument("--samples", type=int, default=100, help="samples per operation (default 100)")
    p.add_argument(
        "--min-samples",
        type=int,
        default=20,
        help="never fewer samples than this, whatever the time budget (default 20)",
    )
    p.add_argument(
        "--max-seconds",
        type=float,
        default=120.0,
        help="time budget per operation: past it, stop at --min-samples (default 120)",
    )
    p.add_argument("--load-threads", type=int, default=2, help="writer threads for the load (default 2)")
    p.add_argument("--seed", type=int, default=1, help="random seed for players and samples (default 1)")
    p.add_argument("--json", type=Path, dest="json_path", help="write every figure to this file")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bars")
    a = p.parse_args(argv)
    if a.players < 200:
        p.error("--players must be at least 200 (a page of 100 from the middle needs a few pages)")
    if not 1 <= a.min_samples <= a.samples:
        p.error("--min-samples must be between 1 and --samples")
    if a.load_threads < 1:
        p.error("--load-threads must be at least 1")
    return Options(a.players, a.samples, a.min_samples, a.max_seconds, a.seed, a.load_threads, a.json_path, a.progress)


if __name__ == "__main__":
    sys.exit(main(parse()))
