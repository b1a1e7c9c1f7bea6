"""python -m bench.launch [--users N] [--seconds S] [--json FILE]: see docs/PERFORMANCE.md, "Launch load test"."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import bench  # noqa: F401  (puts lambda_src on sys.path)
from bench.launch.runner import Options, main


def parse(argv: list[str] | None = None) -> Options:
    d = Options()
    p = argparse.ArgumentParser(
        prog="python -m bench.launch",
        description="Launch-day traffic with Locust against the local stack (`make run`): players reading the top "
        "and their rank through the edge, submitting scores, following the live top; then the same traffic "
        "priced on AWS (modelled).",
    )
    p.add_argument("--users", type=int, default=d.users, help=f"Locust users in all (default {d.users})")
    p.add_argument("--spawn-rate", type=float, default=d.spawn_rate, help=f"users started per second ({d.spawn_rate})")
    p.add_argument("--seconds", type=int, default=d.seconds, help=f"Locust's run time (default {d.seconds})")
    p.add_argument("--players", type=int, default=d.players, help=f"players seeded first (default {d.players})")
    p.add_argument("--live-users", type=int, default=d.live_users, help=f"WebSocket followers ({d.live_users})")
    p.add_argument("--wait", type=float, default=d.wait_seconds, help=f"longest think time, s ({d.wait_seconds})")
    p.add_argument("--weights", default=d.task_weights, help=f"task weights top,rank,submit ({d.task_weights})")
    p.add_argument(
        "--samples", type=int, default=d.samples, help=f"calls per operation for DynamoDB costs ({d.samples})"
    )
    p.add_argument("--json", type=Path, dest="json_path", default=d.json_path, help="where the figures go")
    p.add_argument("--no-progress", dest="progress", action="store_false", help="only Locust's summary")
    p.add_argument(
        "--each-first",
        action="store_true",
        help="each Player reads the top, reads its rank and submits once before the random mix, and each live "
        "follower submits a new leader and waits for its top: every operation happens in a run of seconds (tests)",
    )
    a = p.parse_args(argv)
    if a.users < 1 or a.seconds < 1 or a.players < 1 or a.samples < 1:
        p.error("--users, --seconds, --players and --samples must be at least 1")
    if a.live_users >= a.users:
        p.error("--live-users must leave at least one Player (they come out of --users)")
    if a.users - a.live_users > a.players:
        p.error("--players must be at least the number of Players: each owns one seeded player")
    return Options(
        a.users,
        a.spawn_rate,
        a.seconds,
        a.players,
        a.live_users,
        a.wait,
        a.weights,
        a.samples,
        a.json_path,
        a.progress,
        a.each_first,
    )


if __name__ == "__main__":
    sys.exit(main(parse()))
