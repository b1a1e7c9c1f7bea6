"""python -m local run | seed | fetch: the leaderboard on one machine."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m local", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="start DynamoDB Local, the API and the dashboard until Ctrl-C")
    run.add_argument(
        "--port", type=int, default=int(os.environ.get("PORT", 8080)), help="dashboard port (env PORT, default 8080)"
    )
    run.add_argument(
        "--api-port",
        type=int,
        default=int(os.environ.get("API_PORT", 3001)),
        help="API port (env API_PORT, default 3001)",
    )
    run.add_argument(
        "--edge-port",
        type=int,
        default=int(os.environ.get("EDGE_PORT", 3002)),
        help="port of the edge, the public reads' cache in front of the API (env EDGE_PORT, default 3002)",
    )
    run.add_argument(
        "--live-port",
        type=int,
        default=int(os.environ.get("LIVE_PORT", 3003)),
        help="port of the AppSync Events stand-in, live updates (env LIVE_PORT, default 3003)",
    )
    run.add_argument(
        "--persist",
        type=Path,
        default=os.environ.get("LEADERBOARD_PERSIST_DIR") or None,
        help="keep the data in this directory between runs (env LEADERBOARD_PERSIST_DIR)",
    )
    run.add_argument("--no-seed", action="store_true", help="start with empty tables")
    run.add_argument("--quiet", action="store_true", help="no log line per API request")
    run.add_argument(
        "--throttle",
        action="store_true",
        default=os.environ.get("LEADERBOARD_THROTTLE") == "1",
        help="throttle as the deployed API does (429s from the template's buckets; env LEADERBOARD_THROTTLE=1)",
    )
    seed = sub.add_parser("seed", help="load simulated players into the running stack")
    seed.add_argument("--players", type=int, default=1000)
    sub.add_parser("fetch", help="fetch DynamoDB Local into .local/ (what `run` does on first use)")
    sub.add_parser("synth", help="synthesize and cache the CDK template the local tables come from")
    args = parser.parse_args(argv)

    if args.command == "run":
        from local.runner import run_stack

        run_stack(
            args.port,
            args.api_port,
            args.persist,
            seed=not args.no_seed,
            quiet=args.quiet,
            edge_port=args.edge_port,
            live_port=args.live_port,
            throttle=args.throttle,
        )
    elif args.command == "seed":
        from local.seed import main as seed_main

        if args.players < 1:
            parser.error("--players must be at least 1")
        seed_main(args.players)
    elif args.command == "fetch":
        from local.dynamodb_local import ensure_installed

        print(ensure_installed())
    elif args.command == "synth":
        from local.template import synthesized_template

        synthesized_template(refresh=True)


if __name__ == "__main__":
    main()
