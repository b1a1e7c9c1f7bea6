"""Synthetic players, and loading them onto a board fast.

Entries are built by the service's own `make_entry` (so they have exactly the item shape the
handlers write) and handed to ONE bulk-load function, `bulk_loader()`: the data layer's
`service.bulk_load(config, entries)` when it exists (it must keep whatever derived data the
rankings need, e.g. score-bucket counters, in step), else `store.put_entries(entries)`.
The loader knows nothing about how rankings are computed.

bulk_load is called ONCE with every entry (it may rebuild derived data from the index at the end,
so it must see the whole load); it gets `threads=N` if its signature has that parameter.
"""

from __future__ import annotations

import inspect
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
    from leaderboard.simulation import random_name  # lambda_src is importable once the environment is set

    rng = random.Random(seed)
    for i in range(count):
        name = random_name(rng)
        # Reached over the last 30 days, so equal scores rank by time (then id).
        yield Player(player_id(i), name, synthetic_score(rng), now_ms - rng.randint(0, 30 * DAY_MS))


def bulk_loader() -> tuple[str, Callable, bool]:
    """(name, fn(config, entries), whether fn takes `threads=`): the data layer's bulk load if it has one."""
    from leaderboard import service, store

    for module in (service, store):
        fn = getattr(module, "bulk_load", None)
        if callable(fn):
            params = inspect.signature(fn).parameters
            name = f"{module.__name__.rsplit('.', 1)[-1]}.bulk_load"
            call = fn if len(params) >= 2 else (lambda config, entries, _fn=fn, **kw: _fn(entries, **kw))
            return name, call, "threads" in params
    return "store.put_entries", lambda config, entries: store.put_entries(entries), False


def _entries(config, period, people: Iterable[Player]) -> Iterator:
    from leaderboard import service

    for p in people:
        yield service.make_entry(config, period, p.player_id, p.name, p.score, p.reached_ms, None)


def load(config, period, people: Iterable[Player], count: int, threads: int, progress: bool = True) -> dict:
    """Write every player's entry onto one period of the board; returns how (loader, threads used).

    With the data layer's bulk_load: ONE call with every entry (it may rebuild derived data at the
    end, so it must see the whole load), on `threads` threads if it takes that parameter. Without
    it: batched puts from `threads` threads over disjoint chunks.
    """
    name, fn, takes_threads = bulk_loader()
    bar = tqdm(
        total=count,
        unit="player",
        desc=f"loading via {name}",
        disable=not progress,
        smoothing=0.05,
        mininterval=0.1 if sys.stderr.isatty() else 15.0,
    )  # a log file gets a line per 15 s

    def counted(entries: Iterable) -> Iterator:
        for e in entries:
            yield e
            bar.update(1)

    with bar:
        if name != "store.put_entries":
            used = threads if takes_threads else 1
            kwargs = {"threads": threads} if takes_threads else {}
            bar.set_description(f"loading via {name} ({used} thread{'s' * (used > 1)})")
            fn(config, counted(_entries(config, period, people)), **kwargs)
            return {"loader": name, "threads": used}
        _threaded(fn, config, counted(_entries(config, period, people)), threads)
        bar.set_description(f"loading via {name} ({threads} threads)")
        return {"loader": name, "threads": threads}


def _threaded(fn: Callable, config, entries: Iterator, threads: int) -> None:
    """fn(config, chunk) on disjoint chunks from a pool, a bounded number in flight (flat memory at any N)."""

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
            pending.add(pool.submit(fn, config, chunk))
        for f in pending:
            f.result()
