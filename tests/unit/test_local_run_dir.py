"""`make run` (`python -m local run`) owns its run directory: a second stack started in the same directory, even on
other ports, is refused at once with a message naming LEADERBOARD_RUN_DIR, before it starts anything."""

from __future__ import annotations

import os
import signal

import pytest

from local.dynamodb_local import free_port
from local.runner import _claim_run_dir, run_stack


def test_a_second_run_in_the_same_run_directory_is_refused_naming_leaderboard_run_dir(tmp_path, monkeypatch):
    """The first stack's lock is held here (as a running `make run` holds it: flock, so a second open of the file is
    refused even in one process); the second, on free ports of its own, exits with the message instead of starting
    DynamoDB Local, the gateway and the edge."""
    monkeypatch.setenv("LEADERBOARD_RUN_DIR", str(tmp_path))
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    first = _claim_run_dir(tmp_path)
    try:
        with pytest.raises(SystemExit) as refused:
            run_stack(free_port(), free_port(), None, edge_port=free_port(), live_port=free_port())
    finally:
        first.close()
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    assert str(refused.value) == (
        f"another `make run` (pid {os.getpid()}) is using the run directory {tmp_path}: stop it, or give this one a "
        "directory of its own with LEADERBOARD_RUN_DIR=<dir> (and ports of its own: PORT, API_PORT, EDGE_PORT, "
        "LIVE_PORT)"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.lock"]  # nothing of a stack was started


def test_the_directory_is_free_again_once_its_stack_stops(tmp_path):
    """The lock goes with its holder (closed here; the kernel drops it when a process dies however it dies): the
    next run claims the same directory, the lock file left behind notwithstanding."""
    _claim_run_dir(tmp_path).close()
    again = _claim_run_dir(tmp_path)
    try:
        assert (tmp_path / "run.lock").read_text() == str(os.getpid())
    finally:
        again.close()
