"""What each operation of the launch traffic costs in DynamoDB: measured through the real handlers, in-process.

The load test's stack (`make run`, another process) cannot be metered from outside, and a request's DynamoDB cost
does not depend on the load (the design's bounded budgets: see docs/PERFORMANCE.md), so the same operations run
here, one at a time, on a DynamoDB Local of their own with the same seeded board, and every DynamoDB call of the
handlers is metered (bench/metering.py) - and, for submissions, the rank-counter function's calls on the stream
that follow them. Billed write units include refused conditional writes (1 unit per item, reported nowhere).
"""

from __future__ import annotations

import random
import statistics
import time

from bench.aws_model import LATENCY_MS
from bench.launch import operations as ops
from bench.metering import CONSUMER_THREADS, ThreadMeter, Usage, attach


def _per_call(usages: list[Usage], seconds: list[float], cpu_seconds: list[float]) -> dict:
    n = len(usages)
    total = sum(usages, Usage())
    by_operation = {k: v / n for k, v in sorted(total.by_operation.items())}
    cpu_ms = statistics.median(cpu_seconds) * 1000
    return {
        "samples": n,
        "requests": total.requests / n,
        "read_units": total.read_units / n,
        "write_units": (total.write_units + total.refused) / n,
        "refused_writes": total.refused / n,
        "by_operation": by_operation,
        "local_wall_ms_p50": round(statistics.median(seconds) * 1000, 2),  # on DynamoDB Local, on this machine
        "cpu_ms_p50": round(cpu_ms, 2),
        # MODELLED duration on Lambda: the handler's own CPU time plus DynamoDB's assumed service latency per
        # request (bench/aws_model.py's LATENCY_MS, the load bench's model), requests one after another
        "modelled_ms": round(cpu_ms + sum(LATENCY_MS.get(op, 6.0) * k for op, k in by_operation.items()), 2),
    }


def measure(seeded: dict[str, int], samples: int = 20, seed: int = 1) -> dict:
    """DynamoDB requests and units per call of each operation, on a board holding `seeded` ({player: best})."""
    from bench import environment  # starts nothing on import; sets this process's handler environment on start

    env = environment.start()
    try:
        from bench.api import HandlerApi
        from local import invocation

        api = HandlerApi()
        ids = sorted(seeded)
        for i in range(0, len(ids), 250):
            entries = [{"player_id": p, "score": seeded[p]} for p in ids[i : i + 250]]
            assert api.call("POST", f"/leaderboards/{ops.BOARD}/scores/bulk", body={"entries": entries}).status == 200
        consumer = env.start_consumer()
        consumer.settle(120)
        handlers, counters = ThreadMeter(but=CONSUMER_THREADS), ThreadMeter(only=CONSUMER_THREADS)
        attach(invocation.runtime().dynamodb, handlers)
        attach(invocation.runtime().dynamodb, counters)
        rng = random.Random(seed)
        best = dict(seeded)

        def calls(name: str):
            player = rng.choice(ids)
            if name == ops.READ_TOP:
                return "GET", ops.TOP_PATH, {"limit": 25}, None
            if name == ops.READ_RANK:
                return "GET", ops.rank_path(player), {"window": 0}, None
            if name == ops.SUBMIT_NOT_IMPROVING:
                return "POST", "/scores", None, {"player_id": player, "score": rng.randint(0, max(0, best[player] - 1))}
            if name == ops.SUBMIT_IMPROVING:
                best[player] += rng.randint(1, 2_000)
                return "POST", "/scores", None, {"player_id": player, "score": best[player]}
            return (
                "POST",
                "/scores",
                None,
                {"player_id": f"new-{rng.getrandbits(48):x}", "score": rng.randint(0, 10_000)},
            )

        out = {}
        for name in (ops.READ_TOP, ops.READ_RANK, ops.SUBMIT_NOT_IMPROVING, ops.SUBMIT_IMPROVING, ops.SUBMIT_NEW):
            api.call(*calls(name))  # warm: the board's config is cached after the first call
            consumer.settle(60)
            handlers.reset()
            counters.reset()
            usages, seconds, cpu, stream = [], [], [], []
            for _ in range(samples):
                method, path, query, body = calls(name)
                cpu_started = time.thread_time()  # this thread's CPU alone: what Lambda would bill, load or not
                resp = api.call(method, path, query, body)
                cpu.append(time.thread_time() - cpu_started)
                assert resp.status == 200, (name, resp.status, resp.body)
                usages.append(handlers.take())
                seconds.append(resp.seconds)
                if method == "POST":
                    consumer.settle(60)
                    stream.append(counters.take())
            out[name] = {"handler": _per_call(usages, seconds, cpu)}
            if stream:  # one stream record per batch here: an upper bound of what batches of many cost each record
                out[name]["rank_counter"] = _per_call(stream, [0.0], [0.0])
        consumer.stop()
        return out
    finally:
        env.stop()


if __name__ == "__main__":  # a quick look: python -m bench.launch.costs
    import json

    started = time.monotonic()
    print(json.dumps(measure({f"p{i:04d}": i * 10 for i in range(200)}, samples=5), indent=1))
    print(f"{time.monotonic() - started:.0f} s")
