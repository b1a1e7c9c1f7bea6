"""`make bench-launch`, small: Locust against a real `make run` stack for a few seconds, and the pieces it reads.

The figures in docs/PERFORMANCE.md come from the full run; this keeps the harness from rotting between runs. It
runs as from a shell, without the environment this package's local stack sets for its handlers."""

from __future__ import annotations

from bench.launch import aws_cost, operations, stack_output
from tests.support.bench_run import run_bench

# What local/runner.py prints (today, and with the edge's line), and the local gateway's line per request.
STARTUP = """
Dashboard: http://127.0.0.1:8080/
API: http://127.0.0.1:3001
Live: ws://127.0.0.1:40111/event/realtime
Edge: http://127.0.0.1:8081/
API key (x-api-key): abc   (game servers: score submissions)
Requests that reach the API (past the edge's cache): /tmp/run/api-requests.log
Ready in 9 s. Ctrl-C stops everything.
""".splitlines()


def test_the_stack_urls_are_read_from_the_printed_lines_and_reads_go_through_the_edge():
    urls = stack_output.parse_urls(STARTUP)
    assert urls == stack_output.StackUrls(
        api="http://127.0.0.1:3001",
        live="ws://127.0.0.1:40111/event/realtime",
        edge="http://127.0.0.1:8081",
        dashboard="http://127.0.0.1:8080",
        request_log="/tmp/run/api-requests.log",
    )
    assert urls.reads == "http://127.0.0.1:8081"
    assert stack_output.is_ready(STARTUP[-1]) and not stack_output.is_ready(STARTUP[2])


def test_without_an_edge_line_reads_go_to_the_api():
    urls = stack_output.parse_urls([line for line in STARTUP if not line.startswith(("Edge:", "Requests"))])
    assert urls.edge is None and urls.request_log is None and urls.reads == "http://127.0.0.1:3001"


def test_origin_requests_are_counted_per_operation_from_the_gateway_lines():
    lines = [
        "api  GET /leaderboards/global/top?limit=25 -> 200 (12 ms)",
        "api  GET /leaderboards/global/top?limit=25 -> 200 (3 ms)",
        "api  GET /leaderboards/global/players/player-00001?window=0 -> 200 (40 ms)",
        "api  GET /leaderboards/global/players/p1/hidden -> 200 (4 ms)",  # another route: not counted
        "api  POST /scores -> 200 (30 ms)",
        "api  POST /scores -> 429 (1 ms)",
        "GET /leaderboards/global/top?limit=25 200",  # the request log's format
        "1764600000.123 GET /leaderboards/global/top?limit=25 200",  # the request log's format, timed
        "POST /scores 200",
        "Dashboard: http://127.0.0.1:8080/",
        "[req-1] cdk_leaderboard_lambda.handlers.x failed on GET /leaderboards/global/top:",
    ]
    assert stack_output.parse_gateway_line(lines[0]) == stack_output.GatewayRequest(
        "GET", "/leaderboards/global/top", "limit=25", 200
    )
    logged = stack_output.parse_gateway_line("POST /scores 200")
    assert logged == stack_output.GatewayRequest("POST", "/scores", "", 200)
    timed = stack_output.parse_gateway_line("1764600000.123 GET /leaderboard?limit=5 200")  # the log's real format
    assert timed == stack_output.GatewayRequest("GET", "/leaderboard", "limit=5", 200)
    assert stack_output.count_origin_requests(lines, operations.classify) == {
        operations.READ_TOP: 4,
        operations.READ_RANK: 1,
        "submit": 3,
    }


def test_api_gateway_is_priced_by_its_monthly_tiers():
    assert round(aws_cost.api_gateway_usd(100e6), 2) == 350.00
    assert round(aws_cost.api_gateway_usd(1e9), 2) == round(333 * 3.50 + 667 * 2.80, 2)


def _run(tmp_path, *args: str) -> dict:
    return run_bench(tmp_path, "bench.launch", *args, "--no-progress", timeout=400)


def test_the_launch_bench_runs_every_operation_without_a_server_error(tmp_path):
    """A few users for a few seconds; submissions weighted up and few seeded players, so that new entries change
    the top (live pushes)."""
    figures = _run(
        tmp_path,
        # Locust picks each task at random by weight (CI: 6 s of it alone gave no rank read at all): --each-first
        # has each of the 3 Players call each task once first, so the first three submissions are one of each kind, and
        # the follower submit a new leader and wait for its top (a loaded CI run's 6 s had no push)
        *("--users", "4", "--live-users", "1", "--seconds", "6", "--players", "8", "--samples", "2"),
        *("--wait", "0.1", "--weights", "1,1,2", "--each-first"),
    )
    ops = figures["operations"]
    assert set(ops) == set(operations.ALL)
    for name, op in ops.items():
        assert op["rate_per_s"] > 0, (name, op)
        assert not [s for s in op["statuses"] if s.startswith("5")], (name, op["statuses"])
    for name in operations.READS:
        assert ops[name]["origin_requests"] > 0 and 0 < ops[name]["origin_per_edge_request"] <= 1.0
    assert set(figures["dynamodb_per_operation"]) == set(operations.HTTP)
    model = figures["aws_model"]
    assert model["modelled"] and [v["reads_per_s"] for v in model["volumes"]] == [100, 1_000, 10_000]
    for volume in model["volumes"]:
        assert volume["edge"]["usd_per_month"]["total"] > 0 and volume["uncached"]["throttles"]
