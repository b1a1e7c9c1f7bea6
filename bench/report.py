"""The results as Markdown tables (printed by the benchmark; docs/PERFORMANCE.md holds copies).

python -m bench.report bench/results/100000.json      # the tables of a saved run, again
python -m bench.report --update docs/PERFORMANCE.md bench/results/10000.json bench/results/100000.json
                                                      # rewrite the doc's results section from runs
"""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

from bench.measure import ratio


def _num(x: float, places: int = 1) -> str:
    if abs(x - round(x)) < 1e-9:
        return f"{round(x):,}"
    return f"{x:,.{places}f}"


def _ratio(orig: float, now: float) -> str:
    r = ratio(orig, now)
    if r is None:
        return "–"
    if math.isinf(r):
        return "∞"
    return f"{r:,.2f}×" if r < 10 else f"{r:,.0f}×"


def _marks(summary: dict) -> str:
    """† estimated transaction units, * refused writes left out."""
    out = " †" if summary.get("transaction_items_per_call") else ""
    return out + (" *" if summary.get("refused_writes_per_call") else "")


def _mean(summary: dict, metric: str) -> float:
    return summary[metric]["mean"]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def tables(results: dict[str, Any]) -> str:
    ops = results["operations"]
    lines = [
        "DynamoDB requests and consumed capacity per call (mean over the samples); "
        "× = original ÷ now (above 1: the current code is cheaper):",
        "",
        _row(
            [
                "operation",
                "requests now",
                "original",
                "×",
                "read units now",
                "original",
                "×",
                "write units now",
                "original",
                "×",
            ]
        ),
        _row(["---"] + ["---:"] * 9),
    ]
    notes = []
    for op in ops.values():
        now, orig = op["handlers"], op["original"]
        cells = [op["label"]]
        for metric in ("requests", "read_units", "write_units"):
            a, b = _mean(now, metric), _mean(orig, metric)
            mark_a = mark_b = ""
            if metric == "write_units":
                mark_a, mark_b = _marks(now), _marks(orig)
            places = 2 if metric == "requests" else 1
            cells += [_num(a, places) + mark_a, _num(b, places) + mark_b, _ratio(b, a)]
        lines.append(_row(cells))
        for who, s in (("now", now), ("original", orig)):
            if s["refused_writes_per_call"]:
                notes.append(f"{op['label']} ({who}): {_num(s['refused_writes_per_call'], 2)} per call")
    if any(op[w].get("transaction_items_per_call") for op in ops.values() for w in ("handlers", "original")):
        lines += [
            "",
            "† includes TransactWriteItems, whose write units are estimated from the request by the "
            "documented rules (2 per KB per item, plus 1 per rank-index entry written): DynamoDB Local "
            "misreports them. Its own figures are in the JSON (write_units_reported).",
        ]
    if notes:
        lines += [
            "",
            "\\* not counted above: refused conditional writes, which DynamoDB bills (at least 1 write "
            "unit each) although its error response carries no ConsumedCapacity. Refused writes: "
            + "; ".join(notes)
            + ".",
        ]
    lines += [
        "",
        "Wall time per call in ms (handler in-process against DynamoDB Local on loopback; nearest-rank percentiles):",
        "",
        _row(["operation", "samples", "p50 now", "original", "×", "p99 now", "original", "×"]),
        _row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ]
    for op in ops.values():
        now, orig = op["handlers"], op["original"]
        n = str(now["samples"]) if now["samples"] == orig["samples"] else f"{now['samples']} / {orig['samples']}"
        cells = [op["label"], n]
        for q in ("p50", "p99"):
            a, b = now["ms"][q], orig["ms"][q]
            cells += [_num(a, 1 if a < 100 else 0), _num(b, 1 if b < 100 else 0), _ratio(b, a)]
        lines.append(_row(cells))
    return "\n".join(lines)


def header(results: dict[str, Any]) -> str:
    m, load = results["meta"], results["load"]
    return (
        f"{m['players']:,} players on board '{m['board_id']}' ({m['partitions']} index partition(s)); "
        f"loaded in {load['seconds']:.1f} s ({load['players_per_second']:,.0f} players/s) via {load['loader']} "
        f"on {load['threads']} thread(s): {load['requests']:,} requests, {_num(load['write_units'])} write units, "
        f"{_num(load['read_units'])} read units. DynamoDB Local {m['dynamodb_local']}, "
        f"{m['cpus']} CPU(s), Python {m['python']}, commit {m['commit']}, {m['date']}; "
        f"load average {_avg(m.get('load_average_at_start'))} at the start, "
        f"{_avg(m.get('load_average_at_end'))} at the end."
    ) + _rank_counter(results)


