"""The runtime handed down (issue 42): the modules listed here take what they use as arguments (the runtime, a store,
the settings, the time) instead of looking it up. None imports `invocation` (the context variable the handlers'
entry points bind), not even for annotations, and no function falls back to an ambient clock through a `now`
parameter that defaults to None. A module joins the list once its callers hand it everything it uses."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "lambda_src" / "cdk_leaderboard_lambda"

HANDED_DOWN = (
    # boards, moderation and removal
    "operations/board_catalog.py",
    "operations/player_removal.py",
    "operations/moderation.py",
    "domain/simulation.py",
    "domain/keyring.py",
    "domain/digest_key.py",
    "domain/receipt_keys.py",
    "handlers/leaderboard_admin.py",
    "handlers/score_simulator.py",
)


def _invocation_imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = [a.name for a in node.names]
            if (node.module or "").split(".")[-1] == "invocation" or "invocation" in names:
                found.append(
                    f"line {node.lineno}: from {'.' * node.level}{node.module or ''} import {', '.join(names)}"
                )
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name.endswith("invocation")]
    return found


def _clock_fallbacks(tree: ast.AST) -> list[str]:
    """Parameters named like the time (now, now_s, now_ms...) whose default is None: the function reads a clock of
    its own when the caller gives none."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        positional = [*node.args.posonlyargs, *node.args.args]
        defaults = list(zip(positional[len(positional) - len(node.args.defaults) :], node.args.defaults, strict=True))
        defaults += [(a, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True) if d is not None]
        for arg, default in defaults:
            if arg.arg.startswith("now") and isinstance(default, ast.Constant) and default.value is None:
                found.append(f"line {node.lineno}: {node.name}({arg.arg}=None)")
    return found


@pytest.mark.parametrize("module", HANDED_DOWN)
def test_a_module_handed_its_runtime_does_not_look_it_up(module):
    tree = ast.parse((PACKAGE / module).read_text())
    assert _invocation_imports(tree) == [], f"{module} looks the runtime up"
    assert _clock_fallbacks(tree) == [], f"{module} falls back to an ambient clock"


def test_the_checks_see_what_they_look_for():
    """Each check finds its case (so that an empty answer above means something)."""
    looked_up = ast.parse("from ..shared import invocation, limits\nfrom .shared.invocation import now\n")
    assert len(_invocation_imports(looked_up)) == 2
    fallbacks = ast.parse("def f(a, now=None): ...\ndef g(*, now_s: int | None = None): ...\ndef h(now=1): ...\n")
    assert _clock_fallbacks(fallbacks) == ["line 1: f(now=None)", "line 2: g(now_s=None)"]
