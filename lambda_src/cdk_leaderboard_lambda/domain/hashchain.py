"""The hash-chained log of every accepted change to a board period's entries (docs/PROVING.md).

A record is a JSON object with exactly `seq`, `at`, `kind`, `score`, `player`, `prev_hash` and `hash`: `hash` is
the lowercase hex SHA-256 of the record without `hash` in RFC 8785 canonical JSON, `prev_hash` the previous
record's `hash` (64 zeros for seq 1), `player` the player's commitment: HMAC-SHA256 with the player's own random
key over "{board_id}\\n{period_id}\\n{player_id}". Erasure deletes the key: the records stay as they are (the chain
still verifies) and nothing links their commitments back to the player.

Records are appended off the request path, from the scores table's stream (operations/chain_appending.py) and read
a page at a time (operations/log_pages.py); this module is the format: pure rules, no store."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from typing import Any

import rfc8785

from .ports import Head

GENESIS_HASH = "0" * 64
KINDS = ("score", "approve", "remove", "hide", "show", "erase")
FIELDS = ("seq", "at", "kind", "score", "player", "prev_hash", "hash")

# The most records one append takes: DynamoDB's transaction takes 100 items, the head and per record the record
# and the mark of its stream record (data/chain.py).
MAX_APPEND = 49


def canonical(value: Any) -> bytes:
    """RFC 8785 (JSON Canonicalization Scheme) bytes of a JSON value."""
    return rfc8785.dumps(value)


def record_hash(record: dict[str, Any]) -> str:
    """The `hash` of a record: SHA-256 of the record without `hash`, canonical."""
    return hashlib.sha256(canonical({k: v for k, v in record.items() if k != "hash"})).hexdigest()


def commitment(key: bytes, board_id: str, period_id: str, player_id: str) -> str:
    return hmac.new(key, f"{board_id}\n{period_id}\n{player_id}".encode(), hashlib.sha256).hexdigest()


def timestamp(ms: int) -> str:
    """RFC 3339 UTC with milliseconds: 2026-12-02T03:04:05.123Z."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def new_record(seq: int, prev_hash: str, at_ms: int, kind: str, score: int | None, player: str) -> dict[str, Any]:
    """The record following `prev_hash` at `seq`, with its hash."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}")
    record: dict[str, Any] = {
        "seq": seq,
        "at": timestamp(at_ms),
        "kind": kind,
        "score": score,
        "player": player,
        "prev_hash": prev_hash,
    }
    return {**record, "hash": record_hash(record)}


def chain(head: Head | None, changes: list[tuple[int, str, int | None, str]]) -> list[dict[str, Any]]:
    """The records of `changes` [(at ms, kind, score, commitment)] after `head`, linked."""
    seq, prev = head if head else (0, GENESIS_HASH)
    records = []
    for at_ms, kind, score, player in changes:
        seq += 1
        record = new_record(seq, prev, at_ms, kind, score, player)
        records.append(record)
        prev = record["hash"]
    return records
