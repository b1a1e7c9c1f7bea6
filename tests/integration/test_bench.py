"""`make bench` and `make bench-load`, small: they still run on the current code, every call succeeding.

The figures in docs/PERFORMANCE.md come from the full runs; these only keep the tools from rotting between them
(the load bench stopped working unnoticed when the stream gained a second consumer). They run as from a shell:
without the environment this package's local stack sets for its handlers."""

from __future__ import annotations

from tests.support.bench_run import run_bench


def _run(tmp_path, module: str, *args: str) -> dict:
    return run_bench(tmp_path, module, *args, timeout=300)


def test_the_rank_bench_runs_every_operation_without_a_failed_call(tmp_path):
    """The answers themselves are checked by tests/unit/test_ranking_oracle.py (the handlers) and
    tests/unit/test_bench_baseline.py (the original design): the benchmark measures."""
    # The fewest players the bench takes (a page of 100 from the middle needs a few pages) and 3 samples: every
    # operation still runs, and the load, which is most of the time, is a third smaller
    figures = _run(tmp_path, "bench", "--players", "200", "--samples", "3", "--min-samples", "3", "--no-progress")
    assert len(figures["operations"]) == 7
    for name, op in figures["operations"].items():
        assert op["calls"]["made"] >= 3 and op["calls"]["failed"] == [], name
        assert op["handlers"]["requests"]["mean"] <= 6, name  # flat cost: the bench's own bar


def test_the_load_bench_runs_both_designs_without_a_failed_submission(tmp_path):
    figures = _run(tmp_path, "bench.write_load", "--writers", "2", "--seconds", "2", "--pool", "50")
    runs = {r["kind"]: r for r in figures["runs"]}
    assert set(runs) == {"handlers", "original"}
    assert all(r["ok"] > 0 and r["failed"] == {} for r in runs.values())
    budgets = figures["budgets"]
    assert budgets["improving_post_scores"]["requests"] == 4  # one BatchGetItem, then an UpdateItem per period
    assert budgets["bulk_500_three_periods"]["status"] == 200
