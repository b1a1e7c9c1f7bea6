"""Circles in an import graph (module -> the modules it imports), for the structure tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def circle(graph: Mapping[str, Iterable[str]], start: str) -> list[str] | None:
    """A path start -> ... -> start through the graph's edges, if there is one."""
    stack, seen = [(start, [start])], set()
    while stack:
        node, path = stack.pop()
        for nxt in sorted(graph.get(node, ())):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return None
