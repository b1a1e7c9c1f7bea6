"""bench/compare_counts.py: two saved runs with the same counts pass, any changed count fails (exit 1), and a
difference made only of board-config refreshes is named as such (still a failure: the runs are not the same)."""

from __future__ import annotations

import copy
import json

import pytest

from bench import compare_counts


def _summary(requests: float, reads: float, writes: float, by_operation: dict[str, float]) -> dict:
    def spread(x: float) -> dict:
        return {"mean": x, "min": x, "max": x}

    return {
        "samples": 100,
        "requests": spread(requests),
        "read_units": spread(reads),
        "write_units": spread(writes),
        "requests_by_operation_per_call": by_operation,
        "refused_writes_per_call": 0.0,
    }


RUN = {
    "meta": {"commit": "abc1234", "players": 2000, "samples": 100, "seed": 1, "date": "2026-01-01 00:00:00 UTC"},
    "load": {"requests": 87, "read_units": 40.5, "write_units": 4000.0},
    "operations": {
        "submit_new": {
            "label": "submit: new player",
            "handlers": _summary(5, 4.0, 2, {"BatchGetItem": 1.0, "Query": 3.0, "UpdateItem": 1.0}),
        },
        "top25": {"label": "top 25", "handlers": _summary(1, 0.5, 0, {"Query": 1.0})},
    },
    "rank_counter": {
        "submissions": 300,
        "requests_per_submission": 13.3,
        "read_units_per_submission": 10.68,
        "write_units_per_submission": 8.17,
    },
}


def _files(tmp_path, after: dict) -> list[str]:
    paths = [tmp_path / "before.json", tmp_path / "after.json"]
    for path, run in zip(paths, (RUN, after), strict=True):
        path.write_text(json.dumps(run))
    return [str(p) for p in paths]


def test_same_counts_pass(tmp_path, capsys):
    assert compare_counts.main(_files(tmp_path, copy.deepcopy(RUN))) == 0
    assert "every count is the same" in capsys.readouterr().out


@pytest.mark.parametrize(
    "change",
    [
        lambda r: r["operations"]["submit_new"]["handlers"]["write_units"].update(mean=2.03, max=5),
        lambda r: r["operations"]["top25"]["handlers"]["requests_by_operation_per_call"].update(Scan=1.0),
        lambda r: r["rank_counter"].update(requests_per_submission=13.4),
        lambda r: r["load"].update(write_units=4001.0),
    ],
)
def test_a_changed_count_fails(tmp_path, capsys, change):
    after = copy.deepcopy(RUN)
    change(after)
    assert compare_counts.main(_files(tmp_path, after)) == 1
    assert "NO" in capsys.readouterr().out


def test_board_refreshes_are_named(tmp_path, capsys):
    after = copy.deepcopy(RUN)
    handlers = after["operations"]["submit_new"]["handlers"]
    handlers["requests"].update(mean=5.01, max=6)
    handlers["read_units"].update(mean=4.005)
    handlers["requests_by_operation_per_call"]["GetItem"] = 0.01
    assert compare_counts.main(_files(tmp_path, after)) == 1
    assert "board config cache's 30 s refreshes" in capsys.readouterr().out


def test_runs_of_other_sizes_are_refused(tmp_path):
    after = copy.deepcopy(RUN)
    after["meta"]["players"] = 10_000
    assert compare_counts.main(_files(tmp_path, after)) == 2
