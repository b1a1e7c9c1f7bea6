"""`make bench-launch`: start `make run`'s stack, seed the default board, run Locust headless against it, count
what reached the origin, measure each operation's DynamoDB cost, model AWS, write the JSON."""

from __future__ import annotations

import json
import os
import random
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import requests

from bench.launch import aws_cost, costs, stack_output
from bench.launch import operations as ops
from local import ROOT

START_TIMEOUT_SECONDS = 600  # a first run synthesizes the template and fetches DynamoDB Local
# Entries per bulk request when seeding: far inside the function's 10 s timeout on DynamoDB Local, even on a busy
# machine (250 took longer there: a 502).
SEED_CHUNK = 50
NO_EDGE = "no edge: reads went straight to the API (origin per edge request reported as 1.0)"


@dataclass(frozen=True)
class Options:
    users: int = 40
    spawn_rate: float = 10.0
    seconds: int = 60
    players: int = 1_000  # seeded on the default board before the load
    live_users: int = 2
    wait_seconds: float = 1.5  # a Player's longest think time between tasks
    task_weights: str = "6,3,1"  # top, own rank, submit
    samples: int = 20  # per operation, for the DynamoDB cost
    json_path: Path = ROOT / "bench" / "results" / "launch.json"
    progress: bool = True
    each_first: bool = False  # each Player calls each task once first; each follower causes and waits for a push


