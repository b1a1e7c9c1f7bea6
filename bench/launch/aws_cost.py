"""The launch traffic priced on AWS, and the throttle it meets first: a MODEL, not a measurement.

Inputs: the DynamoDB requests and units per operation measured through the real handlers (costs.py), the mix of
the load test (players.py: per 9 reads, 6 are the top and 3 a player's own rank; submissions are 10% of reads,
80% not improving, 15% improving, 5% new players), the edge's hit ratio, the stack's default throttles and memory
read from the construct's props at run time (cdk_leaderboard.props.LeaderboardProps()), and the list prices below.

Two designs: "uncached" (every read is an API Gateway request, a Lambda invocation and its DynamoDB reads) and
"edge" (reads go to CloudFront; only misses reach API Gateway). Submissions take the API in both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bench.launch import operations as ops

SECONDS_PER_MONTH = 30 * 24 * 3600

# List prices, us-east-1, USD, as published on the AWS pricing pages (checked 2026-12-01; DynamoDB on-demand as
# cut on 2024-11-01). API Gateway REST is tiered per month; CloudFront: United States/Europe, first 10 TB.
PRICES = {
    "source": "AWS pricing pages (aws.amazon.com/<service>/pricing), us-east-1, list prices as of 2026-12-01",
    "api_gateway_rest_per_million_tiers": [(333e6, 3.50), (1e9, 2.80), (20e9, 2.38), (float("inf"), 1.51)],
    "lambda_arm64_per_gb_second": 0.0000133334,
    "lambda_per_million_requests": 0.20,
    "dynamodb_on_demand_per_million_read_units": 0.125,
    "dynamodb_on_demand_per_million_write_units": 0.625,
    "cloudfront_per_10k_https_requests": 0.0100,
    "cloudfront_per_gb_out": 0.085,
}
READS_PER_S = (100, 1_000, 10_000)
SUBMISSIONS_PER_READ = 0.10
READ_MIX = {ops.READ_TOP: 6 / 9, ops.READ_RANK: 3 / 9}
SUBMIT_MIX = {ops.SUBMIT_NOT_IMPROVING: 0.80, ops.SUBMIT_IMPROVING: 0.15, ops.SUBMIT_NEW: 0.05}
FUNCTION = {ops.READ_TOP: "leaderboard-query", ops.READ_RANK: "player-stats"} | dict.fromkeys(
    SUBMIT_MIX, "score-submit"
)
# Assumptions (modelled): CloudFront's regional edge caches that each miss once per TTL on a shared URL (without
# Origin Shield; with it, one), a player's own rank read from that player only (no sharing: every read a miss,
# unless the local edge measured better), Lambda's default account concurrency, DynamoDB's per-partition limit.
REGIONAL_EDGE_CACHES = 13
DEFAULT_MAX_AGE_SECONDS = 5  # when the route table states no Cache-Control yet
ACCOUNT_CONCURRENCY = 1_000
PARTITION_READ_UNITS_PER_S = 3_000


def api_gateway_usd(requests_per_month: float) -> float:
    usd, left, floor = 0.0, requests_per_month, 0.0
    for ceiling, per_million in PRICES["api_gateway_rest_per_million_tiers"]:
        n = min(left, ceiling - floor) if ceiling != float("inf") else left
        usd += n / 1e6 * per_million
        left -= n
        floor = ceiling
        if left <= 0:
            break
    return usd


def max_age(method: str, path: str) -> tuple[int, str]:
    """The route's max-age (seconds) from the route table's Cache-Control, and where the number came from."""
    from cdk_leaderboard_lambda.web import routes

    route, _, _ = routes.match_route(method, path)
    caching = getattr(route, "cache", None)  # routes.Caching, where the route table states one
    if caching is not None and getattr(caching, "max_age", 0) > 0:
        return int(caching.max_age), "the route table's Cache-Control"
    header = str(getattr(route, "cache_control", "") or "")
    m = re.search(r"(?:s-maxage|max-age)=(\d+)", header)
    if m:
        return int(m.group(1)), f"the route table: {header}"
    return DEFAULT_MAX_AGE_SECONDS, "assumed (the route table states no Cache-Control)"


@dataclass(frozen=True)
class Defaults:
    """The stack's defaults that decide where it throttles (read from the props, never copied)."""

    public_read_rate_limit: float  # per method, all callers together (stage method settings)
    game_key_rate_limit: float  # per key: every game server shares the one game key
    reserved_concurrency: dict[str, int]
    lambda_memory_mb: int

    @classmethod
    def from_props(cls) -> Defaults:
        from cdk_leaderboard.props import LeaderboardProps

        p = LeaderboardProps()
        return cls(
            float(p.throttles.public_read_rate_limit),
            float(p.throttles.game_key_rate_limit),
            dict(p.reserved_concurrency or {}),
            int(p.lambda_memory_mb),
        )


