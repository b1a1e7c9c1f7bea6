"""Realistic demo data: long-tailed scores, consistent across periods (today <= this week <= all-time)."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from datetime import datetime
from typing import TYPE_CHECKING

from ..shared.model import Entry
from . import boards, periods, score_writes

if TYPE_CHECKING:
    from .ports import EntryStore

_FIRST = (
    "Ada",
    "Bea",
    "Cy",
    "Dex",
    "Eve",
    "Finn",
    "Gus",
    "Hana",
    "Ivo",
    "Juno",
    "Kai",
    "Lux",
    "Mina",
    "Nico",
    "Oz",
    "Pia",
    "Quin",
    "Rex",
    "Sol",
    "Tao",
    "Uma",
    "Vex",
    "Wren",
    "Xia",
    "Yuki",
    "Zed",
)
_SECOND = ("Blaze", "Frost", "Nova", "Pixel", "Rogue", "Storm", "Viper", "Echo", "Drift", "Bolt", "Onyx", "Flux")


def random_name(rng: random.Random) -> str:
    """A gamer tag such as NovaBlaze42 (the simulator's and the benchmark's players)."""
    return f"{rng.choice(_FIRST)}{rng.choice(_SECOND)}{rng.randint(1, 99)}"


def _players(count: int, rng: random.Random) -> Iterator[tuple[str, str, list[int]]]:
    for _ in range(count):
        player_id = f"sim-{secrets.token_hex(5)}"
        name = random_name(rng)
        # Log-normal: most players score a few thousand, a few score far more (as real games do).
        all_time = int(rng.lognormvariate(8.5, 1.0))
        weekly = int(all_time * rng.uniform(0.4, 1.0))
        daily = int(weekly * rng.uniform(0.3, 1.0))
        yield player_id, name, [all_time, daily, weekly]


def simulate(entries: EntryStore, count: int, now: datetime, retention_days: int, seed: int | None = None) -> dict:
    """Fresh players on the default board's three periods current at `now`, written to `entries` in batches (kept
    `retention_days` past their period, as submissions are)."""
    rng = random.Random(seed)
    board = boards.DEFAULT_BOARD
    current = periods.current(now, board.periods)  # all-time, daily, weekly
    base_ms = int(now.timestamp() * 1000)

    def made() -> Iterator[Entry]:
        for player_id, name, scores in _players(count, rng):
            for period, score in zip(current, scores, strict=True):
                reached = base_ms - rng.randint(0, 3_600_000)  # spread over the last hour so ties break
                yield score_writes.make_entry(
                    board,
                    period,
                    player_id,
                    name,
                    score,
                    reached,
                    None,
                    retention_days=retention_days,
                )

    written = entries.put_new(made())  # new ids: nothing to compare; counters follow from the stream
    return {"players": count, "writes": written, "boards": [board.leaderboard_id(p.period_id) for p in current]}
