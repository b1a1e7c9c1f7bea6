"""`make bench-load`: one board under launch-day load, the handlers beside the original algorithm.

Many writer threads call POST /scores on the default board (three periods) for players drawn from a pool,
against DynamoDB Local, with bench/aws_model.py injecting what DynamoDB does on AWS and Local does not
(item-level transaction conflicts with a commit time, per-partition-key throughput). The handlers run in-process
exactly as the local gateway calls them, and the rank-counter function runs beside them on the table's stream,
as Lambda would. The original algorithm (per period: GetItem, then PutItem of the better score) runs on its own
client under the same model and load, on fresh tables.

Reported per run: successful submissions/s, failed submissions by status, retries (cancelled transactions,
refused conditional writes, throttled requests boto3 retried), p50/p99 latency, DynamoDB requests and write
units per submission, and for the handlers the rank counters' lag (how old the newest record was when counted,
and how long the counters took to catch up once the writers stopped).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

import bench  # noqa: F401  (puts lambda_src on sys.path)
from bench import ROOT, environment
from bench.aws_model import AwsModel
from bench.load import synthetic_score
from bench.measure import nearest_rank
from bench.metering import CONSUMER_THREADS, ThreadMeter, Usage, attach

WRITER_PREFIX = "load-writer"


def original_submit(client, table: str) -> Callable[[str, str, int], int]:
    """The original design's POST /scores: for each period, GetItem, then PutItem of max(new, stored)."""
    from datetime import UTC, datetime

    from cdk_leaderboard_lambda.domain import boards, periods, score_writes
    from cdk_leaderboard_lambda.shared.clock import ms
    from local import invocation

    board = boards.DEFAULT_BOARD

    def submit(player_id: str, name: str, score: int) -> int:
        now = datetime.now(UTC)
        for period in periods.current(now, board.periods):
            entry = score_writes.make_entry(
                board,
                period,
                player_id,
                name,
                score,
                ms(now),
                None,
                retention_days=invocation.settings().period_retention_days,
            )
            key = {"player_id": {"S": player_id}, "leaderboard_id": {"S": entry.leaderboard_id}}
            stored = client.get_item(TableName=table, Key=key).get("Item")
            if stored and int(stored["score"]["N"]) >= score:
                continue
            item = {**key, **{k: _attr(v) for k, v in entry.attributes().items() if v is not None}}
            client.put_item(TableName=table, Item=item)
        return 200

    return submit


def _attr(value: Any) -> dict:
    return {"N": str(value)} if isinstance(value, int) else {"S": str(value)}


def _handler_submit() -> Callable[[str, str, int], int]:
    from bench.api import HandlerApi

    api = HandlerApi()

    def submit(player_id: str, name: str, score: int) -> int:
        return api.call("POST", "/scores", body={"player_id": player_id, "player_name": name, "score": score}).status

    return submit


def budgets(env: environment.BenchEnvironment, model: AwsModel) -> dict[str, Any]:
    """The write path's budgets, measured once on fresh tables: an improving POST /scores on the default board
    (requests, write units by the documented rates), a top-N page read (requests), and a 500-entry bulk on a
    three-period board (requests, and time on the latency model: the handler's CPU time plus modelled latencies)."""
    from bench.api import HandlerApi
    from local import invocation
    from local.tables import reset_tables

    reset_tables(env.client, env.specs)
    api, meter = HandlerApi(), ThreadMeter(but=CONSUMER_THREADS)
    attach(invocation.runtime().dynamodb, meter)
    out: dict[str, Any] = {}
    api.call("POST", "/scores", body={"player_id": "budget", "score": 100})
    meter.reset()
    api.call("POST", "/scores", body={"player_id": "budget", "score": 200})
    u = meter.take()
    out["improving_post_scores"] = {
        "requests": u.requests,
        "write_units": u.write_units,
        "by_operation": u.by_operation,
    }
    api.call("POST", "/leaderboards", body={"board_id": "bulky", "periods": ["all-time", "daily", "weekly"]})
    api.call("GET", "/leaderboards/bulky/top", query={"limit": 25})
    meter.reset()
    api.call("GET", "/leaderboards/bulky/top", query={"limit": 25})
    out["top_25_requests"] = meter.take().requests
    entries = [{"player_id": f"b{i:04d}", "score": i} for i in range(500)]
    model.modelled_seconds(reset=True)
    cpu = time.thread_time()
    resp = api.call("POST", "/leaderboards/bulky/scores/bulk", body={"entries": entries})
    seconds = time.thread_time() - cpu + model.modelled_seconds()
    u = meter.take()
    out["bulk_500_three_periods"] = {
        "status": resp.status,
        "requests": u.requests,
        "write_units": u.write_units,
        "seconds_on_latency_model": round(seconds, 2),
        "by_operation": u.by_operation,
    }
    return out


