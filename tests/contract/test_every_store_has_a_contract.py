"""Every store of the runtime (composition.STORES) has a contract here: a test module whose cases reach it as
`runtime.<store>` (conftest.py's fixture, once per implementation). So a new store cannot come without one."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from cdk_leaderboard_lambda.composition import STORES

HERE = Path(__file__).parent


def stores_used(source: str) -> set[str]:
    """The runtime's attributes a test module reads: `runtime.<name>` anywhere in it."""
    return {
        node.attr
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "runtime"
    }


def contracts() -> dict[str, list[str]]:
    """Store name -> the contract modules that use it (test_*_store.py, each asking for the `runtime` fixture; the
    unit of work's: test_unit_of_work.py)."""
    found: dict[str, list[str]] = {}
    for path in sorted([*HERE.glob("test_*_store.py"), HERE / "test_unit_of_work.py"]):
        for name in stores_used(path.read_text()):
            found.setdefault(name, []).append(path.name)
    return found


@pytest.mark.parametrize("name", [name for name, _, _ in STORES])
def test_the_store_has_a_contract_module(name):
    assert name in contracts(), f"no tests/contract/test_*_store.py reads runtime.{name}: write its contract"


def test_the_check_finds_what_it_should():
    """Guards the test above against passing on everything."""
    assert stores_used("def store(runtime):\n    return runtime.counters\n") == {"counters"}
    assert stores_used("def store(other):\n    return other.counters\n") == set()
    assert "rate_limits" in contracts() and "no_such_store" not in contracts()
