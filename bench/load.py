"""Synthetic players, and loading them onto a board fast.

Entries are built by the write path's own `make_entry` (so they have exactly the item shape the handlers
write), written with batched puts, and counted once by `counter_upkeep.rebuild`.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass

from tqdm import tqdm

CHUNK = 1000  # entries per call in the threaded fallback (40 BatchWriteItem requests of 25)
DAY_MS = 86_400_000

PLATEAU = 25_000  # a score many players reach exactly (a level cap): a block of exact ties


@dataclass(frozen=True)
class Player:
    player_id: str
    name: str
    score: int
    reached_ms: int


def player_id(i: int) -> str:
    return f"p{i:07d}"


def synthetic_score(rng: random.Random) -> int:
    """Long-tailed like real games (log-normal: median ~5,000, a few 100x that), with exact ties:
    integer scores collide often, and 1% of players sit exactly on a plateau."""
    if rng.random() < 0.01:
        return PLATEAU
    return int(rng.lognormvariate(8.5, 1.2))


def players(count: int, seed: int, now_ms: int) -> Iterator[Player]:
    from cdk_leaderboard_lambda.domain.simulation import (
        random_name,  # lambda_src is importable once the environment is set
    )

    rng = random.Random(seed)
    for i in range(count):
        name = random_name(rng)
        # Reached over the last 30 days, so equal scores rank by time (then id).
        yield Player(player_id(i), name, synthetic_score(rng), now_ms - rng.randint(0, 30 * DAY_MS))


def _entries(config, period, people: Iterable[Player]) -> Iterator:
    from cdk_leaderboard_lambda.domain.score_writes import make_entry
    from local import invocation

    for p in people:
        yield make_entry(
            config,
            period,
            p.player_id,
            p.name,
            p.score,
            p.reached_ms,
            None,
            retention_days=invocation.settings().period_retention_days,
        )


def load(config, period, people: Iterable[Player], count: int, threads: int, progress: bool = True) -> dict:
    """Write every player's entry onto one period of the board, then count it once.

    Entries go in with batched puts from `threads` threads over disjoint chunks; the rank counters are then
    rebuilt from the index in one pass (counter_upkeep.rebuild), as the stream consumer would have built them
    record
    by record. The stream's records of the load are left for the caller to skip.
    """
    from cdk_leaderboard_lambda.operations import counter_upkeep
    from local import invocation

    runtime = invocation.runtime()
    entries = runtime.entries  # the threads' puts go to the caller's runtime's store

    bar = tqdm(
        total=count,
        unit="player",
        desc=f"loading ({threads} threads)",
        disable=not progress,
        smoothing=0.05,
        mininterval=0.1 if sys.stderr.isatty() else 15.0,
    )  # a log file gets a line per 15 s

    def counted(items: Iterable) -> Iterator:
        for e in items:
            yield e
            bar.update(1)

    with bar:
        _threaded(
            lambda config, chunk: entries.put_new(chunk), config, counted(_entries(config, period, people)), threads
        )
    for part in config.partitions(period.period_id):
        counter_upkeep.rebuild(runtime.counters, entries, runtime.settings, part)
    return {"loader": "entries.put_new + counter_upkeep.rebuild", "threads": threads}


def _threaded(fn: Callable, config, entries: Iterator, threads: int) -> None:
    """fn(config, chunk) on disjoint chunks from a pool, a bounded number in flight (flat memory at any N)."""
    from local import invocation

    def chunks() -> Iterator[list]:
        chunk: list = []
        for e in entries:
            chunk.append(e)
            if len(chunk) == CHUNK:
                yield chunk
                chunk = []
        if chunk:
            yield chunk

    with ThreadPoolExecutor(max_workers=threads) as pool:
        pending: set = set()
        for chunk in chunks():
            if len(pending) >= threads * 2:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    f.result()
            pending.add(pool.submit(invocation.carried(fn), config, chunk))
        for f in pending:
            f.result()
