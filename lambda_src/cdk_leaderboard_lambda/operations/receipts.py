"""Signed rank receipts, computed from the period's log, and the JWKS that checks them (docs/PROVING.md).

A receipt's rank, score and total are the standings of the log's first `seq` records, replayed here by the rules
the verifier uses (docs/PROVING.md): `score`/`approve` set the commitment's entry to (score, at), `remove`/`erase`
delete it, `hide` takes it out of the standings until a `show`. So a receipt is consistent with the log by
construction, whatever the log's lag behind the entries: it says where the player stood at `seq`, and `head_hash`
pins that prefix of the chain.

Cost: a function instance keeps each board period's replay (the runtime's `replays`) and reads only the records
appended since, at most REPLAY_BUDGET_RECORDS per request; a longer catch-up answers 409 (log catching up,
retry_after_seconds) and goes on at the next request. The replays kept are bounded (an LRU of REPLAY_KEPT_PERIODS
periods holding REPLAY_KEPT_PLAYERS players in all): asking for many periods evicts the least recently asked, whose
next receipt replays its log again, rather than growing the instance until it falls over. A warm receipt costs
the entry read, the head read, the player's key read and one page of new records; the signature (pure-Python
Ed25519) costs a few milliseconds.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from ..domain import hashchain, periods
from ..domain.boards import DESC, BoardConfig
from ..shared import item_keys
from ..shared.clock import iso, ms
from ..shared.errors import Conflict, NotFound
from ..shared.limits import CLOSE_EVERY_MINUTES
from ..shared.lru import LRU

if TYPE_CHECKING:
    from ..domain.ports import ChainStore
    from ..domain.ports.runtime import Runtime

LOG_PAGE = 100  # records per read of the log store (its route's largest page)
REPLAY_BUDGET_RECORDS = 20_000  # records one request may replay: 200 reads at most
GENESIS_HASH = hashchain.GENESIS_HASH
# What one instance keeps replayed (docs/SECURITY.md, "Bounded memory"): the receipt route is public, so asking for
# period after period must not grow it without limit. A replayed player costs about 313 B (its commitment, score and
# time) and a period's standings about 400 B (tests/unit/test_memory_bounds.py measures both): 100,000 players are
# ~31 MB, an eighth of the default 256 MB function, and more than a receipt catches up with in a few requests.
REPLAY_KEPT_PLAYERS = 100_000
REPLAY_KEPT_PERIODS = 256  # board periods: far more than are live at once
REPLAYED_PLAYER_BYTES, REPLAYED_PERIOD_BYTES = 313, 400
REPLAY_KEPT_BYTES = REPLAY_KEPT_PLAYERS * REPLAYED_PLAYER_BYTES + REPLAY_KEPT_PERIODS * REPLAYED_PERIOD_BYTES
CLOSING_RETRY_SECONDS = CLOSE_EVERY_MINUTES * 60  # the scheduled closer's next run
SETTERS, DELETERS = frozenset({"score", "approve"}), frozenset({"remove", "erase"})


class CatchingUp(Conflict):
    """The replay of a long log did not finish within one request's budget: it goes on at the next one."""

    def __init__(self, message: str, replayed: int, head: int):
        super().__init__(message)
        self.replayed, self.head = replayed, head

    @property
    def details(self) -> dict:
        return {"replayed_seq": self.replayed, "head_seq": self.head, "retry_after_seconds": 1}


class LogCatchingUp(Conflict):
    """The player's entry is newer than the log's head: the log is appended off the request path."""

    def __init__(self, message: str, seq: int):
        super().__init__(message)
        self.seq = seq

    @property
    def details(self) -> dict:
        return {"log_seq": self.seq, "retry_after_seconds": 1}


class LogBroken(RuntimeError):
    """The log read back does not chain: a record missing, out of order, or not linked to the one before."""


@dataclass
class Standings:
    """The replay of a board period's log up to `seq`."""

    seq: int = 0
    head_hash: str = GENESIS_HASH
    entries: dict[str, tuple[Any, str]] = field(default_factory=dict)  # commitment -> (score, at)
    hidden: set[str] = field(default_factory=set)

    def apply(self, record: dict[str, Any]) -> None:
        if record.get("seq") != self.seq + 1 or record.get("prev_hash") != self.head_hash:
            raise LogBroken(f"log record {record.get('seq')} does not follow record {self.seq}")
        player, kind = record["player"], record["kind"]
        if kind in SETTERS:
            self.entries[player] = (_number(record["score"]), record["at"])
        elif kind in DELETERS:
            self.entries.pop(player, None)
            if kind == "erase":
                self.hidden.discard(player)
        elif kind == "hide":
            self.hidden.add(player)
        elif kind == "show":
            self.hidden.discard(player)
        self.seq, self.head_hash = record["seq"], record["hash"]

    def total(self) -> int:
        return sum(1 for player in self.entries if player not in self.hidden)

    def rank_of(self, player: str, order: str) -> int | None:
        """1 + the entries ahead (a better score, or the same one reached earlier); None if not in the standings.
        Entries equal on both score and time are not ahead of each other: each gets the best of their places."""
        if player not in self.entries or player in self.hidden:
            return None
        score, at = self.entries[player]

        def ahead(other: tuple[Any, str]) -> bool:
            better = other[0] > score if order == DESC else other[0] < score
            return better or (other[0] == score and other[1] < at)

        return 1 + sum(1 for p, e in self.entries.items() if p not in self.hidden and ahead(e))


