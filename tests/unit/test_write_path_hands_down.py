"""The write path takes what it uses as arguments (issue 42, "Hand the runtime down"): none of its modules looks the
runtime up in the invocation's context variable, and none falls back to an ambient clock when no `now` is given.

(The write path's slice only; the package-wide rule follows when every slice has handed its runtime down.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "lambda_src" / "cdk_leaderboard_lambda"

WRITE_PATH = (
    "operations/submissions.py",
    "domain/score_writes.py",
    "operations/rate_limits.py",
    "operations/quarantine.py",
    "operations/runs.py",
    "operations/idempotency.py",
    "domain/tokens.py",
    "operations/live_access.py",
    "domain/plausibility.py",
    "domain/api_key_classes.py",
    "web/http.py",
    "web/validation.py",
    "handlers/score_submit.py",
)


def _lookups(tree: ast.AST) -> list[str]:
    """Each import of the invocation module (or of a name from it) and each use of a name through it."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if module.endswith("invocation") or any(a.name == "invocation" for a in node.names):
                found.append(f"line {node.lineno}: imports {module}.{', '.join(a.name for a in node.names)}")
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name.endswith("invocation")]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "invocation":
            found.append(f"line {node.lineno}: invocation.{node.attr}")
    return found


def _optional_times(tree: ast.AST) -> list[str]:
    """Each parameter named `now` that may be left out: a default (None or any other) stands for an ambient clock."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        args = node.args
        positional = args.posonlyargs + args.args
        defaulted = positional[len(positional) - len(args.defaults) :]
        defaulted += [a for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
        found += [f"line {node.lineno}: {node.name}(now=...)" for a in defaulted if a.arg == "now"]
    return found


@pytest.mark.parametrize("module", WRITE_PATH)
def test_a_write_path_module_is_handed_its_runtime_and_its_time(module):
    tree = ast.parse((PACKAGE / module).read_text(), module)
    assert _lookups(tree) == [], f"{module} looks the runtime up instead of taking it as an argument"
    assert _optional_times(tree) == [], f"{module} falls back to an ambient clock"


def test_the_checks_see_a_lookup_and_a_fallback():
    """The checks themselves: each finds what it is for (a check that finds nothing proves nothing)."""
    source = (
        "from ..shared import invocation\n"
        "from ..shared.invocation import lambda_context\n"
        "def f(x, now=None):\n    return invocation.runtime()\n"
        "def g(*, now: float | None = None): ...\n"
    )
    tree = ast.parse(source)
    assert len(_lookups(tree)) == 3
    assert _optional_times(tree) == ["line 3: f(now=...)", "line 5: g(now=...)"]
