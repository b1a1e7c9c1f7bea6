"""The benchmark run: load a board, then measure each operation through the handlers and the original design.

Order matters: every read is measured first, on the loaded board, with both implementations
interleaved on the same random players (alternating which goes first) and every answer checked
against the brute-force ranking; then the handlers' submissions; then the original design's
submissions last, because they write entries without whatever derived data the handlers keep
(they would leave it out of step for anything measured after them).
"""

from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench import ROOT, environment
from bench import api as api_mod
from bench import load as loader
from bench.baseline import OriginalDesign
from bench.measure import Sample, summarize
from bench.metering import Meter, Usage, attach
from bench.report import checks, header, tables
from local.streams import drain

BOARD_ID = "bench"
BOARD = {"board_id": BOARD_ID, "name": "Benchmark", "order": "desc", "operator": "best", "periods": ["all-time"]}
WARMUP = 3  # untimed calls of each implementation before an operation's samples
VERIFY_SUBMITS = 5  # submissions per kind whose reported rank is recounted by brute force
TOP, PAGE, WINDOW = 25, 100, 5

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
class Options:
    players: int = 10_000
    samples: int = 100
    min_samples: int = 20
    max_seconds: float = 120.0
    seed: int = 1
    load_threads: int = 2
    json_path: Path | None = None
    progress: bool = True


@dataclass
class Checks:
    checked: int = 0
    mismatches: list[str] = field(default_factory=list)

    def expect(self, ok: bool, what: str) -> None:
        self.checked += 1
        if not ok:
            self.mismatches.append(what)


