"""`python -m local run`: the whole stack in the foreground until Ctrl-C or SIGTERM."""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import signal
import sys
import time
from pathlib import Path

import requests

from local import dashboard, edge, run_dir
from local.backend import Backend
from local.dynamodb_local import port_is_free
from local.seed import simulate, state_file

DEMO_PLAYERS = 40


class _Stop(Exception):
    pass


# Every viewer of a local stack (browsers, the e2e tests, the SDKs' tests) comes from 127.0.0.1: one client to the live
# token budget (live_access.client_of), which on AWS tells viewers apart by their addresses.
LOCAL_LIVE_TOKENS_PER_CLIENT = 600


def _raise_stop(signum, frame) -> None:
    raise _Stop(signal.Signals(signum).name)


def run_stack(
    port: int,
    api_port: int,
    persist: Path | None,
    seed: bool = True,
    quiet: bool = False,
    edge_port: int = 3002,
    live_port: int = 3003,
    throttle: bool = False,
) -> None:
    # Signals become an exception, so a stop during start-up cleans up too.
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, _raise_stop)
    started = time.monotonic()
    lock = _claim_run_dir(run_dir())  # held until the stack stops
    for name, wanted, hint in (
        ("dashboard", port, "PORT=NNNN or --port"),
        ("API", api_port, "API_PORT=NNNN"),
        ("edge", edge_port, "EDGE_PORT=NNNN"),
        ("live", live_port, "LIVE_PORT=NNNN"),
    ):
        if not port_is_free(wanted):
            raise SystemExit(f"{name} port {wanted} is in use (another `make run`?): choose one with {hint}")
    api_key = os.environ.get("LEADERBOARD_API_KEY") or secrets.token_urlsafe(24)
    admin_key = os.environ.get("LEADERBOARD_ADMIN_KEY") or secrets.token_urlsafe(24)
    admin_password = os.environ.get("LEADERBOARD_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
    backend = Backend(
        api_key=api_key,
        admin_key=admin_key,
        api_port=api_port,
        persist_dir=persist,
        quiet=quiet,
        live_port=live_port,
        throttle=throttle,
        live_tokens_per_client=LOCAL_LIVE_TOKENS_PER_CLIENT,
    )
    try:
        backend.start()
        # The public reads' cache in front of the API, as CloudFront is on AWS (EdgeUrl). First: the dashboard's
        # /api/ reads through it, as on EC2.
        edge_url = "none (the edge needs nginx: `apt-get install nginx`)"
        reads_through = None
        if edge.nginx_binary():
            edge_url = reads_through = edge.start(backend.procs, backend.run_dir / "edge", edge_port, backend.api_url)
        served_by = dashboard.start(
            backend.procs,
            backend.run_dir,
            port,
            backend.api_url,
            admin_key,
            admin_password,
            edge_url=reads_through,
            live_url=backend.live_url,
        )
        if seed:
            _seed_demo(backend.api_url, admin_key)
        _write_state(port, backend, api_key, admin_key, edge_url)
        print(f"\nDashboard: http://127.0.0.1:{port}/", flush=True)
        print(f"API: {backend.api_url}")
        print(f"Edge: {edge_url}")
        print(f"Live: {backend.live_url}")
        _print_details(backend, served_by, api_key, admin_key, admin_password, persist, started)
        while True:
            time.sleep(1)
            _check_alive(backend)
    except _Stop as stop:
        print(f"\n{stop}: stopping ...", file=sys.stderr)
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the cleanup short
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        backend.stop()
        _remove_state()
        lock.close()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        print("Stopped: DynamoDB Local, the API and the dashboard are down.", file=sys.stderr)


def _claim_run_dir(directory: Path):
    """An exclusive lock on the run directory (its logs, nginx files and run.json are one stack's), or SystemExit
    naming LEADERBOARD_RUN_DIR: two stacks in one directory overwrite each other's files, and the second used to stop
    with "edge exited unexpectedly". The kernel releases the lock when the process ends, however it ends."""
    directory.mkdir(parents=True, exist_ok=True)
    handle = open(directory / "run.lock", "a+")  # kept open: closing it releases the lock
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip()
        handle.close()
        who = f"another `make run` (pid {holder})" if holder else "another `make run`"
        raise SystemExit(
            f"{who} is using the run directory {directory}: stop it, or give this one "
            "a directory of its own with LEADERBOARD_RUN_DIR=<dir> (and ports of its own: PORT, API_PORT, EDGE_PORT, "
            "LIVE_PORT)"
        ) from None
    handle.truncate(0)
    handle.write(str(os.getpid()))
    handle.flush()
    return handle


def _seed_demo(api_url: str, admin_key: str) -> None:
    """A little demo data through the real simulator handler, and one snapshot to list."""
    simulate(api_url, admin_key, DEMO_PLAYERS, progress=False)
    requests.post(f"{api_url}/snapshot", json={}, headers={"x-api-key": admin_key}, timeout=30).raise_for_status()


def _print_details(backend, served_by, api_key, admin_key, admin_password, persist, started) -> None:
    generated = [
        name
        for name in ("LEADERBOARD_API_KEY", "LEADERBOARD_ADMIN_KEY", "LEADERBOARD_ADMIN_PASSWORD")
        if not os.environ.get(name)
    ]
    print(f"API key (x-api-key): {api_key}   (game servers: score submissions)")
    print(f"Admin key (x-api-key): {admin_key}   (boards, snapshots, the simulator)")
    print(f"Dashboard admin: user admin, password {admin_password}")
    print(
        f"Live subscribers: a token from GET /leaderboards/{{board}}/scores (AppSync Events stand-in, Lambda "
        f"authorizer; publishing: SigV4 to {backend.live.http_url}/event; GET /leaderboards/{{board}} says how)"
    )
    if generated:
        print(f"  (generated for this run; set {' / '.join(generated)} to choose them)")
    print(f"DynamoDB Local: {backend.ddb_endpoint} ({'data in ' + str(persist) if persist else 'in memory'})")
    print(f"Dashboard served by {served_by}")
    print(f"Requests that reach the API (past the edge's cache): {backend.request_log}")
    print(
        f"Try: curl -s -X POST {backend.api_url}/scores -H 'x-api-key: {api_key}' "
        '-H \'Content-Type: application/json\' -d \'{"player_id": "me", "score": 1234}\''
    )
    print(f"Ready in {time.monotonic() - started:.0f} s. Ctrl-C stops everything.", flush=True)


def _check_alive(backend: Backend) -> None:
    for name, proc in backend.procs.running():
        if proc.poll() is not None:  # a failure: stop the rest and exit non-zero
            raise SystemExit(f"{name} exited unexpectedly with {proc.returncode}; stopping the stack")


def _write_state(port: int, backend: Backend, api_key: str, admin_key: str, edge_url: str) -> None:
    state = {
        "pid": os.getpid(),
        "dashboard": f"http://127.0.0.1:{port}/",
        "api": backend.api_url,
        "edge": edge_url,
        "live": backend.live_url,
        "live_http": backend.live.http_url,
        "live_api_key": backend.live_api_key,
        "api_key": api_key,
        "admin_key": admin_key,
        "dynamodb": backend.ddb_endpoint,
    }
    path = state_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it holds the API keys
    with os.fdopen(fd, "w") as f:
        json.dump(state, f, indent=1)


def _remove_state() -> None:
    try:
        if json.loads(state_file().read_text()).get("pid") == os.getpid():
            state_file().unlink()
    except (FileNotFoundError, ValueError):
        pass