class Stack:
    """`python -m local run` (what `make run` runs) in a process group of its own, its output kept line by line."""

    def __init__(self, env: dict[str, str], run_dir: Path, echo: bool) -> None:
        self.lines: list[str] = []
        self.ready = threading.Event()
        self.up = False  # it printed its "Ready in" line
        cmd = [sys.executable, "-m", "local", "run", "--no-seed", "--port", str(_free_port())]
        cmd += ["--api-port", str(_free_port())]
        # the edge's port (where the stack has one) and the live updates' (the AppSync Events stand-in's)
        env = {**env, "EDGE_PORT": str(_free_port()), "LIVE_PORT": str(_free_port())}
        self.proc = subprocess.Popen(
            cmd,
            cwd=ROOT,
            env={**env, "LEADERBOARD_RUN_DIR": str(run_dir)},  # its run.json and logs stay out of a developer's
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # the gateway's line per request is on stderr
            text=True,
            start_new_session=True,
        )
        self._echo = echo
        threading.Thread(target=self._read, name="stack-output", daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))
            if not self.ready.is_set():
                if self._echo and _worth_echoing(line):
                    print(f"  stack | {line}", end="", flush=True)
                if stack_output.is_ready(line):
                    self.up = True
                    self.ready.set()
        self.ready.set()  # it exited: wait() sees that

    def wait(self) -> stack_output.StackUrls:
        if not self.ready.wait(START_TIMEOUT_SECONDS) or not self.up or self.proc.poll() is not None:
            tail = "\n".join(self.lines[-30:])
            raise SystemExit(f"the local stack did not start (exit {self.proc.poll()}):\n{tail}")
        return stack_output.parse_urls(self.lines)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)  # run_stack stops DynamoDB Local, the API and Nginx on it
            try:
                self.proc.wait(60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def _worth_echoing(line: str) -> bool:
    """The stack's start-up lines that say where things are (not its keys or its request lines)."""
    return line.startswith(("Dashboard:", "API:", "Live:", "Edge:", "DynamoDB Local:", "Requests", "Ready"))


def _size(path: str | None) -> int:
    return Path(path).stat().st_size if path and Path(path).exists() else 0


def _origin_lines(stack: Stack, urls: stack_output.StackUrls, first_line: int, log_offset: int) -> list[str]:
    """The gateway's lines for the requests it served during the load: its request log when the stack names one
    (written whether --quiet or not), else its stderr lines."""
    if urls.request_log and Path(urls.request_log).exists():
        with open(urls.request_log, encoding="utf-8") as log:
            log.seek(log_offset)
            return log.read().splitlines()
    return stack.lines[first_line:]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def seed(api_url: str, game_key: str, seeded: dict[str, int]) -> None:
    """The players ({player_id: score}) on the default board, through the bulk route with the game key."""
    ids = sorted(seeded)
    with requests.Session() as http:
        for i in range(0, len(ids), SEED_CHUNK):
            entries = [{"player_id": p, "score": seeded[p]} for p in ids[i : i + SEED_CHUNK]]
            resp = http.post(
                f"{api_url}/leaderboards/{ops.BOARD}/scores/bulk",
                json={"entries": entries},
                headers={"x-api-key": game_key},
                timeout=120,
            )
            if resp.status_code != 200:
                raise SystemExit(f"seeding: bulk answered {resp.status_code}: {resp.text[:500]}")


def run_locust(
    o: Options, base_env: dict[str, str], urls: stack_output.StackUrls, game_key: str, players_file: Path, stats: Path
) -> None:
    env = {
        **base_env,
        "LAUNCH_READS_URL": urls.reads,
        "LAUNCH_API_URL": urls.api,
        "LAUNCH_LIVE_URL": urls.live or "",
        "LAUNCH_GAME_KEY": game_key,
        "LAUNCH_PLAYERS": str(players_file),
        "LAUNCH_LIVE_USERS": str(o.live_users if urls.live else 0),
        "LAUNCH_TASK_WEIGHTS": o.task_weights,
        "LAUNCH_WAIT_SECONDS": str(o.wait_seconds),
        "LAUNCH_STATS": str(stats),
        "LAUNCH_EACH_FIRST": "1" if o.each_first else "",
    }
    cmd = [sys.executable, "-m", "locust", "-f", str(ROOT / "bench" / "launch" / "players.py"), "--headless"]
    cmd += ["--users", str(o.users), "--spawn-rate", str(o.spawn_rate), "--run-time", f"{o.seconds}s"]
    stop_seconds = 5 + (ops.FIRST_PUSH_SECONDS if o.each_first else 0)  # a user's task (or first push) ends first
    cmd += ["--stop-timeout", str(stop_seconds), "--loglevel", "WARNING"]
    if not o.progress:
        cmd.append("--only-summary")
    done = subprocess.run(cmd, cwd=ROOT, env=env, timeout=o.seconds + stop_seconds + 120)
    if not stats.exists():
        raise SystemExit(f"Locust wrote no figures (exit {done.returncode})")


def main(o: Options) -> int:
    from bench import environment

    started = time.monotonic()

    def stamp(message: str) -> None:
        print(f"[{time.monotonic() - started:3.0f} s] {message}", flush=True)

    os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")  # the props import aws_cdk
    os.environ.setdefault("JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION", "1")
    base_env = dict(os.environ)  # before costs.measure() points this process's handler code at its own engine
    rng = random.Random(1)
    seeded = {f"player-{i:05d}": rng.randint(1, 10_000) for i in range(o.players)}
    game_key = secrets.token_urlsafe(24)
    keys = {"LEADERBOARD_API_KEY": game_key, "LEADERBOARD_ADMIN_KEY": secrets.token_urlsafe(24)}
    work = Path(tempfile.mkdtemp(prefix="bench-launch-"))
    stack = Stack(base_env | keys | {"LEADERBOARD_ADMIN_PASSWORD": secrets.token_urlsafe(12)}, work / "run", o.progress)
    # While the stack starts: each operation's DynamoDB cost on an engine of its own, and the stack's defaults.
    stamp(f"Starting the stack; meanwhile the DynamoDB cost per operation ({o.samples} calls each) ...")
    background: dict = {}
    sides = [
        threading.Thread(target=_measure, args=(seeded, o.samples, background), name="bench-costs", daemon=True),
        threading.Thread(target=_read_defaults, args=(background,), name="bench-props", daemon=True),
    ]
    for side in sides:
        side.start()
    try:
        urls = stack.wait()
        stamp(f"Stack up: reads through {urls.edge or urls.api + ' (' + NO_EDGE + ')'}; submissions to {urls.api}")
        seed(urls.api, game_key, seeded)
        players_file = work / "players.json"
        players_file.write_text(json.dumps(seeded))
        for side in sides:
            side.join()  # their CPU is not taken from the stack under load
        if "error" in background:
            raise SystemExit(f"measuring the DynamoDB costs failed: {background['error']!r}")
        stamp(f"Seeded {len(seeded)} players; Locust: {o.users} users for {o.seconds} s ...")
        first_line, log_offset = len(stack.lines), _size(urls.request_log)
        run_locust(o, base_env, urls, game_key, players_file, work / "locust.json")
        origin = stack_output.count_origin_requests(_origin_lines(stack, urls, first_line, log_offset), ops.classify)
    finally:
        stack.stop()
    locust = json.loads((work / "locust.json").read_text())
    measured = background["costs"]
    operations = _operations(locust, origin, urls)
    ratio = {op: operations[op]["origin_per_edge_request"] if urls.edge else None for op in ops.READS}
    bytes_per_read = {op: operations[op].get("bytes_mean", 0) or 1024 for op in ops.READS}
    figures = {
        "command": "make bench-launch",
        "meta": environment.meta(),
        "options": {k: str(v) if isinstance(v, Path) else v for k, v in vars(o).items()},
        "stack": {"api": urls.api, "edge": urls.edge or NO_EDGE, "live": urls.live, "reads_through": urls.reads},
        "live_updates": "a WebSocket user per follower (websocket-client, AppSync Events' protocol), counting tops",
        "locust_seconds": locust["seconds"],
        "operations": operations,
        "dynamodb_per_operation": measured,
        "aws_model": aws_cost.model(measured, ratio, bytes_per_read, background["defaults"]),
        "seconds": round(time.monotonic() - started, 1),
    }
    o.json_path.parent.mkdir(parents=True, exist_ok=True)
    o.json_path.write_text(json.dumps(figures, indent=1) + "\n")
    print(summary(figures))
    stamp(f"Figures in {o.json_path}")
    return 0


def _measure(seeded: dict[str, int], samples: int, out: dict) -> None:
    try:
        out["costs"] = costs.measure(seeded, samples=samples)
    except BaseException as err:  # noqa: BLE001 - reported by the main thread
        out["error"] = err


def _read_defaults(out: dict) -> None:
    try:
        out["defaults"] = aws_cost.Defaults.from_props()
    except BaseException as err:  # noqa: BLE001
        out["error"] = err


def _operations(locust: dict, origin, urls: stack_output.StackUrls) -> dict:
    out = {}
    submitted = sum(locust["operations"].get(op, {}).get("requests", 0) for op in ops.SUBMISSIONS)
    for op in ops.ALL:
        figures = dict(locust["operations"].get(op) or {"requests": 0, "rate_per_s": 0.0, "statuses": {}})
        n = figures["requests"]
        if op in ops.READS:
            figures["origin_requests"] = origin.get(op, 0)
            figures["origin_per_edge_request"] = round(origin.get(op, 0) / n, 4) if urls.edge and n else 1.0
            figures["edge"] = "through the edge" if urls.edge else NO_EDGE
        elif op in ops.SUBMISSIONS:  # POST /scores: the origin's count is for the three kinds together
            figures["origin_requests_all_submissions"] = origin.get("submit", 0)
            figures["submissions_sent"] = submitted
            figures["origin_per_edge_request"] = 1.0
            figures["edge"] = "not through the edge (the API URL, with the game key)"
        out[op] = figures
    return out


def summary(f: dict) -> str:
    rows = [f"{'operation':22} {'rate/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'p99 ms':>8} {'origin/edge':>11}  statuses"]
    for op, x in f["operations"].items():
        lat = x.get("latency_ms", {})
        rows.append(
            f"{op:22} {x['rate_per_s']:8.1f} {lat.get('p50', 0):8.0f} {lat.get('p95', 0):8.0f} {lat.get('p99', 0):8.0f}"
            f" {x.get('origin_per_edge_request', '-')!s:>11}  {x['statuses']}"
        )
    rows.append("AWS, modelled (USD/month; first throttle):")
    for v in f["aws_model"]["volumes"]:
        for design in ("uncached", "edge"):
            first = v[design]["throttles"][0]
            rows.append(
                f"  {v['reads_per_s']:>6} reads/s {design:9} {v[design]['usd_per_month']['total']:>12,.0f}"
                f"   {first['limit']} at {first['load']:.2f}x{' THROTTLED' if first['throttled'] else ''}"
            )
    return "\n".join(rows)
