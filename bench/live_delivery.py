"""`make bench-live`: how fast a new top reaches thousands of subscribers of one board period through `make run`.

It starts `make run`'s stack (python -m local run, as bench-launch does), makes a board, reads how to follow it
from discovery (`GET /leaderboards/{board}` -> `live`), opens SUBSCRIBERS WebSocket subscribers of its all-time
channel on the AppSync Events stand-in (AWS's protocol, bench/live_subscribers.py; asyncio, in PROCESSES child
processes, arrival times on the machine's monotonic clock), then
submits a burst of scores that each take the lead (RATE a second for SECONDS) and records when every top arrives
at every subscriber. Reported:

- delay from submission to delivery: for each (subscriber, top received) the time since the submission of the
  leader that top shows (the newest submission it reflects); p50/p99/max. It includes the broadcaster's
  once-a-second coalescing (a leader submitted just after a push waits for the next one) and the wait until the
  rank index shows the batch;
- the pipeline without the coalescing: per push, the first subscriber's arrival minus the leader's submission;
  and the fan-out spread (last arrival minus first) of the same push;
- messages per subscriber per second over the burst, and the smallest gap between two messages at a subscriber;
- subscribers whose last message is not the board's final top (must be 0);
- the AWS cost model beside it (AppSync Events' list prices) and the old design's ceiling.

`measure()` runs against any stack (the smoke test gives it the integration tests' one).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import multiprocessing
import os
import secrets
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import requests

from bench.live_subscribers import Subscriber, close_all, open_subscribers
from local import ROOT

BOARD = "live-bench"
KIND = "all-time"
WRITERS = 8  # threads submitting the burst
SETTLE_SECONDS = 20  # after the burst: how long every subscriber has to get the final top

# AWS AppSync Events list prices (us-east-1; checked 2026-12-01 against AWS's price list, where an Event API
# operation is "$1 per million Event API operations", effective 2024-09-01; and the AppSync pricing page for
# connection minutes). Operations: connects, subscribes, publishes and every message delivered to a subscriber,
# metered in 5 KB increments.
USD_PER_MILLION_OPERATIONS = 1.00
USD_PER_MILLION_CONNECTION_MINUTES = 0.08
METERED_BYTES = 5 * 1024
# The old design: every PostToConnection counted against the account's API Gateway throttle (10,000 requests/s
# per region by default, shared with the REST API's own traffic; API Gateway quotas page).
API_GATEWAY_ACCOUNT_RPS = 10_000


@dataclass(frozen=True)
class Options:
    subscribers: int = 2_000
    seconds: float = 10.0  # the burst
    rate: float = 10.0  # top-changing submissions a second during the burst
    at_once: int = 100  # subscribers connecting at the same time, per process
    processes: int = 2  # subscriber processes (one Python process reading 2,000 sockets measures itself)
    json_path: Path = ROOT / "bench" / "results" / "live.json"


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(p / 100 * len(ordered)) - 1))]


def _summary(values: list[float]) -> dict:
    if not values:
        return {"count": 0}
    return {
        "count": len(values),
        "p50_s": round(_percentile(values, 50), 3),
        "p99_s": round(_percentile(values, 99), 3),
        "max_s": round(max(values), 3),
        "mean_s": round(statistics.fmean(values), 3),
    }


def _make_board(api: str, admin_key: str) -> dict:
    http = requests.Session()
    http.delete(f"{api}/leaderboards/{BOARD}", headers={"x-api-key": admin_key}, timeout=30)
    r = http.post(
        f"{api}/leaderboards", json={"board_id": BOARD, "periods": [KIND]}, headers={"x-api-key": admin_key}, timeout=30
    )
    if r.status_code != 201:
        raise SystemExit(f"creating the board answered {r.status_code}: {r.text[:300]}")
    live = http.get(f"{api}/leaderboards/{BOARD}", timeout=30).json().get("live")
    if not live:
        raise SystemExit("discovery has no live field: live updates are off on this stack")
    return {**live, "api_url": api}  # each subscriber gets a token of its own there


def _burst(api: str, game_key: str, o: Options, sent: dict[str, float]) -> int:
    """Submit o.rate top-changing scores a second for o.seconds (from a few threads, so that one slow answer on a
    busy machine does not lower the rate); records when each leader was sent."""
    scores = itertools.count(int(time.time()))
    sessions = threading.local()  # one HTTP session per writer thread
    failures: list[str] = []

    def submit(player: str, score: int) -> None:
        if not hasattr(sessions, "http"):
            sessions.http = requests.Session()
        http = sessions.http
        sent[player] = time.monotonic()
        r = http.post(
            f"{api}/leaderboards/{BOARD}/scores",
            json={"player_id": player, "score": score},
            headers={"x-api-key": game_key},
            timeout=30,
        )
        if r.status_code != 200:
            failures.append(f"{r.status_code}: {r.text[:300]}")

    started = time.monotonic()
    count = 0
    with ThreadPoolExecutor(WRITERS, thread_name_prefix="bench-live-writer") as pool:
        while (due := started + count / o.rate) < started + o.seconds:
            if (wait := due - time.monotonic()) > 0:
                time.sleep(wait)
            pool.submit(submit, f"leader-{count:05d}", next(scores))
            count += 1
    if failures:
        raise SystemExit(f"{len(failures)} submissions failed, the first: {failures[0]}")
    return count


@dataclass
class Received:
    """What one subscriber got: (arrival on time.monotonic(), the leader of the top) per data message, its last
    top's entries and the size of its largest data frame."""

    arrivals: list[tuple[float, str | None]]
    last_entries: list | None
    frame_bytes: int


