"""The OpenAPI document is built on demand from the route table: no module of the HTTP side keeps it (or anything
else) in a process-wide cache."""

from __future__ import annotations

import functools
import importlib
import pkgutil

from leaderboard import openapi, routing

HTTP_SIDE = ["leaderboard.openapi", "leaderboard.routes", "leaderboard.validation", "leaderboard.http"] + [
    f"leaderboard.routing.{m.name}" for m in pkgutil.iter_modules(routing.__path__)
]


def test_the_document_is_built_anew_on_each_call_and_is_the_same_document():
    first, second = openapi.document(), openapi.document()
    assert first == second and first is not second


def test_no_module_of_the_route_table_or_the_document_holds_a_cache():
    for name in HTTP_SIDE:
        module = importlib.import_module(name)
        cached = [
            attr
            for attr, value in vars(module).items()
            if getattr(value, "__module__", None) == name  # defined here, not imported from elsewhere
            and (isinstance(value, functools._lru_cache_wrapper) or hasattr(value, "cache_clear"))
        ]
        assert cached == [], f"{name}: {cached}"
