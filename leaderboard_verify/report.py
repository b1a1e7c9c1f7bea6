"""The verifier's output: one line per check, `ok` or `FAIL`, and on a failure what fails and where."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import TextIO


class Unusable(Exception):
    """An input that cannot be read at all (a missing file, text that is not JSON, a URL that does not answer)."""


@dataclass
class Report:
    out: TextIO = field(default_factory=lambda: sys.stdout)
    passed: int = 0
    failed: int = 0

    def ok(self, check: str, detail: str) -> None:
        self.passed += 1
        print(f"ok   {check}: {detail}", file=self.out, flush=True)

    def fail(self, check: str, detail: str) -> None:
        self.failed += 1
        print(f"FAIL {check}: {detail}", file=self.out, flush=True)

    def note(self, check: str, detail: str) -> None:
        print(f"note {check}: {detail}", file=self.out, flush=True)

    def verdict(self) -> int:
        if self.failed:
            print(f"NOT VERIFIED: {self.failed} of {self.passed + self.failed} checks failed", file=self.out)
            return 1
        print(f"VERIFIED: {self.passed} check{'s' * (self.passed != 1)} passed", file=self.out)
        return 0
