"""Sampling one operation: each implementation's calls metered and timed, the two interleaved on the same subjects,
under a sample count and a time budget (bench/runner.py's Bench runs the operations through it)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from bench import api as api_mod
from bench.measure import Sample, summarize

WARMUP = 3  # untimed calls of each implementation before an operation's samples

LABELS = {
    "submit_improves": "submit: existing player, better score",
    "submit_refused": "submit: existing player, not better",
    "submit_new": "submit: new player",
    "top25": "top 25",
    "player_stats": "player stats, one board (window=0)",
    "around_me": "around-me (window=5)",
    "page100": "page of 100 from the middle (cursor)",
}


@dataclass
class Failures:
    """Calls that did not succeed (a status other than the expected one): measured, but not the operation's cost."""

    calls: int = 0
    failed: list[str] = field(default_factory=list)

    def expect(self, ok: bool, what: str) -> None:
        self.calls += 1
        if not ok:
            self.failed.append(what)


class Sampling:
    """What Bench measures with: its options, the handlers' and the original design's meters, and its results."""

    opts: Any
    handler_meter: Any
    original_meter: Any
    results: dict[str, Any]

    def _handler(self, call: Callable[..., api_mod.Response], *args: Any) -> tuple[api_mod.Response, Sample]:
        """One handler call, metered; its time is the handler's own (api.Response.seconds)."""
        self.handler_meter.reset()
        resp = call(*args)
        return resp, Sample(self.handler_meter.take(), resp.seconds)

    def _original(self, call: Callable[..., Any], *args: Any) -> tuple[Any, Sample]:
        """One call of the original design, metered and timed."""
        self.original_meter.reset()
        started = time.perf_counter()
        out = call(*args)
        seconds = time.perf_counter() - started
        return out, Sample(self.original_meter.take(), seconds)

    def _bars(self) -> bool:
        """Per-operation progress bars only on a terminal (the load's bar is always shown)."""
        return self.opts.progress and sys.stderr.isatty()

    def _enough(self, n: int, started: float) -> bool:
        return n >= self.opts.samples or (
            n >= self.opts.min_samples and time.monotonic() - started > self.opts.max_seconds
        )

    def compare_reads(
        self,
        key: str,
        subjects: list,
        handler_call: Callable,
        original_call: Callable,
    ) -> None:
        """Both implementations on the same subjects, interleaved."""
        for s in subjects[-WARMUP:]:
            handler_call(s), original_call(s)
        subjects = subjects[:-WARMUP]
        mine, theirs, verdict = [], [], Failures()
        started = time.monotonic()
        with tqdm(total=self.opts.samples, desc=LABELS[key], disable=not self._bars(), leave=False) as bar:
            for i, s in enumerate(subjects):
                if self._enough(i, started):
                    break
                if i % 2 == 0:
                    (h, hs), (_, os_) = self._handler(handler_call, s), self._original(original_call, s)
                else:
                    (_, os_), (h, hs) = self._original(original_call, s), self._handler(handler_call, s)
                mine.append(hs)
                theirs.append(os_)
                verdict.expect(h.status == 200, f"{LABELS[key]}: {h.status} {str(h.body)[:200]}")
                bar.update(1)
            # The original design ran out of its time budget: the handlers, far cheaper, go on alone
            # up to --samples (their own budget), so their p99 rests on as many samples as asked for.
            started = time.monotonic()
            for s in subjects[len(mine) :]:
                if self._enough(len(mine), started):
                    break
                h, hs = self._handler(handler_call, s)
                mine.append(hs)
                verdict.expect(h.status == 200, f"{LABELS[key]}: {h.status} {str(h.body)[:200]}")
                bar.update(1)
        self._record(key, mine, theirs, verdict)

    def _record(self, key: str, mine: list[Sample], theirs: list[Sample], verdict: Failures) -> None:
        op = {"label": LABELS[key], "handlers": summarize(mine), "original": summarize(theirs)}
        op["calls"] = {"made": verdict.calls, "failed": verdict.failed}
        self.results["operations"][key] = op
        now, orig = op["handlers"], op["original"]
        print(
            f"  {LABELS[key]:<42} requests {now['requests']['mean']:>6.1f} vs {orig['requests']['mean']:>7.1f}   "
            f"read units {now['read_units']['mean']:>8.1f} vs {orig['read_units']['mean']:>9.1f}   "
            f"p50 {now['ms']['p50']:>7.1f} ms vs {orig['ms']['p50']:>8.1f} ms   (n={now['samples']})",
            file=sys.stderr,
            flush=True,
        )