def _received(subscriber: Subscriber) -> Received:
    events = subscriber.events()
    arrivals = [(at, e["entries"][0]["player_id"] if e.get("entries") else None) for at, e in events]
    frame_bytes = max((len(frame.encode()) for _, frame in subscriber.frames), default=0)
    return Received(arrivals, events[-1][1].get("entries") if events else None, frame_bytes)


def _group(live: dict, channel: str, count: int, at_once: int, commands, results) -> None:
    """A process of subscribers (time.monotonic() is the machine's clock, so arrivals compare across processes)."""

    async def main() -> None:
        subscribers = await open_subscribers(live, channel, count, at_once)
        try:
            results.put(("ready", len(subscribers)))
            final = await asyncio.to_thread(commands.get)  # the board's final top, once the burst is over
            deadline = time.monotonic() + SETTLE_SECONDS
            while time.monotonic() < deadline and not all(_received(s).last_entries == final for s in subscribers):
                await asyncio.sleep(0.25)
            results.put(("done", [_received(s) for s in subscribers]))
        finally:
            await close_all(subscribers)

    asyncio.run(main())


def _measure(api: str, admin_key: str, game_key: str, o: Options, progress) -> dict:
    live = _make_board(api, admin_key)
    channel = live["channels"][KIND]
    context = multiprocessing.get_context("spawn")
    results = context.Queue()
    groups = []
    for i in range(o.processes):
        count = o.subscribers // o.processes + (1 if i < o.subscribers % o.processes else 0)
        commands = context.Queue()
        process = context.Process(
            target=_group, args=(live, channel, count, o.at_once, commands, results), name=f"bench-live-{i}"
        )
        process.start()
        groups.append((process, commands))
    try:
        opened = time.monotonic()
        ready = sum(_answer(results, "ready", 600) for _ in groups)
        progress(
            f"{ready} subscribers of {channel} open in {time.monotonic() - opened:.1f} s ({o.processes} processes)"
        )
        time.sleep(1.5)  # nothing pending from the board's creation
        sent: dict[str, float] = {}
        burst_started = time.monotonic()
        submissions = _burst(api, game_key, o, sent)
        burst_ended = time.monotonic()
        progress(f"{submissions} top-changing submissions in {burst_ended - burst_started:.1f} s; settling ...")
        time.sleep(2.0)
        final = requests.get(f"{api}/leaderboards/{BOARD}/top?period={KIND}&limit=25", timeout=30).json()["entries"]
        for _, commands in groups:
            commands.put(final)
        received = [r for _ in groups for r in _answer(results, "done", SETTLE_SECONDS + 120)]
    finally:
        for process, _ in groups:
            process.join(30)
            if process.is_alive():
                process.kill()
    return _figures(o, live, received, sent, final, submissions, burst_started, burst_ended)


