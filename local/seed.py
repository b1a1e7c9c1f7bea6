"""Simulated players into a running local stack, through its API's /simulate."""

from __future__ import annotations

import json
from pathlib import Path

import requests
from tqdm import tqdm

from local import run_dir

# /simulate takes up to 1,000 players per request; smaller requests stay far inside API Gateway's 29 s,
# which the local gateway enforces too (DynamoDB Local is much slower than DynamoDB).
CHUNK = 250


def state_file() -> Path:
    return run_dir() / "run.json"


def read_state() -> dict:
    try:
        return json.loads(state_file().read_text())
    except FileNotFoundError:
        raise SystemExit("no local stack is running (start one with `make run`)") from None


def simulate(api_url: str, admin_key: str, players: int, progress: bool = True) -> int:
    """POST /simulate in chunks of at most CHUNK players; returns the number of writes."""
    writes = 0
    with requests.Session() as http, tqdm(total=players, unit="player", disable=not progress) as bar:
        left = players
        while left > 0:
            n = min(left, CHUNK)
            resp = http.post(f"{api_url}/simulate", json={"players": n}, headers={"x-api-key": admin_key}, timeout=120)
            if resp.status_code != 200:
                raise SystemExit(f"/simulate answered {resp.status_code}: {resp.text}")
            writes += resp.json()["writes"]
            left -= n
            bar.update(n)
    return writes


def main(players: int) -> None:
    state = read_state()
    try:
        writes = simulate(state["api"], state["admin_key"], players)  # the simulator is an admin route
    except requests.ConnectionError:
        raise SystemExit(f"the local API at {state['api']} does not answer: is `make run` still running?") from None
    print(f"Seeded {players} players ({writes} board entries) into {state['api']}")
