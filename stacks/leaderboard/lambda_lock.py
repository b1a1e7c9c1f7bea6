"""The functions' locked third-party wheels (requirements-lambda.txt) and the check that they were fetched: standard
library only, so that the wheel's build (setup.py, in an isolated build environment without aws-cdk-lib) runs the same
check as synth (lambda_asset.py)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

LOCK_NAME = "requirements-lambda.txt"
FETCH_HINT = "run `make setup` (it downloads requirements-lambda.txt's wheels for the functions' platform)"


class LambdaDependenciesMissing(RuntimeError):
    """The functions' third-party wheels are not there or not the locked ones: synth would ship code that fails."""


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def locked(lock_text: str) -> dict[tuple[str, str], frozenset[str]]:
    """(normalized name, version) -> the sha256 hashes a requirements file pins (`name==version --hash=...`)."""
    pins: dict[tuple[str, str], frozenset[str]] = {}
    for requirement in re.sub(r"\\\s*\n", " ", lock_text).splitlines():
        words = requirement.split("#", 1)[0].split()
        if not words:
            continue
        name, _, version = words[0].partition("==")
        hashes = frozenset(w.removeprefix("--hash=sha256:") for w in words[1:] if w.startswith("--hash=sha256:"))
        if not version or not hashes or ";" in requirement:
            raise LambdaDependenciesMissing(f"{LOCK_NAME}: not a pinned, hashed requirement: {requirement.strip()}")
        pins[(_normalized(name), version)] = hashes
    return pins


def wheels(deps: Path, hint: str = FETCH_HINT) -> list[Path]:
    """The fetched wheels in `deps`, one per locked package, each with a hash the lock lists; else a clear error
    ending with `hint` (what to run)."""
    lock = deps / LOCK_NAME
    if not lock.is_file():
        raise LambdaDependenciesMissing(f"the functions' third-party packages are not fetched ({deps}): {hint}")
    pins = locked(lock.read_text())
    found: dict[tuple[str, str], Path] = {}
    for wheel in sorted(deps.glob("*.whl")):
        name, version = wheel.name.split("-")[:2]
        key = (_normalized(name), version)
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if key not in pins or digest not in pins[key] or key in found:
            raise LambdaDependenciesMissing(f"{wheel} is not a file {LOCK_NAME} pins: {hint} again")
        found[key] = wheel
    missing = sorted(f"{n}=={v}" for n, v in pins.keys() - found.keys())
    if missing:
        raise LambdaDependenciesMissing(f"no wheel fetched for {', '.join(missing)} ({deps}): {hint}")
    return [found[key] for key in sorted(found)]