def _answer(results, kind: str, timeout: float):
    got, value = results.get(timeout=timeout)
    if got != kind:
        raise SystemExit(f"a subscriber process answered {got!r}, expected {kind!r}")
    return value


def _figures(o, live, received: list[Received], sent, final, submissions, burst_started, burst_ended) -> dict:
    delays, per_second, smallest_gaps = [], [], []
    pushes: dict[str, list[float]] = {}  # leader -> every subscriber's arrival of the top it leads
    missed = 0
    for r in received:
        arrivals = []
        for at, leader in r.arrivals:
            if leader in sent:
                delays.append(at - sent[leader])
                pushes.setdefault(leader, []).append(at)
                arrivals.append(at)
        if len(arrivals) > 1:  # its rate over the span it received pushes in
            per_second.append((len(arrivals) - 1) / max(1e-9, arrivals[-1] - arrivals[0]))
        gaps = [b - a for a, b in itertools.pairwise(arrivals)]
        if gaps:
            smallest_gaps.append(min(gaps))
        if r.last_entries != final:
            missed += 1
    first_arrivals = [min(ats) - sent[leader] for leader, ats in pushes.items()]
    spreads = [max(ats) - min(ats) for ats in pushes.values() if len(ats) > 1]
    message_bytes = max((r.frame_bytes for r in received), default=0)
    return {
        "command": "make bench-live",
        "options": {k: str(v) if isinstance(v, Path) else v for k, v in asdict(o).items()},
        "channel": live["channels"][KIND],
        "realtime_url": live["realtime_url"],
        "subscribers": len(received),
        "submissions": submissions,
        "burst_seconds": round(burst_ended - burst_started, 2),
        "pushes": len(pushes),
        "delivery_delay": _summary(delays),
        "first_subscriber_delay": _summary(first_arrivals),
        "fan_out_spread": _summary(spreads),
        "messages_per_subscriber_per_second": {
            "max": round(max(per_second, default=0), 3),
            "mean": round(statistics.fmean(per_second), 3) if per_second else 0,
        },
        "smallest_gap_between_messages_s": round(min(smallest_gaps), 3) if smallest_gaps else None,
        "missed_last_top": missed,
        "message_bytes": message_bytes,
        "aws_model": aws_model(len(received), message_bytes),
    }


def aws_model(subscribers: int, message_bytes: int) -> dict:
    """What one viewer-hour costs on AppSync Events at a push a second (a busy board's most), and how many pushes
    a second the old design's account throttle allowed for this many subscribers."""
    increments = max(1, math.ceil(message_bytes / METERED_BYTES))
    deliveries_per_hour = 3600 * increments  # one message a second, each metered in 5 KB increments
    usd_deliveries = deliveries_per_hour * USD_PER_MILLION_OPERATIONS / 1e6
    usd_connection = 60 * USD_PER_MILLION_CONNECTION_MINUTES / 1e6
    usd_connect_subscribe = 2 * USD_PER_MILLION_OPERATIONS / 1e6  # once per viewer, charged here to its first hour
    per_viewer_hour = usd_deliveries + usd_connection + usd_connect_subscribe
    return {
        "prices": {
            "usd_per_million_operations": USD_PER_MILLION_OPERATIONS,
            "usd_per_million_connection_minutes": USD_PER_MILLION_CONNECTION_MINUTES,
            "metered_bytes": METERED_BYTES,
            "checked": "2026-12-01",
        },
        "usd_per_viewer_hour_at_1_push_per_s": round(per_viewer_hour, 6),
        "usd_per_hour_for_these_subscribers": round(per_viewer_hour * subscribers, 2),
        "usd_per_hour_for_10000_viewers": round(per_viewer_hour * 10_000, 2),
        "publishes_per_hour_per_board_period": 3600,  # the broadcaster's one publish per push, whatever the audience
        "old_design_pushes_per_s_ceiling": round(API_GATEWAY_ACCOUNT_RPS / max(1, subscribers), 3),
        "old_design_note": (
            f"{API_GATEWAY_ACCOUNT_RPS} PostToConnection/s account throttle ÷ {subscribers} subscribers "
            "(shared with the REST API's traffic)"
        ),
    }


