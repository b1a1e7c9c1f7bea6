"""The checks of a receipt and of a closing summary against a verified log: the signature, the chain position
(`seq` and its record's hash) and the standings that replaying the log's first `seq` records gives."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from . import jws
from .chain import HEX64
from .report import Report
from .standings import ORDERS, replay
from .summary import check_standings, same_json, signed_fields

RECEIPT_FIELDS: dict[str, type | tuple[type, ...]] = {
    "board_id": str,
    "period_id": str,
    "player_id": str,
    "rank": int,
    "score": (int, float),
    "total_players": int,
    "at": str,
    "seq": int,
    "head_hash": str,
    "player": str,
}
# The signed times of when a payload was issued, compared with a retired key's retired_at: a receipt's `at` (and its
# JWT `iat`, in seconds, where present); a summary's `closed_at` (a re-signed summary keeps it: it is never later
# than the signature).
RECEIPT_TIMES = ("at", "iat")
SUMMARY_TIMES = ("closed_at",)


@dataclass
class Evidence:
    records: list[dict[str, Any]]
    verified: int  # how many of the first records are whole and chained (all of them unless the log is broken)
    keys: dict[str, jws.PublishedKey] | None
    order: str | None  # --order, else the one a summary or receipt names, else the board's (--url)
    order_given: bool = True  # False: the order is the board's today, for payloads that sign none (older ones)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _signed(
    report: Report, name: str, token: object, evidence: Evidence, times: tuple[str, ...]
) -> jws.Verified | None:
    if evidence.keys is None:
        report.fail(f"{name} signature", "no published keys to check it against (pass --keys or --url)")
        return None
    try:
        verified = jws.verify(token, evidence.keys)  # type: ignore[arg-type]
    except jws.Invalid as error:
        report.fail(f"{name} signature", str(error))
        return None
    key = verified.key
    if key.status == "revoked":
        report.fail(
            f"{name} signature",
            f"key {key.kid} is revoked (revoked_at {key.revoked_at or 'not given'}): nothing it signed verifies, "
            "whatever date it carries",
        )
        return None
    if key.status != "retired":
        report.ok(f"{name} signature", f"EdDSA by key {key.kid}, listed as {key.status}")
        return verified
    problem, dated = _before_retirement(verified.payload, key, times)
    if problem:
        report.fail(f"{name} signature", problem)
        return None
    report.ok(
        f"{name} signature",
        f"EdDSA by key {key.kid}, listed as retired at {key.retired_at}; signed {dated}, before it",
    )
    return verified


def _before_retirement(payload: dict[str, Any], key: jws.PublishedKey, times: tuple[str, ...]) -> tuple[str, str]:
    """Why a retired key's payload is refused ("" if it is not), and the signed times it was checked by."""
    retired_at = jws.parse_time(key.retired_at)
    if retired_at is None:
        return f"key {key.kid} is retired without a retired_at: nothing tells what it signed before retiring", ""
    present = [field for field in times if field in payload]
    if not present:
        return f"key {key.kid} is retired (retired_at {key.retired_at}) and the payload signs no {times[0]}", ""
    dated = []
    for field in present:
        value = payload[field]
        moment = _moment(value)
        if moment is None:
            return f"{field} {value!r} is not a time: nothing tells whether key {key.kid} signed it before retiring", ""
        shown = f"{field} {value}" + (f" ({moment.isoformat()})" if not isinstance(value, str) else "")
        if moment >= retired_at:
            return (
                f"{shown} is at or after key {key.kid}'s retired_at {key.retired_at}: a retired key signs nothing "
                "after it (a forgery, or a key still in use)"
            ), ""
        dated.append(shown)
    return "", ", ".join(dated)


def _moment(value: object) -> datetime | None:
    """A signed time: RFC 3339 text, or a JWT NumericDate (seconds since the epoch)."""
    if _number(value):
        try:
            return datetime.fromtimestamp(value, UTC)  # type: ignore[arg-type]
        except (OverflowError, OSError, ValueError):
            return None
    return jws.parse_time(value)


