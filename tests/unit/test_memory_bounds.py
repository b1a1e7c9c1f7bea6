"""Bounded memory on public routes: a million distinct (board, period, player) keys fed through the
receipts' replay cache, and a million board ids through the board cache, leave the instance under each cache's
stated budget: the replay cache measured with tracemalloc (what Python allocated and still holds) and its own count,
the board cache by its count.

The cheapest path that still runs the real cache code: Replays.caught_up over a log that makes its records on
demand (the chain store's page(), as DynamoDB gives them), and BoardCache.put/get. Before the
bound, the replay cache kept every period ever asked and grew past 300 MB here; the test stops at the budget."""

from __future__ import annotations

import os
import tracemalloc
from dataclasses import dataclass
from typing import Any, cast

from cdk_leaderboard_lambda.domain.boards import BoardConfig
from cdk_leaderboard_lambda.operations import board_catalog, receipts
from cdk_leaderboard_lambda.operations.board_catalog import BoardCache
from cdk_leaderboard_lambda.operations.receipts import Replays
from cdk_leaderboard_lambda.shared.lru import LRU

PLAYERS_PER_PERIOD = 1000  # ten pages of the log each
PERIODS = 1000  # x 1000 players: a million distinct (board, period, player)
TRACED_PERIODS = 115  # 115,000 players: past the budget (~100,000), cheap enough to trace (tracemalloc is ~10x)
CHECK_EVERY = 50  # periods between two looks at the memory (stop as soon as it is over)
RSS_SLACK = 16_000_000  # the allocator's arenas and free lists around what the cache holds


def _rss() -> int:
    """This process's resident memory (Linux), what Lambda's memory limit is on."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class MadeLog:
    """A ChainStore's page() whose every board period holds PLAYERS_PER_PERIOD score records, each a distinct
    player's commitment (64 hex characters, as hashchain.commitment makes them) with its own time string."""

    def __init__(self) -> None:
        self.pages = 0

    def page(self, board_id: str, period_id: str, after_seq: int, limit: int) -> tuple[list[dict[str, Any]], bool]:
        self.pages += 1
        last = min(after_seq + limit, PLAYERS_PER_PERIOD)
        salt = hash((board_id, period_id)) & 0xFFFFFFFF
        records = [
            {
                "seq": seq,
                "prev_hash": receipts.GENESIS_HASH if seq == 1 else f"{salt:08x}{seq - 1:056x}",
                "hash": f"{salt:08x}{seq:056x}",
                "player": f"{salt:08x}{seq:056x}",
                "kind": "score",
                "score": salt + seq,
                "at": f"2026-12-04T00:{seq // 60 % 60:02d}:{seq % 60:02d}.{salt % 1000:03d}Z",
            }
            for seq in range(after_seq + 1, last + 1)
        ]
        return records, last < PLAYERS_PER_PERIOD


def _held(replays: Replays) -> LRU:
    return replays._held  # the cache's own count: what the bound is on


def test_a_million_players_replayed_stay_under_the_replay_budget() -> None:
    """1,000 board periods of 1,000 players each through the replay cache: the process's resident memory grows by
    at most REPLAY_KEPT_BYTES (and the allocator's slack), the cache holds at most REPLAY_KEPT_PLAYERS players and
    REPLAY_KEPT_PERIODS periods, and the last period asked is whole (its standings answer a receipt)."""
    replays, log = Replays(), MadeLog()
    start, budget = _rss(), receipts.REPLAY_KEPT_BYTES + RSS_SLACK
    for n in range(PERIODS):
        standings = replays.caught_up(log, f"board-{n % 97}", f"daily:{n}", PLAYERS_PER_PERIOD)
        if n % CHECK_EVERY == CHECK_EVERY - 1:
            grown = _rss() - start
            assert grown <= budget, f"after {(n + 1) * PLAYERS_PER_PERIOD:,} players: {grown:,} B, over {budget:,} B"
    assert len(_held(replays)) <= receipts.REPLAY_KEPT_PERIODS
    assert receipts.REPLAY_KEPT_PLAYERS - PLAYERS_PER_PERIOD < _held(replays).weight <= receipts.REPLAY_KEPT_PLAYERS
    assert standings.seq == PLAYERS_PER_PERIOD and standings.total() == PLAYERS_PER_PERIOD
    assert log.pages == PERIODS * PLAYERS_PER_PERIOD // receipts.LOG_PAGE  # each record read once: the cache used


