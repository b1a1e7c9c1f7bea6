"""Path matching: which route a request's method and path name, and its path parameters."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .route import Route


def match_path(template_path: str, path: str) -> dict[str, str] | None:
    """The path parameters if `path` fits the route template `template_path`, else None."""
    template, parts = template_path.split("/"), path.split("/")
    if len(template) != len(parts):
        return None
    params = {}
    for expected, actual in zip(template, parts, strict=True):
        if expected.startswith("{"):
            if not actual:
                return None
            params[expected[1:-1]] = actual
        elif expected != actual:
            return None
    return params


def route_for(routes: Iterable[Route], method: str, path: str) -> tuple[Route | None, bool, dict[str, str]]:
    """The route for (method, path), whether the path exists under any method, and its path parameters."""
    matches = [(r, params) for r in routes if (params := r.match(path)) is not None]
    for route, params in matches:
        if route.method == method:
            return route, True, params
    return None, bool(matches), {}
