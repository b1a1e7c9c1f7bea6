"""The Lambda package's shape: no import cycle, and the domain knows nothing of HTTP."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "lambda_src" / "leaderboard"

# The HTTP side: the route table and what reads requests and writes responses.
HTTP_MODULES = {"routes", "routing", "http", "validation", "openapi", "invocation", "handlers"}
# The domain and its data layer: boards, periods, keys, scoring, ranking, counters, storage.
DOMAIN_MODULES = {
    "boards", "periods", "keys", "limits", "model", "schema", "clock", "errors", "scoring", "ranking", "counting",
    "simulation", "metrics", "settings", "cursors", "data",
}  # fmt: skip


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> set[str]:
    """The package's modules that `path` imports (relative imports resolved; `from . import x` names x)."""
    here = module_name(path).split(".") if module_name(path) else []
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)] if node.level > 1 else list(package)
            target = base + (node.module.split(".") if node.module else [])
            for alias in node.names:
                candidate = ".".join([*target, alias.name])
                found.add(candidate if candidate in MODULES else ".".join(target))
    return {name for name in found if name in MODULES and name}


FILES = sorted(PACKAGE.rglob("*.py"))
MODULES = {module_name(p) for p in FILES}
GRAPH = {module_name(p): imports(p) for p in FILES}


def cycle_from(start: str) -> list[str] | None:
    """A path start -> ... -> start through imports, if there is one."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in GRAPH.get(node, ()):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None


def test_the_graph_sees_the_imports_it_should():
    """Guards the two tests below against reading nothing: known edges are found."""
    assert "data.entries" in GRAPH["scoring"]
    assert "routes" in GRAPH["http"]
    assert "schema" in GRAPH["data.entries"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_itself_through_others(module):
    assert cycle_from(module) is None, " -> ".join(cycle_from(module))


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.split(".")[0] in DOMAIN_MODULES))
def test_the_domain_does_not_import_the_http_side(module):
    assert not {m for m in GRAPH[module] if m.split(".")[0] in HTTP_MODULES}
