"""No import circle outside the Lambda package (tests/unit/test_structure.py checks that one): among the construct's
modules (stacks/leaderboard), the TypeScript SDK's sources and the dashboard's browser modules, imports go one way.
Judged from the import statements as written, so a type-only import (TYPE_CHECKING, `import type`) counts too."""

from __future__ import annotations

import ast
import re
from pathlib import Path, PurePosixPath

import pytest

from tests.support.import_graph import circle

ROOT = Path(__file__).resolve().parents[2]
# `import ... from './x.js'`, `export ... from './x.js'`, `import './x.js'` and `import('./x.js')`: relative only.
JS_IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.{1,2}/[^'"]+)['"]""")


def python_graph(folder: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (relative imports: `from .x import`, `from . import x`)."""
    names = {p.stem for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found |= {node.module.split(".")[0]} if node.module else {a.name for a in node.names}
        graph[path.stem] = found & names - {path.stem}
    return graph


def script_graph(folder: Path, pattern: str) -> dict[str, set[str]]:
    """File -> the files it imports, as paths relative to `folder` (a .js import of a .ts source names its .ts)."""
    files = {p.relative_to(folder).as_posix() for p in folder.glob(pattern)}
    graph: dict[str, set[str]] = {}
    for name in files:
        found = set()
        for target in JS_IMPORT.findall((folder / name).read_text()):
            resolved = PurePosixPath(name).parent / target
            parts: list[str] = []
            for part in resolved.parts:
                if part == "..":
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            path = "/".join(parts)
            found.add(path if path in files else re.sub(r"\.js$", ".ts", path))
        graph[name] = found & files
    return graph


GRAPHS = {
    "stacks/leaderboard": python_graph(ROOT / "stacks" / "leaderboard"),
    "clients/typescript/src": script_graph(ROOT / "clients" / "typescript" / "src", "*.ts"),
    "dashboard_ec2/site": script_graph(ROOT / "dashboard_ec2" / "site", "**/*.js"),
}


def test_the_graphs_see_the_imports_they_should():
    """Guards the test below against reading nothing: known edges are found."""
    assert "regions" in GRAPHS["stacks/leaderboard"]["props"]
    assert "live.ts" in GRAPHS["clients/typescript/src"]["client.ts"]
    assert "js/views/snapshots.js" in GRAPHS["dashboard_ec2/site"]["app.js"]
    assert "js/api.js" in GRAPHS["dashboard_ec2/site"]["js/live.js"]


def test_a_circle_is_found():
    assert circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}, "a") == ["a", "b", "c", "a"]
    assert circle({"a": {"b"}, "b": set()}, "a") is None


@pytest.mark.parametrize("where", sorted(GRAPHS))
def test_no_import_circle(where):
    graph = GRAPHS[where]
    circles = [" -> ".join(found) for module in sorted(graph) if (found := circle(graph, module))]
    assert not circles, f"{where}: " + "; ".join(circles)
