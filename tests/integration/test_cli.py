"""`python -m local run` (what `make run` starts): URLs printed, API and dashboard answer,
`seed` loads players, and Ctrl-C or SIGTERM leave no process behind."""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from local import ROOT, seed
from local.dynamodb_local import free_port

START_TIMEOUT = 120  # s; a fresh clone should come up within 90 s
SEEDED = seed.CHUNK + 50  # `local seed` players: two /simulate requests


def _descendants(pid: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.add(child)
            todo.append(child)
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _read_until(proc: subprocess.Popen, marker: str) -> list[str]:
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in proc.stdout], daemon=True).start()
    seen = []
    while not any(marker in line for line in seen):
        try:
            seen.append(lines.get(timeout=START_TIMEOUT))
        except queue.Empty:
            pytest.fail(f"no {marker!r} within {START_TIMEOUT}s:\n{''.join(seen)}")
    return seen


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_run_serves_everything_and_stops_everything(tmp_path):
    """One full run stopped with Ctrl-C, then a second start on the same ports stopped with SIGTERM: each signal
    leaves no process behind (the full flow once: seeding and the edge do not depend on the signal)."""
    port, api_port, edge_port, live_port = free_port(), free_port(), free_port(), free_port()
    env = {
        **os.environ,
        "PORT": str(port),
        "API_PORT": str(api_port),
        "EDGE_PORT": str(edge_port),
        "LIVE_PORT": str(live_port),
        "LEADERBOARD_RUN_DIR": str(tmp_path),
        "LEADERBOARD_API_KEY": "cli-test-game-key-000001",
        "LEADERBOARD_ADMIN_KEY": "cli-test-admin-key-00001",
        "LEADERBOARD_ADMIN_PASSWORD": "cli-test-password",
    }
    proc = _start(env)
    try:
        out = "".join(_read_until(proc, "Ctrl-C stops everything"))
        dashboard, api = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{api_port}"
        assert f"Dashboard: {dashboard}/\n" in out and f"API: {api}\n" in out
        assert "\nAPI key (x-api-key): cli-test-game-key-000001" in out
        assert "\nAdmin key (x-api-key): cli-test-admin-key-00001" in out
        # Live updates: the AppSync Events stand-in's realtime endpoint, the one discovery hands out
        live_line = re.search(r"^Live: (ws://127\.0\.0\.1:\d+/event/realtime)$", out, re.MULTILINE)
        assert live_line and live_line[1] == f"ws://127.0.0.1:{live_port}/event/realtime", out
        assert requests.get(f"{api}/leaderboards/global", timeout=10).json()["live"]["realtime_url"] == live_line[1]
        # Each key opens its own routes only: the other class's key is refused with 403, naming the one needed.
        game_key = {"x-api-key": "cli-test-game-key-000001"}
        refused = requests.post(f"{api}/simulate", json={"players": 1}, headers=game_key, timeout=10)
        assert refused.status_code == 403 and "admin key" in refused.json()["error"]

        # Demo data, read directly and through the dashboard's proxy.
        top = requests.get(f"{api}/leaderboard", timeout=10).json()["entries"]
        assert len(top) == 10
        assert requests.get(f"{dashboard}/api/leaderboard", timeout=10).json()["entries"] == top
        if shutil.which("nginx"):  # the edge: the API's paths, cached
            edge = f"http://127.0.0.1:{edge_port}"
            assert f"Edge: {edge}\n" in out
            assert requests.get(f"{edge}/leaderboard", timeout=10).json()["entries"] == top
        assert requests.get(f"{dashboard}/config.json", timeout=10).status_code == 200
        assert requests.get(f"{api}/snapshots", timeout=10).json()["snapshots"]
        # The admin proxy adds the key; without the password it answers 401.
        assert requests.post(f"{dashboard}/admin-api/simulate", json={"players": 2}, timeout=30).status_code == 401
        admin = requests.post(
            f"{dashboard}/admin-api/simulate", json={"players": 2}, timeout=30, auth=("admin", "cli-test-password")
        )
        assert admin.status_code == 200, admin.text
        # A curl-style submission with the key.
        mine = requests.post(
            f"{api}/scores",
            json={"player_id": "cli", "score": 10**9},
            headers={"x-api-key": "cli-test-game-key-000001"},
            timeout=10,
        )
        assert mine.status_code == 200

        seeded = subprocess.run(
            [sys.executable, "-m", "local", "seed", "--players", str(SEEDED)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert seeded.returncode == 0, seeded.stderr
        # Totals follow writes once the stream consumer has counted them: within seconds.
        deadline = time.monotonic() + 30
        while True:
            board = requests.get(f"{api}/player", params={"player_id": "cli"}, timeout=30).json()["boards"][0]
            if board["total_players"] >= SEEDED + 40 + 2 + 1 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert board["rank"] == 1 and board["total_players"] >= SEEDED + 40 + 2 + 1

        children = _descendants(proc.pid)
        commands = " ".join(_command(p) for p in children)
        assert "DynamoDBLocal.jar" in commands
        assert ("nginx" in commands) == bool(shutil.which("nginx")), commands
        # The server closes this connection first: its socket stays in TIME_WAIT for a minute.
        requests.get(f"{api}/leaderboard", headers={"Connection": "close"}, timeout=10)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(30) == 0
        assert [p for p in children if _alive(p)] == []
        assert not (tmp_path / "run.json").exists()
        # Started again at once, on the same ports; SIGTERM (what systemd and CI send) stops everything too.
        proc = _start(env, "--no-seed")
        out = "".join(_read_until(proc, "Ctrl-C stops everything"))
        assert f"API: {api}\n" in out
        assert requests.get(f"{api}/leaderboard", timeout=10).json()["entries"] == []
        children = _descendants(proc.pid)
        commands = " ".join(_command(p) for p in children)
        assert "DynamoDBLocal.jar" in commands
        assert ("nginx" in commands) == bool(shutil.which("nginx")), commands
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
        assert [p for p in children if _alive(p)] == []
        assert not (tmp_path / "run.json").exists()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _start(env: dict, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "local", "run", "--quiet", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
