"""Path matching: whether a request's path fits a route's template, and its path parameters (table.match_route
picks the route)."""

from __future__ import annotations


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