def model(costs: dict, origin_ratio: dict[str, float | None], bytes_per_read: dict[str, float], d: Defaults) -> dict:
    """Monthly USD and the first throttle, per read rate and design. `costs`: costs.measure()'s per operation;
    `origin_ratio`: origin requests per edge request measured locally (None: no edge ran)."""
    ttl = {ops.READ_TOP: max_age("GET", ops.TOP_PATH), ops.READ_RANK: max_age("GET", ops.rank_path("p"))}
    out = {"modelled": True, "prices": PRICES, "defaults": vars(d), "max_age_seconds": ttl, "volumes": []}
    for reads in READS_PER_S:
        rates = {op: reads * share for op, share in READ_MIX.items()}
        rates |= {op: reads * SUBMISSIONS_PER_READ * share for op, share in SUBMIT_MIX.items()}
        row = {"reads_per_s": reads, "submissions_per_s": reads * SUBMISSIONS_PER_READ}
        for design in ("uncached", "edge"):
            origin = dict(rates)
            if design == "edge":
                shared = min(rates[ops.READ_TOP], REGIONAL_EDGE_CACHES / ttl[ops.READ_TOP][0])
                own = origin_ratio.get(ops.READ_RANK)
                origin[ops.READ_TOP] = shared
                origin[ops.READ_RANK] = rates[ops.READ_RANK] * (1.0 if own is None else min(1.0, own))
            row[design] = _price(rates, origin, costs, bytes_per_read, d, edge=design == "edge")
        out["volumes"].append(row)
    return out


def _price(rates, origin, costs, bytes_per_read, d: Defaults, edge: bool) -> dict:
    month = SECONDS_PER_MONTH
    api_requests = sum(origin.values()) * month
    gb_seconds = lambda_requests = read_units = write_units = 0.0
    for op, rate in origin.items():
        handler = costs[op]["handler"]
        counter = costs[op].get("rank_counter", {})
        billed_ms = max(1.0, round(handler["modelled_ms"]))  # Lambda bills per 1 ms
        gb_seconds += rate * month * billed_ms / 1000 * d.lambda_memory_mb / 1024
        lambda_requests += rate * month
        read_units += rate * month * (handler["read_units"] + counter.get("read_units", 0.0))
        write_units += rate * month * (handler["write_units"] + counter.get("write_units", 0.0))
    usd = {
        "api_gateway": api_gateway_usd(api_requests),
        "lambda": gb_seconds * PRICES["lambda_arm64_per_gb_second"]
        + lambda_requests / 1e6 * PRICES["lambda_per_million_requests"],
        "dynamodb": read_units / 1e6 * PRICES["dynamodb_on_demand_per_million_read_units"]
        + write_units / 1e6 * PRICES["dynamodb_on_demand_per_million_write_units"],
        "cloudfront": 0.0,
    }
    if edge:
        edge_reads = sum(rates[op] for op in ops.READS) * month
        gb = sum(rates[op] * bytes_per_read.get(op, 1024) for op in ops.READS) * month / 1e9
        usd["cloudfront"] = (
            edge_reads / 1e4 * PRICES["cloudfront_per_10k_https_requests"] + gb * PRICES["cloudfront_per_gb_out"]
        )
    return {
        "usd_per_month": {k: round(v, 2) for k, v in usd.items()} | {"total": round(sum(usd.values()), 2)},
        "origin_requests_per_s": {op: round(r, 2) for op, r in origin.items()},
        "throttles": _throttles(origin, costs, d),
    }


def _throttles(origin: dict[str, float], costs: dict, d: Defaults) -> list[dict]:
    """Each limit the traffic meets, with demand / limit (over 1: throttled); the highest first."""
    found = [
        _limit(f"public-read throttle, GET {name}", origin[op], d.public_read_rate_limit, "requests/s")
        for op, name in ((ops.READ_TOP, ops.TOP_PATH), (ops.READ_RANK, ops.rank_path("{player_id}")))
    ]
    found.append(
        _limit(
            "game key rate (one key for all game servers)",
            sum(origin[o] for o in SUBMIT_MIX),
            d.game_key_rate_limit,
            "requests/s",
        )
    )
    by_function: dict[str, float] = {}
    for op, rate in origin.items():  # Little's law: concurrent invocations = rate x duration
        by_function[FUNCTION[op]] = (
            by_function.get(FUNCTION[op], 0.0) + rate * costs[op]["handler"]["modelled_ms"] / 1000
        )
    for fn, concurrent in by_function.items():
        limit = d.reserved_concurrency.get(fn, ACCOUNT_CONCURRENCY)
        kind = "reserved concurrency" if fn in d.reserved_concurrency else "account concurrency (default quota)"
        found.append(_limit(f"{fn} {kind}", concurrent, limit, "concurrent invocations"))
    top_units = origin[ops.READ_TOP] * costs[ops.READ_TOP]["handler"]["read_units"]
    found.append(
        _limit("DynamoDB, one index partition (the board's top)", top_units, PARTITION_READ_UNITS_PER_S, "read units/s")
    )
    return sorted(found, key=lambda t: -t["load"])


def _limit(name: str, demand: float, limit: float, unit: str) -> dict:
    load = demand / limit if limit else float("inf")
    return {
        "limit": name,
        "demand": round(demand, 2),
        "capacity": limit,
        "unit": unit,
        "load": round(load, 3),
        "throttled": load > 1,
    }
