"""The checks of a receipt and of a closing summary against a verified log: the signature, the chain position
(`seq` and its record's hash) and the standings that replaying the log's first `seq` records gives."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from . import jws
from .chain import HEX64
from .report import Report
from .standings import ORDERS, Standings, replay

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


def first_difference(a: Any, b: Any, path: str) -> str | None:
    """Where two JSON values first differ (`top[2].score`), None if they are equal."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            found = first_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        return None if len(a) == len(b) else f"{path} (length {len(a)} vs {len(b)})"
    same = a == b and type(a) is type(b) or (_number(a) and _number(b) and a == b)
    return None if same else path


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
    order = payload.get("order", evidence.order)
    if order not in ORDERS:
        report.fail(f"{name} order", f"the board's order is unknown or not desc/asc ({order!r}): pass --order")
        return None
    if evidence.order is not None and order != evidence.order:
        report.fail(f"{name} order", f"the signed order is {order}, the board's is {evidence.order}")
        return None
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
    if payload["score"] != entry.score:
        problems.append(f"score: the receipt says {payload['score']}, {upto} give {entry.score}")
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
    name = "summary"
    if not isinstance(summary, dict) or "signature" not in summary:
        report.fail(f"{name} signature", "the summary has no signature field")
        return None
    verified = _signed(report, name, summary["signature"], evidence, SUMMARY_TIMES)
    if verified is None:
        return None
    payload = verified.payload
    document = {k: v for k, v in summary.items() if k != "signature"}
    differs = [
        f"{where[1:]} is {_at(document, where)!r} here, {_at(payload, where)!r} in the signed payload"
        for key in sorted(set(payload) & set(document))
        if (where := first_difference(document[key], payload[key], f".{key}"))
    ]
    missing = sorted(set(payload) - set(document))
    for problem in differs + [f"{k} is signed but missing from the summary" for k in missing]:
        report.fail(f"{name} signed fields", problem)
    if differs or missing:
        return payload
    unsigned = sorted(set(document) - set(payload))
    report.ok(
        f"{name} signed fields", "every signed field is the summary's" + (f" (unsigned: {unsigned})" * bool(unsigned))
    )
    head = payload.get("log_head")
    if not isinstance(head, dict):
        report.fail(f"{name} head", "the signed summary has no log_head {seq, hash}")
        return payload
    order = _order(report, name, payload, evidence)
    if order is None or not _head(report, name, head.get("seq"), head.get("hash"), evidence):
        return payload
    check_standings(report, name, payload, replay(evidence.records[: head["seq"]], order), head["seq"])
    return payload


def _at(value: Any, where: str) -> Any:
    """The value at a path first_difference gave (None where it is missing)."""
    for part in where.replace("[", ".[").split(".")[1:]:
        part = part.split(" ")[0]
        try:
            value = value[int(part[1:-1])] if part.startswith("[") else value[part]
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return value


def check_standings(report: Report, name: str, payload: dict[str, Any], standings: Standings, seq: int) -> None:
    """total_players, and each `top` entry's rank and score (its `at` and `player` too, where it carries them)."""
    upto, failures = f"records 1..{seq}", 0
    if payload.get("total_players") != standings.total:
        report.fail(
            f"{name} total_players", f"the summary says {payload.get('total_players')}, {upto} give {standings.total}"
        )
        failures += 1
    top = payload.get("top")
    if not isinstance(top, list):
        report.fail(f"{name} top", "missing or not a list")
        return
    if len(top) > standings.total:
        report.fail(f"{name} top", f"lists {len(top)} entries, {upto} give {standings.total} players")
        failures += 1
    groups: dict[tuple[Any, str], list[str]] = {}
    for e in standings.entries:
        groups.setdefault((e.score, e.at), []).append(e.player)
    for i, (listed, entry) in enumerate(zip(top, standings.entries, strict=False)):
        where = f"{name} top[{i}]"
        if not isinstance(listed, dict):
            report.fail(where, "not an object")
            failures += 1
            continue
        if listed.get("rank") != i + 1:
            report.fail(where, f"rank: {listed.get('rank')!r}, its place in the list is rank {i + 1}")
            failures += 1
        if listed.get("score") != entry.score:
            report.fail(
                where, f"score: the summary says {listed.get('score')!r}, rank {i + 1} of {upto} has {entry.score}"
            )
            failures += 1
        elif "at" in listed and listed["at"] != entry.at:
            report.fail(
                where, f"at: the summary says {listed['at']!r}, rank {i + 1} of {upto} reached it at {entry.at}"
            )
            failures += 1
        elif "player" in listed:
            tied = groups.get((entry.score, entry.at), [])
            if listed["player"] not in tied:
                report.fail(
                    where, f"player: {listed['player']} is not the entry at rank {i + 1} of {upto} (or a tie of it)"
                )
                failures += 1
            else:
                tied.remove(listed["player"])
    for r, reward in enumerate(payload.get("rewards") or []):
        first, last = reward.get("ranks", [0, -1])
        expected = [e for e in top if isinstance(e, dict) and first <= e.get("rank", 0) <= last]
        if reward.get("players") != expected:
            report.fail(f"{name} rewards[{r}]", f"players are not the top's ranks {first}..{last}")
            failures += 1
    if not failures:
        report.ok(
            f"{name} standings",
            f"total_players {standings.total} and the top {len(top)} (rank and score) follow from {upto} "
            f"({standings.order})",
        )