class Bench:
    def __init__(self, opts: Options, env: environment.BenchEnvironment) -> None:
        from leaderboard.data import dynamo

        self.opts = opts
        self.env = env
        self.rng = random.Random(opts.seed)
        self.handler_meter = Meter()
        attach(dynamo.client(), self.handler_meter)  # THE client all of the handlers' data access uses
        self.consumer_meter = Meter()  # the same client while the rank-counter function runs (see settle)
        self.original_meter = Meter()
        original_client = env.new_client()
        attach(original_client, self.original_meter)
        self.original = OriginalDesign(original_client, env.scores_table)
        self.oracle = OriginalDesign(env.new_client(), env.scores_table)  # unmetered: brute-force truth
        self.api = api_mod.HandlerApi()
        self.results: dict[str, Any] = {"operations": {}}

    # --- setup ----------------------------------------------------------------------------------

    def setup(self) -> None:
        from leaderboard import board_registry, invocation, periods

        created = self.api.create_board(BOARD)  # through the real admin handler
        if created.status != 201:
            raise SystemExit(f"creating the board failed: {created.status} {created.body}")
        self.config = board_registry.get_board(BOARD_ID)
        self.period = periods.current(invocation.now(), self.config.periods)[0]
        self.now_ms = int(time.time() * 1000)
        self.players = {p.player_id: p for p in loader.players(self.opts.players, self.opts.seed, self.now_ms)}
        self.handler_meter.reset()

        started = time.perf_counter()
        how = loader.load(
            self.config,
            self.period,
            self.players.values(),
            self.opts.players,
            self.opts.load_threads,
            self.opts.progress,
        )
        seconds = time.perf_counter() - started
        usage = self.handler_meter.take()
        self.stream = self.env.stream_reader()
        drain(self.stream, lambda event, context: None, 10_000)  # the load is counted already (rebuild)
        self.results["load"] = {
            **how,
            "seconds": seconds,
            "players_per_second": self.opts.players / seconds,
            "requests": usage.requests,
            "write_units": usage.write_units,
            "read_units": usage.read_units,
            "requests_by_operation": usage.by_operation,
        }
        print(
            f"Loaded {self.opts.players:,} players in {seconds:.1f} s ({self.opts.players / seconds:,.0f}/s) "
            f"via {how['loader']}.",
            file=sys.stderr,
            flush=True,
        )

        self.partition = self.config.leaderboard_id(self.period.period_id)  # the original design's board partition
        ranking = list(self.oracle.ranking(self.partition))
        self.ranked_ids = [pid for _, pid, _ in ranking]
        self.ranked_keys = [k for k, _, _ in ranking]
        self.position = {pid: i for i, pid in enumerate(self.ranked_ids)}
        if len(ranking) != self.opts.players:
            raise SystemExit(f"the board holds {len(ranking)} entries, expected {self.opts.players}")
        self.results["meta"] = self._meta()

    def _meta(self) -> dict[str, Any]:
        from local import dynamodb_local

        def git(*args: str) -> str:
            try:
                return subprocess.run(
                    ["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10
                ).stdout.strip()
            except (OSError, subprocess.SubprocessError):
                return ""

        commit = git("rev-parse", "--short", "HEAD") or "unknown"
        if git("status", "--porcelain", "--", "lambda_src"):
            commit += " + uncommitted changes in lambda_src"
        return {
            "players": self.opts.players,
            "board_id": BOARD_ID,
            "board": BOARD,
            "partitions": getattr(self.config, "shards", 1),
            "samples": self.opts.samples,
            "min_samples": self.opts.min_samples,
            "max_seconds_per_operation": self.opts.max_seconds,
            "seed": self.opts.seed,
            "dynamodb_local": dynamodb_local.NPM_PACKAGE,
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "commit": commit,
            "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
            "load_average_at_start": _loadavg(),
        }

    # --- sampling -------------------------------------------------------------------------------

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
        check: Callable[[Any, Any, Any, Checks], None],
    ) -> None:
        """Both implementations on the same subjects, interleaved; answers checked against the ranking."""
        for s in subjects[-WARMUP:]:
            handler_call(s), original_call(s)
        subjects = subjects[:-WARMUP]
        mine, theirs, verdict = [], [], Checks()
        started = time.monotonic()
        with tqdm(total=self.opts.samples, desc=LABELS[key], disable=not self._bars(), leave=False) as bar:
            for i, s in enumerate(subjects):
                if self._enough(i, started):
                    break
                if i % 2 == 0:
                    (h, hs), (o, os_) = self._handler(handler_call, s), self._original(original_call, s)
                else:
                    (o, os_), (h, hs) = self._original(original_call, s), self._handler(handler_call, s)
                mine.append(hs)
                theirs.append(os_)
                check(s, h, o, verdict)
                bar.update(1)
            # The original design ran out of its time budget: the handlers, far cheaper, go on alone
            # up to --samples (their own budget), so their p99 rests on as many samples as asked for.
            started = time.monotonic()
            for s in subjects[len(mine) :]:
                if self._enough(len(mine), started):
                    break
                h, hs = self._handler(handler_call, s)
                mine.append(hs)
                check(s, h, None, verdict)
                bar.update(1)
        self._record(key, mine, theirs, verdict)

    def _record(self, key: str, mine: list[Sample], theirs: list[Sample], verdict: Checks | None) -> None:
        op = {"label": LABELS[key], "handlers": summarize(mine), "original": summarize(theirs)}
        if verdict is not None:
            op["checks"] = {"checked": verdict.checked, "mismatches": verdict.mismatches}
        self.results["operations"][key] = op
        now, orig = op["handlers"], op["original"]
        print(
            f"  {LABELS[key]:<42} requests {now['requests']['mean']:>6.1f} vs {orig['requests']['mean']:>7.1f}   "
            f"read units {now['read_units']['mean']:>8.1f} vs {orig['read_units']['mean']:>9.1f}   "
            f"p50 {now['ms']['p50']:>7.1f} ms vs {orig['ms']['p50']:>8.1f} ms   (n={now['samples']})",
            file=sys.stderr,
            flush=True,
        )

    # --- the operations ---------------------------------------------------------------------------

    def reads(self) -> None:
        n = self.opts.players
        count = self.opts.samples + WARMUP

        # top 25
        def check_top(_, h, o, c: Checks) -> None:
            got = [(e["rank"], e["player_id"]) for e in h.body.get("entries", [])] if h.status == 200 else h.body
            c.expect(
                got == [(i + 1, p) for i, p in enumerate(self.ranked_ids[:TOP])], f"handler top {TOP}: {str(got)[:200]}"
            )
            if o is not None:
                c.expect([e["player_id"] for e in o] == self.ranked_ids[:TOP], "original top 25 differs")

        self.compare_reads(
            "top25",
            [None] * count,
            lambda _: self.api.top(BOARD_ID, TOP),
            lambda _: self.original.page(self.partition, TOP),
            check_top,
        )

        # a page of 100 after a cursor from the middle half of the ranking
        cursors = self._cursors(upto=(3 * n) // 4)
        middle = [(pos, cur) for pos, cur in cursors if pos >= n // 4] or cursors
        picks = [self.rng.choice(middle) for _ in range(count)]

        def check_page(subject, h, o, c: Checks) -> None:
            pos, _ = subject
            want = self.ranked_ids[pos : pos + PAGE]
            got = [(e["rank"], e["player_id"]) for e in h.body.get("entries", [])] if h.status == 200 else h.body
            c.expect(
                got == [(pos + 1 + i, p) for i, p in enumerate(want)],
                f"handler page after rank {pos}: {str(got)[:200]}",
            )
            if o is not None:
                c.expect([e["player_id"] for e in o] == want, f"original page after rank {pos} differs")

        self.compare_reads(
            "page100",
            picks,
            lambda s: self.api.top(BOARD_ID, PAGE, s[1]),
            lambda s: self.original.page(self.partition, PAGE, after=self.ranked_keys[s[0] - 1]),
            check_page,
        )

        # player stats and around-me, on random players
        for key, window in (("player_stats", 0), ("around_me", WINDOW)):
            subjects = self.rng.sample(self.ranked_ids, min(count, n))

            def check_player(pid, h, o, c: Checks, window=window) -> None:
                pos = self.position[pid]
                rank = pos + 1
                want = {"rank": rank, "total_players": n, "percentile": round((n - rank) / n * 100, 1)}
                got = {k: h.body.get(k) for k in want} if h.status == 200 else h.body
                c.expect(got == want, f"handler {pid}: {got} != {want}")
                if o is not None:
                    c.expect({k: o[k] for k in want} == want, f"original {pid}: {o} != {want}")
                if window:
                    above, below = (
                        self.ranked_ids[max(0, pos - window) : pos],
                        self.ranked_ids[pos + 1 : pos + 1 + window],
                    )
                    h_above = [(e["rank"], e["player_id"]) for e in h.body.get("above", [])]
                    h_below = [(e["rank"], e["player_id"]) for e in h.body.get("below", [])]
                    c.expect(
                        h_above == [(rank - len(above) + i, p) for i, p in enumerate(above)], f"handler above {pid}"
                    )
                    c.expect(h_below == [(rank + 1 + i, p) for i, p in enumerate(below)], f"handler below {pid}")
                    if o is not None:
                        c.expect((o["above"], o["below"]) == (above, below), f"original neighbours of {pid}")

            self.compare_reads(
                key,
                subjects,
                lambda pid, w=window: self.api.player(BOARD_ID, pid, w),
                lambda pid, w=window: self.original.player_stats(self.partition, pid, w),
                check_player,
            )

    def _cursors(self, upto: int) -> list[tuple[int, str]]:
        """(entries before the cursor, cursor) for each page of PAGE from the top down to `upto`,
        walked through the handler (so the cursor is whatever the API issues)."""
        out, cursor, pos = [], None, 0
        with tqdm(
            total=upto, desc="walking pages for cursors", unit="entry", disable=not self._bars(), leave=False
        ) as bar:
            while pos + PAGE <= upto:
                resp = self.api.top(BOARD_ID, PAGE, cursor)
                if resp.status != 200 or "next_cursor" not in resp.body:
                    break
                cursor, pos = resp.body["next_cursor"], pos + len(resp.body["entries"])
                out.append((pos, cursor))
                bar.update(PAGE)
        self.handler_meter.reset()
        return out

    def settle(self) -> None:
        """Run the rank-counter function on the stream's new records, as Lambda does a moment after a write;
        its requests and capacity are metered on their own (consumer_meter)."""
        from leaderboard import invocation
        from leaderboard.handlers import rank_counter

        handler_usage = self.handler_meter.take()
        drain(self.stream, rank_counter.handler_for(invocation.runtime()), 1000)
        self.consumer_usage += self.handler_meter.take()
        self.handler_meter._usage = handler_usage  # what the handlers had spent before, still theirs

    def submits(self) -> None:
        from leaderboard.scoring import make_entry

        self.consumer_usage = Usage()
        consumer_submissions = 0

        untouched = list(self.ranked_ids)
        self.rng.shuffle(untouched)
        per_kind = self.opts.samples + WARMUP

        def take(k: int) -> list[str]:
            picked = untouched[-k:]
            del untouched[-k:]
            return picked

        new_ids = iter(f"n{i:07d}" for i in range(10**7))

        def plan(kind: str, pid: str | None) -> tuple[str, int, bool]:
            """(player, score to submit, whether it must change the stored best)."""
            if kind == "submit_new":
                return next(new_ids), loader.synthetic_score(self.rng), True
            stored = self.players[pid].score
            if kind == "submit_improves":
                return pid, int(stored * self.rng.uniform(1.05, 1.5)) + 1, True
            return pid, stored // 2, False

        plans = {
            kind: [plan(kind, pid) for pid in (take(per_kind) if kind != "submit_new" else [None] * per_kind)]
            for kind in ("submit_improves", "submit_refused", "submit_new")
        }
        original_plans = {
            kind: [plan(kind, pid) for pid in (take(per_kind) if kind != "submit_new" else [None] * per_kind)]
            for kind in plans
        }

        handler_samples: dict[str, list[Sample]] = {}
        verdicts: dict[str, Checks] = {}
        for kind, todo in plans.items():  # the handlers first: they keep the board's derived data in step
            verdict, samples = Checks(), []
            for pid, score, _ in todo[:WARMUP]:
                self.api.submit(BOARD_ID, pid, score)
                self.settle()
            started = time.monotonic()
            for i, (pid, score, changes) in enumerate(todo[WARMUP:]):
                if self._enough(i, started):
                    break
                resp, sample = self._handler(self.api.submit, BOARD_ID, pid, score)
                samples.append(sample)
                self.settle()
                consumer_submissions += 1
                row = resp.body["periods"][0] if resp.status == 200 else {}
                verdict.expect(
                    resp.status == 200 and row.get("changed") == changes,
                    f"handler submit {pid} {score}: {resp.status} {str(resp.body)[:200]}",
                )
                if i < VERIFY_SUBMITS and resp.status == 200:
                    stored = self.oracle.entry(self.partition, pid)
                    truth = self.oracle.rank(self.partition, stored["rank_key"])
                    verdict.expect(row.get("rank") == truth, f"handler submit {pid}: rank {row.get('rank')} != {truth}")
            handler_samples[kind], verdicts[kind] = samples, verdict

        for kind, todo in original_plans.items():  # last: these writes skip the handlers' derived data
            samples = []
            for pid, score, _ in todo[:WARMUP]:
                self.original.submit(_item(make_entry(self.config, self.period, pid, pid, score, _ms(), None)))
            started = time.monotonic()
            for i, (pid, score, changes) in enumerate(todo[WARMUP:]):
                if self._enough(i, started) or i >= len(handler_samples[kind]):
                    break
                item = _item(
                    make_entry(
                        self.config,
                        self.period,
                        pid,
                        self.players[pid].name if pid in self.players else pid,
                        score,
                        _ms(),
                        None,
                    )
                )
                out, sample = self._original(self.original.submit, item)
                samples.append(sample)
                verdicts[kind].expect(out["changed"] == changes, f"original submit {pid} {score}: {out}")
            self._record(kind, handler_samples[kind], samples, verdicts[kind])
        n = max(consumer_submissions, 1)
        self.results["rank_counter"] = {
            "submissions": consumer_submissions,
            "requests_per_submission": self.consumer_usage.requests / n,
            "read_units_per_submission": self.consumer_usage.read_units / n,
            "write_units_per_submission": self.consumer_usage.write_units / n,
        }

    # --- the run ----------------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        self.started = time.monotonic()
        self.setup()
        print(
            f"Measuring (up to {self.opts.samples} samples per operation, at least {self.opts.min_samples}, "
            f"{self.opts.max_seconds:.0f} s budget each): now vs original",
            file=sys.stderr,
            flush=True,
        )
        self.reads()
        self.submits()
        order = ["submit_improves", "submit_refused", "submit_new", "top25", "player_stats", "around_me", "page100"]
        self.results["operations"] = {k: self.results["operations"][k] for k in order}
        self.results["meta"]["load_average_at_end"] = _loadavg()
        self.results["meta"]["seconds_total"] = time.monotonic() - self.started
        return self.results


def _loadavg() -> list[float] | None:
    """1/5/15-minute load averages: timings from a busy machine are not comparable."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return None


def _ms() -> int:
    return int(time.time() * 1000)


def _item(entry) -> dict:
    """An entry as the table item the original design writes (the same shape the handlers write)."""
    return {"player_id": entry.player_id, "leaderboard_id": entry.leaderboard_id, **entry.attributes()}


def main(opts: Options) -> int:
    env = environment.start()
    print(f"DynamoDB Local on {env.endpoint} (log: {env.log})", file=sys.stderr, flush=True)
    try:
        results = Bench(opts, env).run()
    finally:
        env.stop()
    if opts.json_path:
        opts.json_path.parent.mkdir(parents=True, exist_ok=True)
        opts.json_path.write_text(json.dumps(results, indent=2) + "\n")
    print()
    print(header(results), "", tables(results), "", "Answers:", checks(results), sep="\n")
    if opts.json_path:
        print(f"\nAll figures: {opts.json_path}")
    bad = sum(len(op.get("checks", {}).get("mismatches", [])) for op in results["operations"].values())
    if bad:
        print(f"\n{bad} answer(s) differ from the brute-force ranking: see above.", file=sys.stderr)
        return 1
    return 0
