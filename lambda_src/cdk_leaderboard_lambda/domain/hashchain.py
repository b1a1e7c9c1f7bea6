"""The hash-chained log of every accepted change to a board period's entries (issue 25; docs/PROVING.md).

A record is a JSON object with exactly `seq`, `at`, `kind`, `score`, `player`, `prev_hash` and `hash`: `hash` is
the lowercase hex SHA-256 of the record without `hash` in RFC 8785 canonical JSON, `prev_hash` the previous
record's `hash` (64 zeros for seq 1), `player` the player's commitment: HMAC-SHA256 with the player's own random
key over "{board_id}\\n{period_id}\\n{player_id}". Erasure deletes the key: the records stay as they are (the chain
still verifies) and nothing links their commitments back to the player.

Records are appended off the request path, from the scores table's stream (chain_appending.py); this module is
the format and the port to the store (data/chain.py)."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import rfc8785

from ..shared import item_keys
from ..shared.errors import BrokenRule
from . import cursors
from .ports import ChainStore, Head

if TYPE_CHECKING:
    from .boards import BoardConfig
    from .ports.runtime import Runtime

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


def commitment_of(chain: ChainStore, board_id: str, period_id: str, player_id: str, now: datetime) -> str | None:
    """The player's commitment in a board period's log, if they have a key (a receipt names it): one read, nothing
    made."""
    found = chain.player_keys([player_id], int(now.timestamp()), create=False)
    return commitment(found[player_id], board_id, period_id, player_id) if player_id in found else None


def page(runtime: Runtime, config: BoardConfig, period_ref: str, limit: int, cursor: str | None) -> dict:
    """A page of a board period's log in seq order (GET .../periods/{period_id}/log): one Query of the store. The
    cursor is bound to the board period and issued afresh with each page (records never change, so an export of
    any length may take as long as it needs, a cursor lifetime per page). It takes the runtime: the log's store,
    the clock and the cursor keys."""
    p = config.resolve_period(period_ref, runtime.clock.now())
    binding = "log\n" + item_keys.leaderboard_id(config.evidence_id, p.period_id)
    after = 0
    if cursor is not None:
        position = cursors.read(runtime, cursor, binding)
        if not position.last_key.isdigit():
            raise BrokenRule(cursors.INVALID)
        after = int(position.last_key)
    records, more = runtime.chain.page(config.evidence_id, p.period_id, after, limit)
    answer: dict[str, Any] = {"records": records}
    if more:
        answer["next_cursor"] = cursors.issue(runtime, binding, str(records[-1]["seq"]), records[-1]["seq"])
    return answer
