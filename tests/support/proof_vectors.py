"""Spec vectors for the proof verifier, written from docs/PROVING.md and not from the server's code: a builder of
hash-chained logs, the player commitments, Ed25519 keys with a JWKS, and signed receipts and closing summaries.

The record hash here is computed with the standard library's JSON (sorted keys, no spaces): for integers and ASCII
strings, the only values these vectors hold, that is exactly RFC 8785's canonical form, so the builder does not
share the verifier's canonicalizer.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import io
import json
import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ZEROS = "0" * 64


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def canonical(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def rehash(record: dict[str, Any]) -> dict[str, Any]:
    record["hash"] = hashlib.sha256(canonical({k: v for k, v in record.items() if k != "hash"})).hexdigest()
    return record


def relink(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every prev_hash and hash again from the first record on (what a forger who rewrites history would do)."""
    previous = ZEROS
    for r in records:
        r["prev_hash"] = previous
        previous = rehash(r)["hash"]
    return records


@dataclass
class SigningKey:
    private: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)

    @property
    def raw_public(self) -> bytes:
        return self.private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    @property
    def kid(self) -> str:
        return hashlib.sha256(self.raw_public).hexdigest()[:16]

    def jwk(self, status: str, **times: str) -> dict[str, str]:
        """`times`: retired_at and revoked_at, as the JWKS publishes them (RFC 3339)."""
        return {"kty": "OKP", "crv": "Ed25519", "x": b64url(self.raw_public), "kid": self.kid, "alg": "EdDSA",
                "use": "sig", "status": status, **times}  # fmt: skip

    def sign(self, payload: dict[str, Any], kid: str | None = None) -> str:
        header = b64url(canonical({"alg": "EdDSA", "kid": kid or self.kid, "typ": "JWT"}))
        body = b64url(canonical(payload))
        return f"{header}.{body}.{b64url(self.private.sign(f'{header}.{body}'.encode()))}"


# After every time these vectors sign (a receipt's `at` 2026-12-02T04:00:00.000Z, the closing's T[10]).
RETIRED_AT = "2026-12-02T05:00:00.000Z"


def jwks(current: SigningKey, *retired: SigningKey, retired_at: str = RETIRED_AT) -> dict[str, Any]:
    return {"keys": [current.jwk("current"), *(k.jwk("retired", retired_at=retired_at) for k in retired)]}


@dataclass
class LogBuilder:
    board_id: str = "cup"
    period_id: str = "t-2026-cup"
    records: list[dict[str, Any]] = field(default_factory=list)
    player_keys: dict[str, bytes] = field(default_factory=dict)

    def commitment(self, player_id: str) -> str:
        key = self.player_keys.setdefault(player_id, secrets.token_bytes(32))
        message = f"{self.board_id}\n{self.period_id}\n{player_id}".encode()
        return hmac.new(key, message, hashlib.sha256).hexdigest()

    def add(self, kind: str, player_id: str, score: int | None, at: str) -> dict[str, Any]:
        record = {
            "seq": len(self.records) + 1,
            "at": at,
            "kind": kind,
            "score": score,
            "player": self.commitment(player_id),
            "prev_hash": self.records[-1]["hash"] if self.records else ZEROS,
        }
        self.records.append(rehash(record))
        if kind == "erase":
            del self.player_keys[player_id]  # the link is gone: a new change would get a new key
        return record

    def head(self, seq: int | None = None) -> dict[str, Any]:
        seq = len(self.records) if seq is None else seq
        return {"seq": seq, "hash": self.records[seq - 1]["hash"]}

    def export(self) -> dict[str, Any]:
        return {"records": copy.deepcopy(self.records)}

    def pages(self, size: int) -> list[dict[str, Any]]:
        chunks = [copy.deepcopy(self.records[i : i + size]) for i in range(0, len(self.records), size)]
        more = lambda i: {"next_cursor": f"c{i + 1}"} if i + 1 < len(chunks) else {}  # noqa: E731
        return [{"records": c, **more(i)} for i, c in enumerate(chunks)]

    def receipt_payload(self, player_id: str, rank: int, score: int, total: int, seq: int) -> dict[str, Any]:
        return {
            "board_id": self.board_id,
            "period_id": self.period_id,
            "player_id": player_id,
            "player": self.commitment(player_id),
            "rank": rank,
            "score": score,
            "total_players": total,
            "at": "2026-12-02T04:00:00.000Z",
            "iat": 1796184000,
            "seq": seq,
            "head_hash": self.records[seq - 1]["hash"],
            "order": "desc",
        }