def _head(report: Report, name: str, seq: object, head_hash: object, evidence: Evidence) -> bool:
    """The signed chain position is in the log: record `seq` exists, is verified and has that hash."""
    check = f"{name} head"
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
        report.fail(check, f"seq {seq!r} is not a non-negative integer")
        return False
    if seq == 0:
        if head_hash != "0" * 64:
            report.fail(check, f"seq 0 (an empty log) must have the hash 64 zeros, not {head_hash!r}")
            return False
        report.ok(check, "seq 0: signed over an empty log")
        return True
    if seq > len(evidence.records):
        report.fail(check, f"seq {seq} is past the export's last record ({len(evidence.records)}): export it again")
        return False
    if seq > evidence.verified:
        report.fail(check, f"seq {seq} is past the log's last good record ({evidence.verified}): see the log check")
        return False
    actual = evidence.records[seq - 1]["hash"]
    if head_hash != actual:
        report.fail(check, f"head_hash is {head_hash}, record seq {seq}'s hash is {actual}")
        return False
    report.ok(check, f"record seq {seq} has the signed hash {actual}")
    return True


def _order(report: Report, name: str, payload: dict[str, Any], evidence: Evidence) -> str | None:
    """The signed order; the board's today only for a payload that signs none (a board recreated with the other
    order does not change what a signed payload meant); a contradiction of --order fails."""
    order = payload.get("order", evidence.order)
    if order not in ORDERS:
        report.fail(f"{name} order", f"the board's order is unknown or not desc/asc ({order!r}): pass --order")
        return None
    if evidence.order_given and evidence.order is not None and order != evidence.order:
        report.fail(f"{name} order", f"the signed order is {order}, the board's is {evidence.order}")
        return None
    if "order" not in payload:
        source = "--order" if evidence.order_given else "the board's order today (GET /leaderboards/{board})"
        report.note(f"{name} order", f"not signed (an older payload): {order}, from {source}")
    return str(order)


def check_receipt(report: Report, name: str, token: str, evidence: Evidence) -> dict[str, Any] | None:
    verified = _signed(report, name, token, evidence, RECEIPT_TIMES)
    if verified is None:
        return None
    payload = verified.payload
    for field, kind in RECEIPT_FIELDS.items():
        value = payload.get(field)
        if field not in payload or not isinstance(value, kind) or isinstance(value, bool):
            report.fail(f"{name} payload", f"field {field}: {'missing' if field not in payload else repr(value)}")
            return None
    if not HEX64.fullmatch(payload["player"]):
        report.fail(f"{name} payload", f"field player: {payload['player']!r} is not a commitment (64 hex)")
        return None
    order = _order(report, name, payload, evidence)
    if order is None or not _head(report, name, payload["seq"], payload["head_hash"], evidence):
        return payload
    seq = payload["seq"]
    standings = replay(evidence.records[:seq], order)
    entry = standings.entry_of(payload["player"])
    check, upto = f"{name} standings", f"records 1..{seq}"
    if entry is None:
        report.fail(check, f"player commitment {payload['player']} has no entry in the standings of {upto}")
        return payload
    problems = []
    if not same_json(payload["score"], entry.score):  # by JSON type: 200.0 is not the integer 200 the log has
        problems.append(f"score: the receipt says {payload['score']!r}, {upto} give {entry.score!r}")
    if payload["total_players"] != standings.total:
        problems.append(f"total_players: the receipt says {payload['total_players']}, {upto} give {standings.total}")
    allowed = standings.ranks_allowed(entry)
    if payload["rank"] not in allowed:
        ranks = str(allowed[0]) if len(allowed) == 1 else f"{allowed[0]}..{allowed[-1]} (exact ties)"
        problems.append(f"rank: the receipt says {payload['rank']}, {upto} give {ranks}")
    if problems:
        for problem in problems:
            report.fail(check, problem)
        return payload
    report.ok(
        check,
        f"{payload['player_id']}: rank {payload['rank']} of {standings.total} with score {entry.score} "
        f"(at {entry.at}) follows from {upto} ({order})",
    )
    return payload


def check_summary(report: Report, summary: object, evidence: Evidence) -> dict[str, Any] | None:
    """Signed whole and of the format (summary.signed_fields), then its head, then complete against the replay."""
    name = "summary"
    if not isinstance(summary, dict) or "signature" not in summary:
        report.fail(f"{name} signature", "the summary has no signature field")
        return None
    verified = _signed(report, name, summary["signature"], evidence, SUMMARY_TIMES)
    if verified is None:
        return None
    payload = verified.payload
    if not signed_fields(report, summary, payload):
        return payload
    head = payload["log_head"]
    order = _order(report, name, payload, evidence)
    if order is None or not _head(report, name, head.get("seq"), head.get("hash"), evidence):
        return payload
    check_standings(report, payload, evidence.records[: head["seq"]], order)
    return payload