def _rank_counter(results: dict[str, Any]) -> str:
    """The stream consumer's cost per submission: off the request path, but paid all the same."""
    rc = results.get("rank_counter")
    if not rc:
        return ""
    return (
        f" The rank-counter function (run on the stream after each submission) cost "
        f"{_num(rc['requests_per_submission'], 2)} requests, {_num(rc['read_units_per_submission'])} read units and "
        f"{_num(rc['write_units_per_submission'])} write units per submission ({rc['submissions']} submissions)."
    )


def _avg(values) -> str:
    return "/".join(f"{v:.1f}" for v in values) if values else "n/a"


def failures(results: dict[str, Any]) -> str:
    """Each operation's calls and the ones that did not succeed; runs saved before the answers were checked by the
    tests (tests/unit/test_ranking_oracle.py) instead of the benchmark list the answers they checked."""
    lines = []
    for op in results["operations"].values():
        if calls := op.get("calls"):
            status = "ok" if not calls["failed"] else f"{len(calls['failed'])} FAILED"
            lines.append(f"- {op['label']}: {calls['made']} calls: {status}")
            lines += [f"    {m}" for m in calls["failed"][:5]]
        elif c := op.get("checks"):
            status = "ok" if not c["mismatches"] else f"{len(c['mismatches'])} MISMATCH(ES)"
            lines.append(f"- {op['label']}: {c['checked']} answers checked against the brute-force ranking: {status}")
            lines += [f"    {m}" for m in c["mismatches"][:5]]
    return "\n".join(lines)


def growth(runs: list[dict[str, Any]]) -> str:
    """How each operation's cost grows from the smallest run to the largest (requests and read units)."""
    small, large = runs[0], runs[-1]
    a, b = f"{small['meta']['players']:,}", f"{large['meta']['players']:,}"
    lines = [
        f"Growth from {a} to {b} players ({large['meta']['players'] / small['meta']['players']:g}× the board); "
        "growth = cost at the larger ÷ cost at the smaller:",
        "",
        _row(
            [
                "operation",
                f"now: requests {a}",
                b,
                "growth",
                f"read units {a}",
                b,
                "growth",
                f"original: requests {a}",
                b,
                f"read units {a}",
                b,
                "growth",
            ]
        ),
        _row(["---"] + ["---:"] * 11),
    ]
    for key, op in large["operations"].items():
        if key not in small["operations"]:
            continue
        s_now, l_now = small["operations"][key]["handlers"], op["handlers"]
        s_org, l_org = small["operations"][key]["original"], op["original"]
        lines.append(
            _row(
                [
                    op["label"],
                    _num(_mean(s_now, "requests"), 2),
                    _num(_mean(l_now, "requests"), 2),
                    _ratio(_mean(l_now, "requests"), _mean(s_now, "requests")),
                    _num(_mean(s_now, "read_units")),
                    _num(_mean(l_now, "read_units")),
                    _ratio(_mean(l_now, "read_units"), _mean(s_now, "read_units")),
                    _num(_mean(s_org, "requests"), 2),
                    _num(_mean(l_org, "requests"), 2),
                    _num(_mean(s_org, "read_units")),
                    _num(_mean(l_org, "read_units")),
                    _ratio(_mean(l_org, "read_units"), _mean(s_org, "read_units")),
                ]
            )
        )
    return "\n".join(lines)


def section(runs: list[dict[str, Any]]) -> str:
    """The results section of docs/PERFORMANCE.md: each run's tables, then the growth between them."""
    parts = []
    for r in runs:
        parts += [
            f"### {r['meta']['players']:,} players",
            "",
            header(r),
            "",
            tables(r),
            "",
            "Calls:",
            "",
            failures(r),
            "",
        ]
    if len(runs) > 1:
        parts += [
            f"### From {runs[0]['meta']['players']:,} to {runs[-1]['meta']['players']:,} players",
            "",
            growth(runs),
            "",
        ]
    return "\n".join(parts).rstrip() + "\n"


START, END = "<!-- bench:results:start -->", "<!-- bench:results:end -->"


def update(doc: Path, runs: list[dict[str, Any]]) -> None:
    text = doc.read_text()
    if START not in text or END not in text:
        raise SystemExit(f"{doc} has no {START} ... {END} markers")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    doc.write_text(f"{head}{START}\n{section(runs)}{END}{tail}")


def main(argv: list[str]) -> None:
    if argv[:1] == ["--update"]:
        doc, files = Path(argv[1]), argv[2:]
        runs = sorted((json.loads(Path(f).read_text()) for f in files), key=lambda r: r["meta"]["players"])
        update(doc, runs)
        print(f"updated {doc} from {', '.join(files)}")
        return
    results = json.loads(Path(argv[0]).read_text())
    print(header(results), "", tables(results), "", failures(results), sep="\n")


if __name__ == "__main__":
    main(sys.argv[1:])