def measure(api: str, admin_key: str, game_key: str, o: Options, progress=print) -> dict:
    return _measure(api, admin_key, game_key, o, progress)


def report(figures: dict) -> str:
    d, f, s = figures["delivery_delay"], figures["first_subscriber_delay"], figures["fan_out_spread"]
    m, aws = figures["messages_per_subscriber_per_second"], figures["aws_model"]
    lines = [
        f"{figures['subscribers']} subscribers of {figures['channel']}; {figures['submissions']} top-changing "
        f"submissions in {figures['burst_seconds']} s -> {figures['pushes']} pushes",
        f"delay submission -> delivery: p50 {d.get('p50_s')} s, p99 {d.get('p99_s')} s, max {d.get('max_s')} s "
        f"({d['count']} deliveries)",
        f"  first subscriber: p50 {f.get('p50_s')} s, max {f.get('max_s')} s; fan-out spread per push: "
        f"p50 {s.get('p50_s')} s, max {s.get('max_s')} s",
        f"messages per subscriber per second: max {m['max']}, mean {m['mean']}; smallest gap "
        f"{figures['smallest_gap_between_messages_s']} s",
        f"subscribers that missed the last top: {figures['missed_last_top']}",
        f"AppSync Events: ${aws['usd_per_viewer_hour_at_1_push_per_s']} per viewer-hour at a push a second "
        f"(${aws['usd_per_hour_for_10000_viewers']} an hour for 10,000 viewers); the old design's ceiling: "
        f"{aws['old_design_pushes_per_s_ceiling']} pushes/s for {figures['subscribers']} subscribers",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from bench import environment
    from bench.launch.runner import Stack

    d = Options()
    p = argparse.ArgumentParser(prog="python -m bench.live_delivery", description=__doc__.split("\n\n")[0])
    p.add_argument("--subscribers", type=int, default=d.subscribers, help=f"WebSocket subscribers ({d.subscribers})")
    p.add_argument("--seconds", type=float, default=d.seconds, help=f"length of the burst ({d.seconds})")
    p.add_argument("--rate", type=float, default=d.rate, help=f"top-changing submissions a second ({d.rate})")
    p.add_argument("--processes", type=int, default=d.processes, help=f"subscriber processes ({d.processes})")
    p.add_argument("--json", type=Path, default=d.json_path, dest="json_path")
    a = p.parse_args(argv)
    if a.subscribers < 1 or a.seconds <= 0 or a.rate <= 0 or not 1 <= a.processes <= a.subscribers:
        p.error("--subscribers, --seconds and --rate must be positive, --processes 1 to --subscribers")
    o = Options(a.subscribers, a.seconds, a.rate, d.at_once, a.processes, a.json_path)
    started = time.monotonic()

    def stamp(message: str) -> None:
        print(f"[{time.monotonic() - started:3.0f} s] {message}", flush=True)

    game_key, admin_key = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    keys = {"LEADERBOARD_API_KEY": game_key, "LEADERBOARD_ADMIN_KEY": admin_key}
    work = Path(tempfile.mkdtemp(prefix="bench-live-"))
    stamp("Starting the stack (python -m local run) ...")
    stack = Stack(dict(os.environ) | keys | {"LEADERBOARD_ADMIN_PASSWORD": secrets.token_urlsafe(12)}, work, True)
    try:
        urls = stack.wait()
        stamp(f"Stack up: API {urls.api}, live {urls.live}")
        figures = measure(urls.api, admin_key, game_key, o, stamp)
    finally:
        stack.stop()
    figures["meta"] = environment.meta()
    figures["stack"] = {"api": urls.api, "live": urls.live}
    o.json_path.parent.mkdir(parents=True, exist_ok=True)
    o.json_path.write_text(json.dumps(figures, indent=1) + "\n")
    print(report(figures))
    print(f"JSON: {o.json_path}")
    return 0 if figures["missed_last_top"] == 0 else 1


if __name__ == "__main__":
    threading.current_thread().name = "bench-live"
    sys.exit(main())