def _number(value: Any) -> Any:
    """A score as JSON writes it: DynamoDB gives Decimals."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


class Replays:
    """Each board period's standings as replayed so far, for one function instance (the runtime's)."""

    def __init__(self) -> None:
        self._held: LRU[tuple[str, str], Standings] = LRU(REPLAY_KEPT_PERIODS, REPLAY_KEPT_PLAYERS, _players_held)
        self._lock = threading.Lock()

    def caught_up(self, log: ChainStore, board_id: str, period_id: str, head_seq: int) -> Standings:
        """The standings at exactly head_seq (read on from where this instance left off), or CatchingUp."""
        with self._lock:
            held = self._held.get((board_id, period_id))
            if held is None or held.seq > head_seq:  # new here, or a log that went back (a test's reset)
                held = Standings()
            try:
                return self._replay(log, board_id, period_id, head_seq, held)
            finally:  # kept, and weighed again, even when the budget ran out: the next request goes on from here
                self._held.put((board_id, period_id), held)

    @staticmethod
    def _replay(log: ChainStore, board_id: str, period_id: str, head_seq: int, held: Standings) -> Standings:
        budget = REPLAY_BUDGET_RECORDS
        while held.seq < head_seq:
            if budget <= 0:
                raise CatchingUp(
                    f"log catching up: this period's log has {head_seq} records and is still being read "
                    "for receipts: ask again in a moment",
                    held.seq,
                    head_seq,
                )
            page, _ = log.page(board_id, period_id, held.seq, min(LOG_PAGE, head_seq - held.seq))
            if not page:
                raise LogBroken(f"the log ends at {held.seq}, before its head {head_seq}")
            for record in page:
                if record["seq"] <= head_seq:
                    held.apply(record)
            budget -= len(page)
        return held


def _players_held(standings: Standings) -> int:
    return len(standings.entries) + len(standings.hidden)


class PeriodClosing(Conflict):
    """The period has ended and its closing summary is not stored yet: its receipts wait for the summary's head."""

    @property
    def details(self) -> dict:
        return {"retry_after_seconds": CLOSING_RETRY_SECONDS}


def receipt(runtime: Runtime, config: BoardConfig, period_ref: object, player_id: str) -> dict[str, str]:
    """{"receipt": compact JWS}: where the player stands in the period's log, signed. An open period: at the log's
    head. An ended one: at its closing summary's log_head, its frozen standings, so that no receipt can contradict
    the signed summary (docs/PROVING.md, "The closing rule"); 409 until the summary is stored."""
    now = runtime.clock.now()
    p = config.resolve_period(period_ref, now)
    log = runtime.chain
    evidence = config.evidence_id  # this generation's log and commitments (item_keys.py): never a deleted board's
    if periods.ended(p, now):
        head_seq = _closing_head(runtime, config, p, now)
    else:
        # The entry first: a player with none (never seen, removed, erased) is a 404 without reading or making a key.
        if not runtime.entries.get([(player_id, config.player_partition(p.period_id, player_id))]):
            raise NotFound(f"no player {player_id} on period {p.period_id} of board {config.board_id}")
        head = log.log_head(evidence, p.period_id)
        head_seq = head[0] if head else 0
    key = log.player_keys([player_id], int(runtime.clock.now().timestamp()), create=False).get(player_id)
    player = None if key is None else hashchain.commitment(key, evidence, p.period_id, player_id)
    standings = runtime.replays.caught_up(log, evidence, p.period_id, head_seq)
    if player is not None and player in standings.hidden and player in standings.entries:
        raise NotFound(f"player {player_id} is hidden on board {config.board_id}: no receipt while hidden")
    rank = None if player is None else standings.rank_of(player, config.order)
    if (player is None or rank is None) and periods.ended(p, now):
        raise NotFound(
            f"player {player_id} is not in the standings period {p.period_id} of board {config.board_id} closed with"
        )
    if player is None or rank is None:
        raise LogCatchingUp(
            f"log catching up: player {player_id}'s entry is not in the log of period {p.period_id} yet (it is "
            "appended from the table's stream, usually within seconds): ask again shortly",
            standings.seq,
        )
    score, _ = standings.entries[player]
    payload = {
        "board_id": config.board_id,
        "generation": config.generation,
        "period_id": p.period_id,
        "player_id": player_id,
        "player": player,
        "order": config.order,
        "rank": rank,
        "score": score,
        "total_players": standings.total(),
        "at": hashchain.timestamp(ms(now)),
        "iat": int(now.timestamp()),
        "seq": standings.seq,
        "head_hash": standings.head_hash,
    }
    return {"receipt": runtime.receipt_keys.get().sign_compact(payload)}


def _closing_head(runtime: Runtime, config: BoardConfig, p: periods.Period, now: datetime) -> int:
    """The log_head seq of an ended period's closing summary (PeriodClosing until it is stored)."""
    assert p.ends_at is not None
    summary = runtime.closings.get(config.evidence_id, item_keys.closing_sort_key(iso(p.ends_at), p.period_id))
    if summary is None and now > p.ends_at + timedelta(days=runtime.settings.period_retention_days):
        raise NotFound(f"period {p.period_id} was never closed and its entries have expired: it has no standings")
    if summary is None:
        raise PeriodClosing(
            f"period {p.period_id} ended at {p.next_reset()} and is not closed yet: its receipts are computed from "
            "its closing summary's standings once it is stored (the scheduled closer closes it within minutes)"
        )
    return int((summary.get("log_head") or {}).get("seq", 0))  # a summary from before the log: no standings


def jwks(runtime: Runtime) -> dict[str, list[dict[str, Any]]]:
    """The public keys that check receipts and closing summaries: the current one and every retired one."""
    return runtime.receipt_keys.get().jwks()