def run_once(
    kind: str, writers: int, seconds: float, pool: int, seed: int, env: environment.BenchEnvironment, model: AwsModel
) -> dict[str, Any]:
    from cdk_leaderboard_lambda.domain.simulation import random_name
    from local import invocation
    from local.tables import reset_tables

    reset_tables(env.client, env.specs)
    model.__init__(model.commit_seconds * 1000, model.throughput)  # fresh conflict state and buckets
    writer_meter = ThreadMeter(only=(WRITER_PREFIX,))
    if kind == "handlers":
        client = invocation.runtime().dynamodb
        submit = _handler_submit()
        consumer = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "bench.consumer_process",
                env.endpoint,
                str(model.commit_seconds * 1000),
                "1" if model.throughput else "0",
            ],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        if consumer.stdout.readline().strip() != "ready":
            raise SystemExit("the stream consumer process did not start")
    else:
        client = env.new_client()
        model.attach(client)
        submit = original_submit(client, env.scores_table)
        consumer = None
    attach(client, writer_meter)

    rng = random.Random(seed)
    names = {f"p{i:05d}": random_name(rng) for i in range(pool)}
    players = list(names)
    stop = threading.Event()
    outcomes: list[tuple[int, float]] = []
    lock = threading.Lock()

    def writer(i: int) -> None:
        threading.current_thread().name = f"{WRITER_PREFIX}-{i}"
        r = random.Random(seed * 1000 + i)
        while not stop.is_set():
            player = r.choice(players)
            started = time.perf_counter()
            try:
                status = submit(player, names[player], synthetic_score(r))
            except Exception as err:  # noqa: BLE001 - a failed submission is a result here
                status = 599
                print(f"{kind} writer: {type(err).__name__}: {err}", file=sys.stderr)
            with lock:
                outcomes.append((status, time.perf_counter() - started))

    writer_meter.reset()
    started = time.monotonic()
    with ThreadPoolExecutor(max_workers=writers) as threads:
        for i in range(writers):
            threads.submit(invocation.carried(writer), i)  # the benchmark's runtime, in each writer thread
        time.sleep(seconds)
        stop.set()
    elapsed = time.monotonic() - started
    usage: Usage = writer_meter.take()
    result: dict[str, Any] = _summary(outcomes, elapsed, usage)
    result["model"] = {k: v for k, v in asdict(model.stats).items() if k != "hottest"}
    result["retries"]["throttled_and_retried_by_boto3"] = model.stats.throttled
    result["hottest_write_keys"] = model.hottest_keys()
    if consumer is not None:
        consumer.stdin.write("settle\n")
        consumer.stdin.flush()
        counted = json.loads(consumer.stdout.readline())
        consumer.wait(timeout=60)
        n = max(result["ok"], 1)
        result["counters"] = {
            "catch_up_seconds_after_writers_stopped": counted["catch_up_seconds"],
            "oldest_record_counted_seconds": counted["oldest_record_counted_seconds"],
            "requests_per_submission": round(counted["requests"] / n, 2),
            "read_units_per_submission": round(counted["read_units"] / n, 2),
            "write_units_per_submission": round(counted["write_units"] / n, 2),
        }
    return result


def _usage_per(usage: Usage, n: int) -> dict[str, float]:
    n = max(n, 1)
    return {
        "requests_per_submission": round(usage.requests / n, 2),
        "read_units_per_submission": round(usage.read_units / n, 2),
        "write_units_per_submission": round(usage.write_units / n, 2),
    }


