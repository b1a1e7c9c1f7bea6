"""Shared by the first-boot sandbox's stand-ins: the call log and scripted failures.

Every stub appends its command line to $STUB_STATE/calls.log. A test makes a command fail by writing
$STUB_STATE/fail-<what>: a number N (the next N calls fail, then it works) or "always".
"""

import json
import os
import sys
from pathlib import Path

STATE = Path(os.environ["STUB_STATE"])
ROOT = os.environ.get("LEADERBOARD_BOOT_ROOT", "")


def log_call(name: str, args: list[str]) -> None:
    with open(STATE / "calls.log", "a") as f:
        f.write(json.dumps([name, *args]) + "\n")


def should_fail(what: str) -> bool:
    path = STATE / f"fail-{what}"
    if not path.exists():
        return False
    left = path.read_text().strip()
    if left == "always":
        return True
    if int(left) <= 0:
        return False
    path.write_text(str(int(left) - 1))
    return True


def die(message: str, code: int = 1) -> None:
    print(message, file=sys.stderr)
    sys.exit(code)
