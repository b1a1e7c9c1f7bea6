"""The benchmark run: load a board, then measure each operation through the handlers and the original design.

Order matters: every read is measured first, on the loaded board, with both implementations
interleaved on the same random players (alternating which goes first); then the handlers' submissions; then the
original design's submissions last, because they write entries without whatever derived data the handlers keep
(they would leave it out of step for anything measured after them).

The benchmark measures; the tests check the answers (tests/unit/test_ranking_oracle.py: the handlers' ranks, totals,
percentiles and pages against a brute force, sharded boards included; tests/unit/test_bench_baseline.py: the
original design's). A call that does not succeed is counted as failed (the run then exits 1): its cost is not the
operation's.
"""

from __future__ import annotations

import json
import os
import platform
import random
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from bench import ROOT, environment
from bench import api as api_mod
from bench import load as loader
from bench.baseline import OriginalDesign
from bench.measure import Sample
from bench.metering import Meter, Usage, attach
from bench.report import failures, header, tables
from bench.sampling import WARMUP, Failures, Sampling
from local.streams import drain

BOARD_ID = "bench"
BOARD = {"board_id": BOARD_ID, "name": "Benchmark", "order": "desc", "operator": "best", "periods": ["all-time"]}
TOP, PAGE, WINDOW = 25, 100, 5


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


class Bench(Sampling):
    def __init__(self, opts: Options, env: environment.BenchEnvironment) -> None:
        from local import invocation

        self.opts = opts
        self.env = env
        self.rng = random.Random(opts.seed)
        self.handler_meter = Meter()
        attach(invocation.runtime().dynamodb, self.handler_meter)  # THE client all of the handlers' data access uses
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
        from cdk_leaderboard_lambda.domain import periods
        from cdk_leaderboard_lambda.operations import board_catalog
        from local import invocation

        created = self.api.create_board(BOARD)  # through the real admin handler
        if created.status != 201:
            raise SystemExit(f"creating the board failed: {created.status} {created.body}")
        self.config = board_catalog.get_board(invocation.runtime(), BOARD_ID)
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

    # --- the operations ---------------------------------------------------------------------------

    def reads(self) -> None:
        n = self.opts.players
        count = self.opts.samples + WARMUP

        # top 25
        self.compare_reads(
            "top25",
            [None] * count,
            lambda _: self.api.top(BOARD_ID, TOP),
            lambda _: self.original.page(self.partition, TOP),
        )

        # a page of 100 after a cursor from the middle half of the ranking
        cursors = self._cursors(upto=(3 * n) // 4)
        middle = [(pos, cur) for pos, cur in cursors if pos >= n // 4] or cursors
        picks = [self.rng.choice(middle) for _ in range(count)]
        self.compare_reads(
            "page100",
            picks,
            lambda s: self.api.top(BOARD_ID, PAGE, s[1]),
            lambda s: self.original.page(self.partition, PAGE, after=self.ranked_keys[s[0] - 1]),
        )

        # player stats and around-me, on random players
        for key, window in (("player_stats", 0), ("around_me", WINDOW)):
            self.compare_reads(
                key,
                self.rng.sample(self.ranked_ids, min(count, n)),
                lambda pid, w=window: self.api.player(BOARD_ID, pid, w),
                lambda pid, w=window: self.original.player_stats(self.partition, pid, w),
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
        from cdk_leaderboard_lambda.handlers import rank_counter
        from local import invocation

        handler_usage = self.handler_meter.take()
        drain(self.stream, rank_counter.handler_for(invocation.runtime()), 1000)
        self.consumer_usage += self.handler_meter.take()
        self.handler_meter._usage = handler_usage  # what the handlers had spent before, still theirs

    def submits(self) -> None:
        from cdk_leaderboard_lambda.domain.score_writes import make_entry
        from local import invocation

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
        verdicts: dict[str, Failures] = {}
        for kind, todo in plans.items():  # the handlers first: they keep the board's derived data in step
            verdict, samples = Failures(), []
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
                # a submission that did not do what was planned (improve, or not) measured another operation
                verdict.expect(
                    resp.status == 200 and row.get("changed") == changes,
                    f"handler submit {pid} {score}: {resp.status} {str(resp.body)[:200]}",
                )
            handler_samples[kind], verdicts[kind] = samples, verdict

        for kind, todo in original_plans.items():  # last: these writes skip the handlers' derived data
            samples = []
            for pid, score, _ in todo[:WARMUP]:
                self.original.submit(
                    _item(
                        make_entry(
                            self.config,
                            self.period,
                            pid,
                            pid,
                            score,
                            _ms(),
                            None,
                            retention_days=invocation.settings().period_retention_days,
                        )
                    )
                )
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
                        retention_days=invocation.settings().period_retention_days,
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
    print(header(results), "", tables(results), "", "Calls:", failures(results), sep="\n")
    if opts.json_path:
        print(f"\nAll figures: {opts.json_path}")
    bad = sum(len(op["calls"]["failed"]) for op in results["operations"].values() if "calls" in op)
    if bad:
        print(f"\n{bad} call(s) did not succeed: see above.", file=sys.stderr)
        return 1
    return 0
