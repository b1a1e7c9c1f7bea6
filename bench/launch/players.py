"""The Locust users of `make bench-launch` (a locustfile: `locust -f bench/launch/players.py`).

- Player: reads the default board's top 25 and its own rank through the edge (public, no key), and submits scores
  to POST /scores with the game key on the API URL: mostly not improving its best, some improving, a few from a
  player the board has never seen (in turn across the run, per 20: 1 new, 3 improving, 16 not). Task weights 6:3:1 make
  submissions about 10% of all requests.
- LiveFollower: one WebSocket connection to the AppSync Events endpoint discovery names, subscribed (AWS's
  protocol) to the default board's all-time channel; counts the tops it receives (a real WebSocket user).

Configured by environment variables (the harness, bench/launch/runner.py, sets them): LAUNCH_READS_URL,
LAUNCH_API_URL, LAUNCH_LIVE_URL, LAUNCH_GAME_KEY, LAUNCH_PLAYERS (a JSON file {player_id: best score}),
LAUNCH_LIVE_USERS, LAUNCH_TASK_WEIGHTS, LAUNCH_WAIT_SECONDS, LAUNCH_STATS (where the figures go when Locust quits),
LAUNCH_EACH_FIRST (non-empty: each Player calls each task once on start, and each follower submits a new leader once
subscribed and waits for its top, so that a run of seconds has every operation).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import time
import uuid
from collections import Counter, defaultdict

import requests
import websocket  # websocket-client: blocking sockets, which gevent (Locust) makes cooperative
from locust import HttpUser, User, between, events, task

from bench.launch.operations import (
    BOARD,
    FIRST_PUSH_SECONDS,
    LIVE_PUSH,
    LIVE_SUBSCRIBE,
    READ_RANK,
    READ_TOP,
    SUBMIT_IMPROVING,
    SUBMIT_NEW,
    SUBMIT_NOT_IMPROVING,
    TOP_PATH,
    TOP_QUERY,
    rank_path,
)
from bench.live_subscribers import SUBPROTOCOL, auth_subprotocol, token_auth

_env = os.environ.get
_players: dict[str, int] = json.loads(open(_env("LAUNCH_PLAYERS")).read()) if _env("LAUNCH_PLAYERS") else {}
# Task weights top, own rank, submit (default 6,3,1: submissions are 10% of requests) and the longest think time.
_weights = [int(w) for w in _env("LAUNCH_TASK_WEIGHTS", "6,3,1").split(",")]
_wait = float(_env("LAUNCH_WAIT_SECONDS", "1.5"))
_each_first = bool(_env("LAUNCH_EACH_FIRST"))
# The run's submissions, in turn across all Players: per 20, 1 new player, 3 improving, 16 not improving (5%, 15%,
# 80%); the first two are a new player and an improvement, so that even a run of seconds has each kind.
_SUBMISSIONS = itertools.cycle(["new", "up", *["same"] * 5, "up", *["same"] * 5, "up", *["same"] * 5])
_pool = itertools.cycle(sorted(_players))  # each Player takes the next seeded player as its own
statuses: dict[str, Counter] = defaultdict(Counter)  # operation -> status (or exception name) -> count
improved: Counter = Counter()  # operation -> answers whose boards say the score improved something


@events.request.add_listener
def _count_status(request_type, name, response_time, response_length, response=None, exception=None, **kw):
    status = getattr(response, "status_code", None)
    statuses[name][str(status) if status else type(exception).__name__ if exception else "ok"] += 1


class Player(HttpUser):
    host = _env("LAUNCH_READS_URL", "http://127.0.0.1:3001")
    weight = 1
    wait_time = between(_wait / 3, _wait)

    def on_start(self) -> None:
        self.api = _env("LAUNCH_API_URL", self.host)
        self.headers = {"x-api-key": _env("LAUNCH_GAME_KEY", ""), "Content-Type": "application/json"}
        self.player_id = next(_pool, None) or f"player-{uuid.uuid4().hex[:12]}"
        self.best = _players.get(self.player_id, 0)
        if _each_first:  # the run's first submissions are a new player, an improvement, then one that is not
            self.read_top()
            self.read_rank()
            self.submit()

    @task(_weights[0])
    def read_top(self) -> None:
        self._get(f"{TOP_PATH}?{TOP_QUERY}", READ_TOP)

    @task(_weights[1])
    def read_rank(self) -> None:
        self._get(f"{rank_path(self.player_id)}?window=0", READ_RANK)

    @task(_weights[2])
    def submit(self) -> None:
        kind = next(_SUBMISSIONS)  # one greenlet at a time: no lock needed
        if kind == "new":  # a player the board has never seen
            self._submit(f"new-{uuid.uuid4().hex[:12]}", random.randint(0, 10_000), SUBMIT_NEW)
        elif kind == "up" or self.best <= 0:  # a new best (some reach the top 25: the live followers see it)
            self.best += random.randint(1, 2_000)
            self._submit(self.player_id, self.best, SUBMIT_IMPROVING)
        else:  # the common case: a game that does not beat the player's best
            self._submit(self.player_id, random.randint(0, self.best - 1), SUBMIT_NOT_IMPROVING)

    def _get(self, path: str, name: str) -> None:
        with self.client.get(path, name=name, catch_response=True) as resp:
            if resp.status_code != 200:
                resp.failure(f"{resp.status_code}")

    def _submit(self, player_id: str, score: int, name: str) -> None:
        body = {"player_id": player_id, "score": score}
        with self.client.post(
            f"{self.api}/scores", json=body, headers=self.headers, name=name, catch_response=True
        ) as resp:
            if resp.status_code != 200:
                resp.failure(f"{resp.status_code}")
            elif any(b.get("improved") for b in resp.json().get("boards", [])):
                improved[name] += 1


class LiveFollower(User):
    """Subscribes once, then counts pushes; a push's "response time" is the gap since the previous message."""

    fixed_count = int(_env("LAUNCH_LIVE_USERS", "2"))
    wait_time = between(0, 0)

    def on_start(self) -> None:
        started = time.perf_counter()
        try:
            # What discovery says (GET /leaderboards/{board} -> live), a token from its token_path, then AppSync
            # Events' protocol: the subprotocols, connection_init -> connection_ack, subscribe -> subscribe_success
            api = _env("LAUNCH_API_URL")
            live = requests.get(f"{api}/leaderboards/{BOARD}", timeout=10).json()["live"]
            auth = token_auth({**live, "api_url": api})  # a live subscribe token of its own
            self.ws = websocket.create_connection(
                live["realtime_url"], timeout=10, subprotocols=[SUBPROTOCOL, auth_subprotocol(auth)]
            )
            self.ws.send(json.dumps({"type": "connection_init"}))
            self._expect("connection_ack")
            self.subscription = str(uuid.uuid4())
            channel = live["channels"]["all-time"]
            self.ws.send(
                json.dumps({"type": "subscribe", "id": self.subscription, "channel": channel, "authorization": auth})
            )
            self._expect("subscribe_success")
            self._fire(LIVE_SUBSCRIBE, started)
        except Exception as err:  # noqa: BLE001 - any failure is this operation's error, counted by name
            self._fire(LIVE_SUBSCRIBE, started, err)
            self.ws = None
        self.last = time.perf_counter()
        if _each_first and self.ws is not None:
            self._first_push()

    def _first_push(self) -> None:
        """A new leader (above every seeded player: the top surely changes), and the top it makes, pushed."""
        leader = {"player_id": f"live-{uuid.uuid4().hex[:12]}", "score": max(_players.values(), default=0) + 1}
        headers = {"x-api-key": _env("LAUNCH_GAME_KEY", "")}
        requests.post(f"{_env('LAUNCH_API_URL')}/scores", json=leader, headers=headers, timeout=30).raise_for_status()
        try:
            self.ws.settimeout(FIRST_PUSH_SECONDS)
            self._next_top()
        except Exception as err:  # noqa: BLE001 - no push in time is this operation's error
            self._fire(LIVE_PUSH, self.last, err)
            self.ws = None
            return
        self._fire(LIVE_PUSH, self.last)
        self.last = time.perf_counter()

    @task
    def follow(self) -> None:
        if self.ws is None:
            time.sleep(1)
            return
        try:
            self.ws.settimeout(2)
            self._next_top()
        except websocket.WebSocketTimeoutException:
            return  # no change of the top in 2 s: nothing to count
        except Exception as err:  # noqa: BLE001
            self._fire(LIVE_PUSH, self.last, err)
            self.ws = None
            return
        self._fire(LIVE_PUSH, self.last)
        self.last = time.perf_counter()

    def on_stop(self) -> None:
        if self.ws is not None:
            self.ws.close()

    def _next_top(self) -> None:
        """The next top published to the channel (AppSync's data message carries it as a JSON string)."""
        while True:
            message = json.loads(self.ws.recv())
            if message.get("type") == "data" and json.loads(message["event"]).get("type") == "top":
                return

    def _expect(self, kind: str) -> None:
        message = json.loads(self.ws.recv())
        if message.get("type") != kind:
            raise RuntimeError(f"expected {kind}, got {message}")

    def _fire(self, name: str, since: float, err: Exception | None = None) -> None:
        self.environment.events.request.fire(
            request_type="WS",
            name=name,
            response_time=(time.perf_counter() - since) * 1000,
            response_length=0,
            exception=err,
            context={},
        )


@events.quitting.add_listener
def _write_stats(environment, **kw) -> None:
    """Locust's own figures per operation, with statuses, for the harness to merge (the path in LAUNCH_STATS)."""
    path = _env("LAUNCH_STATS")
    if not path:
        return
    total = environment.stats.total
    seconds = max(1e-9, (total.last_request_timestamp or time.time()) - total.start_time)
    out = {"seconds": round(seconds, 2), "operations": {}}
    for (name, method), s in environment.stats.entries.items():
        out["operations"][name] = {
            "method": method,
            "requests": s.num_requests,
            "failures": s.num_failures,
            "rate_per_s": round(s.num_requests / seconds, 2),
            "latency_ms": {
                f"p{int(q * 100)}": round(s.get_response_time_percentile(q) or 0, 1) for q in (0.5, 0.95, 0.99)
            },
            "bytes_mean": round(s.avg_content_length, 1),
            "statuses": dict(statuses.get(name, {})),
            "improved_answers": improved.get(name, 0),
        }
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
