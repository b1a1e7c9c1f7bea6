"""Two saved runs' DynamoDB request and unit counts, operation by operation: a refactoring must leave them as they were.

python -m bench.compare_counts BEFORE.json AFTER.json             # a table; exit 1 if any count differs
python -m bench.compare_counts BEFORE.json AFTER.json --markdown  # the same table in Markdown (docs/PERFORMANCE.md)

Both runs need the same --players, --samples and --seed: the players, scores and cursors sampled are then the same.
Compared, for the handlers' calls of each operation: requests, read units and write units (mean, min and max per
call), the requests per DynamoDB API operation, refused conditional writes and the samples taken; the load's
requests and units; and the rank-counter function's cost per submission. Times are not compared: they vary from
run to run.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

METRICS = ("requests", "read_units", "write_units")
SPREAD = ("mean", "min", "max")
RANK_COUNTER = ("requests_per_submission", "read_units_per_submission", "write_units_per_submission")
RANK_COUNTER_LABEL = "rank-counter function, per submission"
LOAD = ("requests", "read_units", "write_units")
LOAD_LABEL = "loading the board (all calls together)"
SAME_RUN = ("players", "samples", "seed")  # what must match for the counts to be comparable


def _close(a: Any, b: Any) -> bool:
    # Means are sums of the same halves and whole units divided by the same count: equal up to float rounding.
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
    return a == b


def counts(summary: dict[str, Any]) -> dict[str, Any]:
    """The counts of one operation's summary (bench/measure.summarize), flat: {"requests.mean": 4.0, ...}."""
    out: dict[str, Any] = {"samples": summary.get("samples")}
    for metric in METRICS:
        for stat in SPREAD:
            out[f"{metric}.{stat}"] = summary[metric][stat]
    for op, n in (summary.get("requests_by_operation_per_call") or {}).items():
        out[f"by_operation.{op}"] = n
    out["refused_writes_per_call"] = summary.get("refused_writes_per_call", 0)
    return out


def differences(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Each count that differs, as 'name: before -> after'."""
    return [
        f"{k}: {before.get(k, '-')} -> {after.get(k, '-')}"
        for k in sorted(before.keys() | after.keys())
        if not _close(before.get(k, 0), after.get(k, 0))
    ]


def only_board_refreshes(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether two operations' counts differ only by GetItem calls of 0.5 read unit each: reads of the board's
    config, which a function instance caches for 30 s (board_catalog.BOARD_CACHE_SECONDS), so where a refresh falls
    depends on the run's timing, not on the code."""
    if "samples" not in before or before["samples"] != after["samples"]:
        return False
    changed = {k for k in before.keys() | after.keys() if not _close(before.get(k, 0), after.get(k, 0))}
    if not changed <= {"by_operation.GetItem", "requests.mean", "requests.max", "read_units.mean", "read_units.max"}:
        return False
    gets = after.get("by_operation.GetItem", 0) - before.get("by_operation.GetItem", 0)
    reads = after["read_units.mean"] - before["read_units.mean"]
    return _close(after["requests.mean"] - before["requests.mean"], gets) and _close(reads, 0.5 * gets)


def compare(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per operation (then the rank-counter function): its counts before and after, and what differs."""
    rows = []
    for key in list(dict.fromkeys([*before["operations"], *after["operations"]])):
        a, b = before["operations"].get(key), after["operations"].get(key)
        if a is None or b is None:
            rows.append({"key": key, "label": (a or b)["label"], "before": a, "after": b, "diff": ["only in one run"]})
            continue
        ca, cb = counts(a["handlers"]), counts(b["handlers"])
        rows.append({"key": key, "label": a["label"], "before": ca, "after": cb, "diff": differences(ca, cb)})
    la, lb = ({k: run["load"].get(k) for k in LOAD} for run in (before, after))
    rows.append({"key": "load", "label": LOAD_LABEL, "before": la, "after": lb, "diff": differences(la, lb)})
    ra, rb = before.get("rank_counter") or {}, after.get("rank_counter") or {}
    if ra or rb:
        ca = {k: ra.get(k) for k in ("submissions", *RANK_COUNTER)}
        cb = {k: rb.get(k) for k in ("submissions", *RANK_COUNTER)}
        diff = differences(ca, cb)
        rows.append({"key": "rank_counter", "label": RANK_COUNTER_LABEL, "before": ca, "after": cb, "diff": diff})
    return rows


def _num(x: Any) -> str:
    if x is None:
        return "-"
    if abs(x - round(x)) < 1e-9:
        return f"{round(x):,}"
    return f"{x:,.2f}".rstrip("0")


def _cells(row: dict[str, Any], side: str) -> list[str]:
    c = row[side]
    if c is None:
        return ["-"] * 3
    if row["key"] == "rank_counter":
        return [_num(c[k]) for k in RANK_COUNTER]
    if row["key"] == "load":
        return [_num(c[k]) for k in LOAD]
    return [_spread(c[f"{m}.mean"], c[f"{m}.min"], c[f"{m}.max"]) for m in METRICS]


def _spread(mean: float, low: float, high: float) -> str:
    return _num(mean) + ("" if low == high else f" ({_num(low)}–{_num(high)})")


def table(rows: list[dict[str, Any]], markdown: bool) -> str:
    head = ["operation", "requests before", "after", "read units before", "after", "write units before", "after"]
    head.append("same")
    body = []
    for row in rows:
        b, a = _cells(row, "before"), _cells(row, "after")
        body.append([row["label"], b[0], a[0], b[1], a[1], b[2], a[2], "yes" if not row["diff"] else "NO"])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "| --- |" + " ---: |" * 6 + " --- |"]
        return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in body])
    widths = [max(len(r[i]) for r in [head, *body]) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) for r in [head, *body])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.compare_counts", description=__doc__.split("\n\n")[0])
    p.add_argument("before", type=Path, help="a saved run (make bench's JSON) of the earlier commit")
    p.add_argument("after", type=Path, help="a saved run of the later commit")
    p.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    args = p.parse_args(argv)
    before, after = (json.loads(f.read_text()) for f in (args.before, args.after))
    for name, run in (("before", before), ("after", after)):
        print(f"{name}: commit {run['meta']['commit']}, {run['meta']['players']:,} players, {run['meta']['date']}")
    mismatched = [k for k in SAME_RUN if before["meta"].get(k) != after["meta"].get(k)]
    if mismatched:
        print(f"not comparable: the runs differ in {', '.join(mismatched)}", file=sys.stderr)
        return 2
    rows = compare(before, after)
    print("\nPer call, mean (min–max when they differ), the handlers' DynamoDB requests and units:\n")
    print(table(rows, args.markdown))
    differing = [row for row in rows if row["diff"]]
    for row in differing:
        print(f"\n{row['label']} differs:", *(f"  {d}" for d in row["diff"]), sep="\n")
        if row["before"] and row["after"] and only_board_refreshes(row["before"], row["after"]):
            print(
                "  (only GetItem calls of 0.5 unit: the board config cache's 30 s refreshes, which fall where the "
                "run's timing puts them; compare runs with the cache pinned, see docs/PERFORMANCE.md)"
            )
    print("\n" + ("every count is the same" if not differing else f"{len(differing)} operation(s) differ"))
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
