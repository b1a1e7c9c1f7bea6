"""Issue 42, "Hand the runtime down": the modules below get the runtime (or the stores, settings and time they use)
as arguments. None of them imports `invocation` (the context variable the entry points bind) or falls back to an
ambient clock with a `now=None` default, so a signature says what a function uses.

The list grows slice by slice as modules are converted; once every module but the composition root and the
handlers' entry points is on it, the rule can read "every module" instead."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "lambda_src" / "cdk_leaderboard_lambda"

HANDED_DOWN = (  # the stream consumers, the closings and the proofs
    "operations/closing.py",
    "operations/broadcasting.py",
    "operations/chain_appending.py",
    "operations/receipts.py",
    "operations/signed_summaries.py",
    "operations/live_key.py",
    "domain/rank_counter_upkeep.py",
    "domain/hashchain.py",
    "handlers/period_closer.py",
    "handlers/live_broadcaster.py",
    "handlers/rank_counter.py",
)


def lookups(source: str) -> list[str]:
    """What in `source` looks the runtime or the time up instead of taking it: imports of `invocation`, uses of
    it, and parameters named `now` that default to None."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            names = [alias.name for alias in node.names]
            if module.split(".")[-1] == "invocation" or "invocation" in names:
                found.append(f"line {node.lineno}: imports invocation")
        elif isinstance(node, ast.Import) and any(a.name.split(".")[-1] == "invocation" for a in node.names):
            found.append(f"line {node.lineno}: imports invocation")
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "invocation":
            found.append(f"line {node.lineno}: invocation.{node.attr}")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            args = node.args
            positional = args.posonlyargs + args.args
            defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
            pairs = [*zip(positional, defaults, strict=True), *zip(args.kwonlyargs, args.kw_defaults, strict=True)]
            for arg, default in pairs:
                if arg.arg == "now" and isinstance(default, ast.Constant) and default.value is None:
                    found.append(f"line {node.lineno}: `now` falls back to the ambient clock")
    return sorted(found, key=lambda f: int(f.split(":")[0].removeprefix("line ")))


@pytest.mark.parametrize("path", HANDED_DOWN)
def test_the_module_takes_the_runtime_and_the_time_instead_of_looking_them_up(path):
    assert lookups((PACKAGE / path).read_text()) == []


def test_the_check_finds_every_way_of_looking_them_up():
    source = """
from ..shared import invocation, item_keys
from ..shared.invocation import runtime
import cdk_leaderboard_lambda.shared.invocation

def f(config, now: datetime | None = None):
    return invocation.runtime().entries

def g(config, *, now=None):
    return invocation.now()

def fine(runtime, config, now: datetime, limit: int | None = None):
    return runtime.clock.now()
"""
    assert lookups(source) == [
        "line 2: imports invocation",
        "line 3: imports invocation",
        "line 4: imports invocation",
        "line 6: `now` falls back to the ambient clock",
        "line 7: invocation.runtime",
        "line 9: `now` falls back to the ambient clock",
        "line 10: invocation.now",
    ]
