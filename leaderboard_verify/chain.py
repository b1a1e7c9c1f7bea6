"""The log's records and their chain, checked from the fixed format: each record is a JSON object with exactly
`seq`, `at`, `kind`, `score`, `player`, `prev_hash` and `hash`; `hash` is the lowercase hex SHA-256 of the record
without `hash` in RFC 8785 canonical JSON; the first `prev_hash` is 64 zeros; `seq` runs 1, 2, 3 ... without gaps."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from typing import Any

import rfc8785

GENESIS = "0" * 64
FIELDS = ("seq", "at", "kind", "score", "player", "prev_hash", "hash")
KINDS = ("score", "approve", "remove", "hide", "show", "erase")
SCORED_KINDS = ("score", "approve")  # the kinds that set an entry: their score cannot be null
HEX64 = re.compile(r"[0-9a-f]{64}")
AT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z")


class Broken(Exception):
    """A record that breaks the format or the chain: where (its seq or position) and which field."""

    def __init__(self, position: int, where: str, field: str, detail: str) -> None:
        super().__init__(f"{where}: {field}: {detail}")
        self.position, self.where, self.field, self.detail = position, where, field, detail


def record_hash(record: dict[str, Any]) -> str:
    """The hash a record must carry: SHA-256 over the canonical JSON of every field but `hash`."""
    body = {k: v for k, v in record.items() if k != "hash"}
    return hashlib.sha256(rfc8785.dumps(body)).hexdigest()


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _where(position: int, record: object) -> str:
    seq = record.get("seq") if isinstance(record, dict) else None
    if isinstance(seq, int) and not isinstance(seq, bool):
        return f"record seq {seq} (position {position})"
    return f"record at position {position}"


def check_format(position: int, record: object) -> None:
    """One record on its own: the fields, their types and forms (raises Broken)."""
    where = _where(position, record)
    if not isinstance(record, dict):
        raise Broken(position, where, "record", f"is {type(record).__name__}, not a JSON object")
    missing = [f for f in FIELDS if f not in record]
    if missing:
        raise Broken(position, where, missing[0], "missing")
    extra = sorted(set(record) - set(FIELDS))
    if extra:
        raise Broken(position, where, extra[0], "not a field of the format")
    seq = record["seq"]
    if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1:
        raise Broken(position, where, "seq", f"{seq!r} is not a positive integer")
    if not isinstance(record["at"], str) or not AT.fullmatch(record["at"]):
        raise Broken(
            position, where, "at", f"{record['at']!r} is not RFC 3339 UTC with milliseconds (2026-12-02T03:04:05.123Z)"
        )
    if record["kind"] not in KINDS:
        raise Broken(position, where, "kind", f"{record['kind']!r} is not one of {', '.join(KINDS)}")
    score = record["score"]
    if score is None and record["kind"] in SCORED_KINDS:
        raise Broken(position, where, "score", f"null on a {record['kind']} record")
    if score is not None and not _is_number(score):
        raise Broken(position, where, "score", f"{score!r} is not a number or null")
    for name in ("player", "prev_hash", "hash"):
        if not isinstance(record[name], str) or not HEX64.fullmatch(record[name]):
            raise Broken(position, where, name, f"{record[name]!r} is not 64 lowercase hex digits")


def check_chain(records: Sequence[object]) -> None:
    """Every record in order: its format, its seq (the position), its prev_hash (the record before's hash) and its
    hash (its own content). Raises Broken at the first record that fails."""
    previous = GENESIS
    for position, record in enumerate(records, start=1):
        check_format(position, record)
        assert isinstance(record, dict)
        where = _where(position, record)
        seq = record["seq"]
        if seq > position:
            if any(isinstance(r, dict) and r.get("seq") == position for r in records[position:]):
                raise Broken(position, where, "seq", f"expected seq {position}: records are out of order")
            gap = f"record {position} is" if seq == position + 1 else f"records {position}..{seq - 1} are"
            raise Broken(position, where, "seq", f"expected seq {position}: {gap} missing")
        if seq < position:
            raise Broken(position, where, "seq", f"expected seq {position}: records are out of order or repeated")
        if record["prev_hash"] != previous:
            what = "64 zeros (the first record)" if position == 1 else f"record {position - 1}'s hash {previous}"
            raise Broken(position, where, "prev_hash", f"is {record['prev_hash']}, expected {what}")
        computed = record_hash(record)
        if record["hash"] != computed:
            raise Broken(
                position, where, "hash", f"is {record['hash']}, the record's canonical JSON hashes to {computed}"
            )
        previous = record["hash"]