def test_what_the_replay_cache_holds_is_its_stated_bytes() -> None:
    """Traced by tracemalloc, past the budget: what the cache holds stays under REPLAY_KEPT_BYTES, and is within a
    fifth of its players x REPLAYED_PLAYER_BYTES + its periods x REPLAYED_PERIOD_BYTES (the figures are honest)."""
    replays, log = Replays(), MadeLog()
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        for n in range(TRACED_PERIODS):
            replays.caught_up(log, "cup", f"daily:{n}", PLAYERS_PER_PERIOD)
        held = tracemalloc.get_traced_memory()[0] - start
    finally:
        tracemalloc.stop()
    assert held <= receipts.REPLAY_KEPT_BYTES, f"{held:,} B held, over {receipts.REPLAY_KEPT_BYTES:,} B"
    stated = (
        _held(replays).weight * receipts.REPLAYED_PLAYER_BYTES + len(_held(replays)) * receipts.REPLAYED_PERIOD_BYTES
    )
    assert 0.8 * stated <= held <= 1.2 * stated, (held, stated)


def test_an_evicted_period_is_replayed_again_from_its_start_with_the_same_standings() -> None:
    """Eviction costs the next receipt of that period a replay, never a wrong answer."""
    replays, log = Replays(), MadeLog()
    first = replays.caught_up(log, "cup", "daily:0", PLAYERS_PER_PERIOD)
    before = (first.seq, first.head_hash, dict(first.entries))
    for n in range(1, 1 + receipts.REPLAY_KEPT_PLAYERS // PLAYERS_PER_PERIOD):  # the players' budget, full
        replays.caught_up(log, "cup", f"daily:{n}", PLAYERS_PER_PERIOD)
    assert ("cup", "daily:0") not in _held(replays)
    pages = log.pages
    again = replays.caught_up(log, "cup", "daily:0", PLAYERS_PER_PERIOD)
    assert log.pages == pages + PLAYERS_PER_PERIOD // receipts.LOG_PAGE and again is not first
    assert (again.seq, again.head_hash, again.entries) == before


def test_a_period_over_the_player_budget_is_kept_alone_while_it_is_read() -> None:
    """A period with more players than the budget still catches up across requests (the entry just put is never
    evicted), and the next period asked evicts it."""
    lru: LRU[str, list[int]] = LRU(4, 10, len)
    lru.put("small", [1, 2])
    lru.put("big", list(range(25)))
    assert "big" in lru and "small" not in lru and lru.weight == 25
    lru.put("next", [1])
    assert "big" not in lru and lru.weight == 1 and len(lru) == 1


def test_the_lru_evicts_the_least_recently_used_and_weighs_a_value_again_when_put_again() -> None:
    lru: LRU[str, list[int]] = LRU(2, 10, len)
    lru.put("a", [1])
    lru.put("b", [1])
    assert lru.get("a") == [1]  # now the most recent
    lru.put("c", [1])
    assert "b" not in lru and "a" in lru and "c" in lru
    grown = lru.get("a")
    assert grown is not None
    grown.extend(range(9))  # a replay read on: weighed again when put again, over the weight: "c" goes
    lru.put("a", grown)
    assert lru.weight == 10 and "c" not in lru and len(lru) == 1
    assert lru.pop("a") == grown and lru.weight == 0 and lru.pop("a") is None


def test_a_million_board_ids_stay_under_the_board_cache_budget() -> None:
    """A million distinct board ids through the board cache: it keeps the BOARD_CACHE_KEPT most recent. The cache
    reads only a config's board_id, so each is a stand-in naming it (a million real configs take ~20 s to make)."""
    cache = BoardCache()
    for n in range(1_000_000):
        cache.put(cast(BoardConfig, Named(f"b{n}")))
    assert len(cache.read_at) == board_catalog.BOARD_CACHE_KEPT
    assert cache.get("b999999") is not None and cache.get(f"b{999_999 - board_catalog.BOARD_CACHE_KEPT}") is None


@dataclass(frozen=True)
class Named:
    board_id: str