T = [f"2026-12-01T10:{m:02d}:00.000Z" for m in range(60)]


def tournament() -> LogBuilder:
    """The vector the unit tests share (a desc board). After seq 6 (the closing's head) the standings are erin 130,
    bob 120, alice 100 (at T[1]), carol 100 (at T[3]); dave is hidden. Then bob is removed, carol erased, dave shown
    and frank ties alice exactly (100 at T[1]): after seq 10, erin 130, alice and frank 100 in either order, dave 90."""
    log = LogBuilder()
    log.add("score", "alice", 100, T[1])  # 1
    log.add("score", "bob", 120, T[2])  # 2
    log.add("score", "carol", 100, T[3])  # 3
    log.add("score", "dave", 90, T[4])  # 4
    log.add("hide", "dave", 90, T[6])  # 5
    log.add("approve", "erin", 130, T[5])  # 6: a quarantined score approved; `at` is its submission's time
    log.add("remove", "bob", 120, T[20])  # 7
    log.add("erase", "carol", 100, T[21])  # 8
    log.add("show", "dave", 90, T[22])  # 9
    log.add("score", "frank", 100, T[1])  # 10
    return log


def closing_summary(log: LogBuilder, key: SigningKey, seq: int = 6) -> dict[str, Any]:
    top = [
        {"rank": 1, "player_id": "erin", "player_name": "Erin", "score": 130},
        {"rank": 2, "player_id": "bob", "player_name": "Bob", "score": 120},
        {"rank": 3, "player_id": "alice", "player_name": "Alice", "score": 100},
        {"rank": 4, "player_id": "carol", "player_name": "Carol", "score": 100},
    ]
    summary = {
        "board_id": log.board_id,
        "period_id": log.period_id,
        "kind": "tournament",
        "status": "closed",
        "closed_at": T[10],
        "order": "desc",
        "top_size": 100,
        "total_players": 4,
        "top": top,
        "rewards": [{"reward": "gold", "ranks": [1, 1], "players": [top[0]]}],
        "log_head": log.head(seq),
    }
    return sign_summary(summary, key)


def sign_summary(summary: dict[str, Any], key: SigningKey) -> dict[str, Any]:
    unsigned = {k: v for k, v in summary.items() if k != "signature"}
    return {**unsigned, "signature": key.sign(unsigned)}


def verify_files(
    tmp: Path,
    log: dict[str, Any],
    key_set: dict[str, Any],
    summary: dict[str, Any] | None = None,
    receipts: Iterable[str] = (),
    extra: Iterable[str] = (),
) -> tuple[int, list[str]]:
    """leaderboard_verify over files, as a user saves them: the log's export, the JWKS and the summary written to
    `tmp`, each receipt's JWS on the command line; its exit status and printed lines."""
    from leaderboard_verify.cli import run

    (tmp / "log.json").write_text(json.dumps(log))
    (tmp / "jwks.json").write_text(json.dumps(key_set))
    argv = ["--log", str(tmp / "log.json"), "--keys", str(tmp / "jwks.json"), *extra]
    if summary is not None:
        (tmp / "summary.json").write_text(json.dumps(summary))
        argv += ["--summary", str(tmp / "summary.json")]
    for token in receipts:
        argv += ["--receipt", token]
    out = io.StringIO()
    status = run(argv, out)
    return status, out.getvalue().splitlines()
