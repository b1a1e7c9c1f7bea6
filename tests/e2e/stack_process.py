"""The local stack for the browser tests, in a child process the tests steer over stdin.

Why a child process: the handlers cache their settings and boto3 client per process, so a
second in-process stack (the integration suite has one) would quietly share the first
one's DynamoDB. Here the stack is the real thing `python -m local run` starts: DynamoDB
Local, the handlers behind the local gateway, and Nginx with dashboard_ec2's config.

Protocol: prints one JSON line {"dashboard", "api", "served_by"} when ready, then answers
each command line with "ok" (or "error: ..."):
    reset       empty every table
    settle      wait until the rank counters have counted every write so far (the stream consumer's lag)
    stop-api    stop the API and the AppSync Events stand-in (Nginx stays up: the dashboard sees 502s)
    start-api   start them again on the same ports
    stop-live   stop the AppSync Events stand-in only (its connections closed, new ones refused)
    start-live  start it again at the same URL, with the same key
    quit        stop everything
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from local import dashboard  # noqa: E402
from local.backend import Backend  # noqa: E402
from local.dynamodb_local import free_port  # noqa: E402


def main() -> int:
    run_dir, api_key, admin_key, admin_password = Path(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    backend = Backend(api_key=api_key, admin_key=admin_key, quiet=True, run_dir=run_dir)
    try:
        backend.start()
        api_port = backend.server.server_address[1]
        port = free_port()
        served_by = dashboard.start(
            backend.procs, run_dir, port, backend.api_url, admin_key, admin_password, backend.live_url
        )
        print(
            json.dumps(
                {
                    "dashboard": f"http://127.0.0.1:{port}",
                    "api": backend.api_url,
                    "live": backend.live_url,
                    "served_by": served_by,
                }
            ),
            flush=True,
        )
        for line in sys.stdin:
            command = line.strip()
            try:
                if command == "reset":
                    backend.reset_tables()
                elif command == "settle":
                    backend.settle()
                elif command == "stop-api":  # the REST API and the AppSync Events stand-in
                    backend.server.shutdown()
                    backend.server.server_close()
                    backend.stop_live()
                elif command == "start-api":
                    backend.server = backend.gateway.serve("127.0.0.1", api_port)
                    backend.start_live()
                elif command == "stop-live":
                    backend.stop_live()
                elif command == "start-live":
                    backend.start_live()
                elif command == "quit":
                    print("ok", flush=True)
                    break
                else:
                    raise ValueError(f"unknown command {command!r}")
                print("ok", flush=True)
            except Exception as exc:  # report, keep serving
                print(f"error: {exc}", flush=True)
    finally:
        backend.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
