"""The local stack for the browser tests, in a child process the tests steer over stdin.

Why a child process: the handlers cache their settings and boto3 client per process, so a
second in-process stack (the integration suite has one) would quietly share the first
one's DynamoDB. Here the stack is the real thing `python -m local run` starts: DynamoDB
Local, the handlers behind the local gateway, the local edge (Nginx's proxy cache, as CloudFront on AWS) and
Nginx with dashboard_ec2's config, whose /api/ reads through that edge as `make run`'s does.

Protocol: prints one JSON line {"dashboard", "api", "served_by"} when ready, then answers
each command line with "ok" (or "error: ..."):
    reset       empty every table, and start the edge again with an empty cache (what it kept were the old
                tables' answers, served for their max-age)
    settle      wait until the rank counters have counted every write so far (the stream consumer's lag)
    stop-api    stop the API, the edge in front of it and the AppSync Events stand-in (Nginx stays up: the
                dashboard sees 502s; the edge alone would go on serving what it holds, as CloudFront does while
                the origin fails)
    start-api   start them again on the same ports (the edge with an empty cache)
    stop-live   stop the AppSync Events stand-in only (its connections closed, new ones refused)
    start-live  start it again at the same URL, with the same key
    now         answers "ok <the stack's time, ISO 8601>"
    advance S   move the stack's clock S seconds forward (tests/support/clock.RunningClock, moved while the
                scheduled jobs pause): a tournament's end or a later snapshot without waiting for it
    quit        stop everything
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from local import dashboard, edge  # noqa: E402
from local.backend import Backend  # noqa: E402
from local.dynamodb_local import free_port  # noqa: E402
from local.runner import LOCAL_LIVE_TOKENS_PER_CLIENT  # noqa: E402
from tests.support import clock  # noqa: E402


def main() -> int:
    run_dir, api_key, admin_key, admin_password = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    # Every browser here is one address (127.0.0.1), as under `make run`: the same per-client live-token figure.
    backend = Backend(
        api_key=api_key,
        admin_key=admin_key,
        quiet=True,
        run_dir=run_dir,
        clock=clock.RunningClock(),
        live_tokens_per_client=LOCAL_LIVE_TOKENS_PER_CLIENT,
    )
    try:
        backend.start()
        api_port = backend.server.server_address[1]
        port, edge_port = free_port(), free_port()
        edge_dir = run_dir / "edge"

        def start_edge() -> str:
            shutil.rmtree(edge_dir / "cache", ignore_errors=True)
            return edge.start(backend.procs, edge_dir, edge_port, backend.api_url)

        def stop_edge() -> None:
            backend.procs.stop(edge.PROCESS_NAME)

        edge_url = start_edge()
        served_by = dashboard.start(
            backend.procs,
            run_dir,
            port,
            backend.api_url,
            admin_key,
            admin_password,
            edge_url=edge_url,
            live_url=backend.live_url,
        )
        print(
            json.dumps(
                {
                    "dashboard": f"http://127.0.0.1:{port}",
                    "api": backend.api_url,
                    "live": backend.live_url,
                    "edge": edge_url,
                    "served_by": served_by,
                }
            ),
            flush=True,
        )
        for line in sys.stdin:
            command, _, argument = line.strip().partition(" ")
            answer = ""
            try:
                if command == "reset":
                    backend.reset_tables()
                    stop_edge()
                    start_edge()
                elif command == "settle":
                    backend.settle()
                elif command == "stop-api":  # the REST API and the AppSync Events stand-in
                    backend.server.shutdown()
                    backend.server.server_close()
                    backend.stop_live()
                    stop_edge()
                elif command == "start-api":
                    backend.server = backend.gateway.serve("127.0.0.1", api_port)
                    backend.start_live()
                    start_edge()
                elif command == "stop-live":
                    backend.stop_live()
                elif command == "start-live":
                    backend.start_live()
                elif command == "now":
                    answer = " " + backend.clock.now().isoformat()
                elif command == "advance":
                    answer = " " + clock.move(backend, seconds=float(argument)).isoformat()
                elif command == "quit":
                    print("ok", flush=True)
                    break
                else:
                    raise ValueError(f"unknown command {command!r}")
                print(f"ok{answer}", flush=True)
            except Exception as exc:  # report, keep serving
                print(f"error: {exc}", flush=True)
    finally:
        backend.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
