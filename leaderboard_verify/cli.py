"""`python -m leaderboard_verify`: check a period's log, and the receipts and closing summary that point into it.

    python -m leaderboard_verify --log log.json --summary summary.json --receipt receipt.jws --keys jwks.json
    python -m leaderboard_verify --url https://api.example.com/prod --board speedrun --period 2026-W49 --receipt r.jws

One line per check (`ok` or `FAIL`, what fails and where), then a verdict. Exit status: 0 every check passed, 1 a
check failed, 2 an input could not be read.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from . import inputs, jws
from .chain import Broken, check_chain
from .checks import Evidence, check_receipt, check_summary
from .report import Report, Unusable
from .standings import ORDERS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m leaderboard_verify",
        description="Check a leaderboard period's hash-chained log, its signed closing summary and signed rank "
        "receipts, from the published format alone (docs/PROVING.md).",
    )
    p.add_argument(
        "--log",
        action="append",
        default=[],
        metavar="FILE|URL",
        help='the log export: pages of GET .../periods/{id}/log concatenated, or one {"records": [...]}; '
        "a URL is read page by page; repeat for several files, in order",
    )
    p.add_argument(
        "--receipt",
        action="append",
        default=[],
        metavar="JWS|FILE|URL",
        help='a receipt: the compact JWS, or a file or URL holding it or {"receipt": "..."}; repeatable',
    )
    p.add_argument("--summary", metavar="FILE|URL", help="the closed period's summary (GET .../periods/{id})")
    p.add_argument("--keys", metavar="FILE|URL", help="the published keys (GET /.well-known/jwks.json)")
    p.add_argument("--url", metavar="BASE", help="the API's base URL: the log and keys are read from it unless given")
    p.add_argument("--board", help="the board id (default: the summary's or the receipt's)")
    p.add_argument("--period", help="the concrete period id (default: the summary's or the receipt's)")
    p.add_argument(
        "--generation",
        help="the board generation whose log --url reads (default: the summary's or the receipt's, else the current)",
    )
    p.add_argument("--order", choices=ORDERS, help="the board's order, where a signed payload does not carry it")
    return p


def _status(key: jws.PublishedKey) -> str:
    at = {"retired": key.retired_at, "revoked": key.revoked_at}.get(key.status)
    return f"{key.status} at {at}" if at else key.status


def _peek(token: str) -> dict[str, Any]:
    """A receipt's payload before it is verified, only to learn its board and period."""
    try:
        value = json.loads(jws.b64url_decode(token.split(".")[1]))
    except (IndexError, ValueError, jws.Invalid):
        return {}
    return value if isinstance(value, dict) else {}


def run(argv: list[str], out: TextIO) -> int:
    args = parser().parse_args(argv)
    report = Report(out)
    try:
        receipts = [inputs.load_receipt(source) for source in args.receipt]
        summary = inputs.load_json(args.summary) if args.summary else None
        if summary is not None and not isinstance(summary, dict):
            raise Unusable(f"{args.summary}: a closing summary is a JSON object")
        known = [summary or {}] + [_peek(t) for t in receipts]
        board = args.board or next((k["board_id"] for k in known if isinstance(k.get("board_id"), str)), None)
        period = args.period or next((k["period_id"] for k in known if isinstance(k.get("period_id"), str)), None)
        # A board deleted and created again under its id has a log per generation: read the one the payload names.
        generation = args.generation or next(
            (k["generation"] for k in known if isinstance(k.get("generation"), str)), None
        )
        log_sources = list(args.log)
        if not log_sources:
            if not (args.url and board and period):
                report.fail("input", "no log: pass --log, or --url with the board and period (--board, --period)")
                return 2
            log_sources = [inputs.log_url(args.url, board, period, generation)]
        records = inputs.load_log(log_sources)
        keys_source = args.keys or (f"{args.url.rstrip('/')}/.well-known/jwks.json" if args.url else None)
        keys = None
        if keys_source and (receipts or summary is not None):
            try:
                keys = jws.parse_jwks(inputs.load_json(keys_source))
                report.ok(
                    "keys",
                    f"{len(keys)} Ed25519 keys from {keys_source}: "
                    + ", ".join(f"{k.kid} ({_status(k)})" for k in keys.values()),
                )
            except jws.Invalid as error:
                report.fail("keys", f"{keys_source}: {error}")
        # --order; else none here: each payload's signed order is its own. Only for payloads that sign none
        # (older ones) the board's order as it is today, from --url.
        order, order_given = args.order, args.order is not None
        if order is None and args.url and board and not all(k.get("order") in ORDERS for k in known if k):
            order = inputs.board_order(args.url, board)
    except Unusable as error:
        report.fail("input", str(error))
        return 2

    verified = _check_log(report, records)
    evidence = Evidence(records, verified, keys, order, order_given)
    signed = []
    if summary is not None:
        signed.append(("summary", check_summary(report, summary, evidence)))
    for i, token in enumerate(receipts, start=1):
        signed.append((f"receipt {i}", check_receipt(report, f"receipt {i}", token, evidence)))
    _check_same_period(report, board if args.board else None, period if args.period else None, signed)
    return report.verdict()


def _check_log(report: Report, records: list[Any]) -> int:
    """The chain; the number of leading records that are whole and chained."""
    try:
        check_chain(records)
    except Broken as broken:
        report.fail("log", str(broken))
        return broken.position - 1
    if not records:
        report.ok("log", "empty (no accepted change yet)")
    else:
        head = records[-1]
        report.ok(
            "log",
            f"{len(records)} records, seq 1..{len(records)} without a gap, every prev_hash and hash "
            f"holds; head seq {head['seq']} hash {head['hash']}",
        )
    return len(records)


def _check_same_period(
    report: Report, board: str | None, period: str | None, signed: list[tuple[str, dict[str, Any] | None]]
) -> None:
    """Every signed payload speaks of one board period (the one given, if one was)."""
    want = {"board_id": board, "period_id": period}
    for name, payload in signed:
        if payload is None:
            continue
        for field in want:
            if want[field] is None:
                want[field] = payload.get(field)
            elif payload.get(field) != want[field]:
                report.fail(f"{name} {field}", f"is {payload.get(field)!r}, the others' is {want[field]!r}")


def main(argv: list[str] | None = None) -> int:
    return run(sys.argv[1:] if argv is None else argv, sys.stdout)