def _summary(outcomes: list[tuple[int, float]], elapsed: float, usage: Usage) -> dict[str, Any]:
    ok = [s for status, s in outcomes if status == 200]
    failed = Counter(str(status) for status, _ in outcomes if status != 200)
    ms = [s * 1000 for _, s in outcomes] or [0.0]
    return {
        "seconds": round(elapsed, 1),
        "ok": len(ok),
        "submissions_per_second": round(len(ok) / elapsed, 1),
        "failed": dict(failed),
        "p50_ms": round(nearest_rank(ms, 0.5), 1),
        "p99_ms": round(nearest_rank(ms, 0.99), 1),
        "retries": {
            # cancelled transactions and failed conditions (a keep-best write that is not better is one too)
            "refused_writes": usage.refused,
        },
        **_usage_per(usage, len(ok)),
        "requests_by_operation_per_submission": {
            k: round(v / max(len(ok), 1), 2) for k, v in usage.by_operation.items()
        },
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.write_load", description=__doc__.split("\n\n")[0])
    p.add_argument("--writers", type=int, nargs="+", default=[32, 64], help="writer threads per run (default 32 64)")
    p.add_argument("--seconds", type=float, default=30.0, help="length of each run (default 30)")
    p.add_argument("--commit-ms", type=float, default=20.0, help="modelled transaction commit time (default 20)")
    p.add_argument("--pool", type=int, default=5000, help="players the writers draw from (default 5,000)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--no-throughput-model", dest="throughput", action="store_false")
    p.add_argument("--json", type=Path, dest="json_path", help="write every figure to this file")
    a = p.parse_args(argv)

    env = environment.start()
    model = AwsModel(a.commit_ms, a.throughput)
    from local import invocation

    model.attach(invocation.runtime().dynamodb)
    results: dict[str, Any] = {"options": vars(a) | {"json_path": str(a.json_path)}, "runs": []}
    try:
        results["budgets"] = budgets(env, model)
        print(json.dumps(results["budgets"]), file=sys.stderr, flush=True)
        for writers in a.writers:
            for kind in ("handlers", "original"):
                print(f"{kind}: {writers} writers for {a.seconds:.0f} s ...", file=sys.stderr, flush=True)
                run = run_once(kind, writers, a.seconds, a.pool, a.seed, env, model)
                results["runs"].append({"kind": kind, "writers": writers, **run})
                print(json.dumps(results["runs"][-1]), file=sys.stderr, flush=True)
    finally:
        env.stop()
    results["meta"] = environment.meta()
    if a.json_path:
        a.json_path.parent.mkdir(parents=True, exist_ok=True)
        a.json_path.write_text(json.dumps(results, indent=2) + "\n")
    print(report(results))
    return 0


def report(results: dict[str, Any]) -> str:
    rows = [
        "| writers | design | submissions/s | failed | cancelled transactions / throttled"
        " | p50 ms | p99 ms | requests | write units |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results["runs"]:
        failed = sum(r["failed"].values())
        rows.append(
            f"| {r['writers']} | {'this project' if r['kind'] == 'handlers' else 'original'} | "
            f"{r['submissions_per_second']:,.1f} | {failed} | {r['model']['transactions_cancelled']} / "
            f"{r['retries']['throttled_and_retried_by_boto3']} | {r['p50_ms']:,.0f} | {r['p99_ms']:,.0f} | "
            f"{r['requests_per_submission']:.2f} | {r['write_units_per_submission']:.2f} |"
        )
    b = results["budgets"]
    lines = [
        "Budgets: improving POST /scores on the default board: {r} requests, {w:g} write units; top 25: {t} request; "
        "500-entry bulk on three periods: {br} requests, {bs} s on the latency model.".format(
            r=b["improving_post_scores"]["requests"],
            w=b["improving_post_scores"]["write_units"],
            t=b["top_25_requests"],
            br=b["bulk_500_three_periods"]["requests"],
            bs=b["bulk_500_three_periods"]["seconds_on_latency_model"],
        ),
        "",
        "\n".join(rows),
        "",
    ]
    for r in results["runs"]:
        if r["kind"] == "handlers":
            c = r["counters"]
            lines.append(
                f"{r['writers']} writers, rank counters: caught up {c['catch_up_seconds_after_writers_stopped']} s "
                f"after the writers stopped; oldest record when counted {c['oldest_record_counted_seconds']} s; "
                f"consumer {c['requests_per_submission']} requests, {c['read_units_per_submission']} read units, "
                f"{c['write_units_per_submission']} write units per submission."
            )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
