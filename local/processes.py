"""Child processes that never outlive the stack.

Each child gets its own process group, so stopping it stops whatever it forked
(nginx workers, for example); on Linux it also gets a parent-death signal so a
`kill -9` of the Python process still takes the children down.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
        except OSError:
            pass  # best effort: the process group and atexit still cover normal exits


class ProcessGroup:
    """The processes one stack started; stop_all() ends them, newest first."""

    def __init__(self) -> None:
        self._procs: list[tuple[str, subprocess.Popen]] = []
        self._lock = threading.Lock()
        atexit.register(self.stop_all)

    def spawn(self, name: str, argv: list[str], log_path: Path, **kwargs) -> subprocess.Popen:
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
                **kwargs,
            )
        with self._lock:
            self._procs.append((name, proc))
        return proc

    def running(self) -> list[tuple[str, subprocess.Popen]]:
        with self._lock:
            return list(self._procs)

    def stop_all(self, timeout: float = 10.0) -> None:
        with self._lock:
            procs, self._procs = self._procs[::-1], []
        _stop(procs, timeout)

    def stop(self, name: str, timeout: float = 10.0) -> None:
        """Stop the processes spawned under this name (the others keep running)."""
        with self._lock:
            procs = [p for p in self._procs if p[0] == name]
            self._procs = [p for p in self._procs if p[0] != name]
        _stop(procs, timeout)


def _stop(procs: list[tuple[str, subprocess.Popen]], timeout: float) -> None:
    for _, proc in procs:
        _signal_group(proc, signal.SIGTERM)
    for name, proc in procs:
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            print(f"{name} ignored SIGTERM; killing it", file=sys.stderr)
            _signal_group(proc, signal.SIGKILL)
            proc.wait()
        # Whatever it forked and left behind in its group goes too.
        _signal_group(proc, signal.SIGKILL)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)  # pgid == pid: start_new_session made it a leader
    except (ProcessLookupError, PermissionError):
        pass


def accepts(port: int) -> bool:
    """Whether a local server has started listening on the port (the readiness check of the Nginx processes)."""
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
        return True
    except OSError:
        return False
