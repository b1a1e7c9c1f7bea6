"""The Lambda package's shape: no import cycle, no process state, and its layers (LAYERS): no module imports a layer
above its own, so the domain knows nothing of HTTP and reaches its stores through the runtime, not data/."""

from __future__ import annotations
import __future__

import ast
import contextvars
import dataclasses
import datetime
import enum
import functools
import importlib
import logging
import os
import re
import threading
import types
import typing
from decimal import Decimal
from pathlib import Path, PurePath
from types import MappingProxyType
from typing import ParamSpec, TypeVar

import pytest

from leaderboard.frozen import freeze

PACKAGE = Path(__file__).resolve().parents[2] / "lambda_src" / "leaderboard"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, source: str | None = None) -> set[str]:
    """The package's modules that `path` imports (relative imports resolved; `from . import x` names x); `source`:
    other text than the file's, read as if it stood there."""
    here = module_name(path).split(".") if module_name(path) else []
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    tree = ast.parse(path.read_text() if source is None else source)
    typing_only = {  # `if TYPE_CHECKING:` imports: for annotations, never run
        id(n) for block in ast.walk(tree) if _is_type_checking(block) for n in ast.walk(block)
    }
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[: len(package) - (node.level - 1)] if node.level > 1 else list(package)
            target = base + (node.module.split(".") if node.module else [])
            for alias in node.names:
                candidate = ".".join([*target, alias.name])
                found.add(candidate if candidate in MODULES else ".".join(target))
    return {name for name in found if name in MODULES and name}


def _is_type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


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
    assert "entry_store" in GRAPH["scoring"]
    assert "routes" in GRAPH["http"]
    assert "schema" in GRAPH["data.entries"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_itself_through_others(module):
    assert cycle_from(module) is None, " -> ".join(cycle_from(module))


# --- no process state: what a module keeps lives in a runtime (composition.py) ------------------------------

ROOT = PACKAGE.parents[1]
LOCAL = ROOT / "local"
# Not ours to change: PyJWT copied byte for byte (test_tokens checks it).
VENDORED = "leaderboard.vendor"
# Module-level objects that are constants although their type is not one of the immutable kinds.
STATELESS = {
    ("leaderboard.attribute_values", "_serializer"): "boto3's TypeSerializer keeps nothing between calls",
    ("leaderboard.attribute_values", "_deserializer"): "boto3's TypeDeserializer keeps nothing between calls",
}
IMMUTABLE = (
    *(str, bytes, int, float, complex, bool, type(None), tuple, frozenset, range, MappingProxyType, Decimal),
    *(datetime.date, datetime.time, datetime.timedelta, datetime.tzinfo, __future__._Feature, PurePath),
)


def _module_names() -> list[str]:
    names = [f"leaderboard.{m}" if m else "leaderboard" for m in sorted(MODULES)]
    names += [f"local.{p.stem}" for p in sorted(LOCAL.glob("*.py")) if p.stem not in ("__init__", "__main__")]
    return [n for n in names if not n.startswith(VENDORED)]


def _is_constant(value: object) -> bool:
    if isinstance(value, MappingProxyType):  # read-only, but only as constant as what it holds (frozen.freeze)
        return all(_is_constant(v) for v in value.values())
    if isinstance(value, IMMUTABLE) or type(value) is object:  # object(): a sentinel
        return all(_is_constant(v) for v in value) if isinstance(value, (tuple, frozenset)) else True
    if isinstance(value, (types.ModuleType, type, types.FunctionType, types.BuiltinFunctionType)):
        return True
    if isinstance(value, functools._lru_cache_wrapper):  # an lru_cache or cache'd function: process state
        return False
    if isinstance(value, (enum.Enum, re.Pattern, logging.Logger, TypeVar, ParamSpec, typing._SpecialForm)):
        return True
    if isinstance(value, contextvars.ContextVar):  # per invocation (invocation.py), not per process
        return True
    if isinstance(value, (typing._GenericAlias, types.GenericAlias, types.UnionType)):  # type aliases
        return True
    if dataclasses.is_dataclass(value) and type(value).__dataclass_params__.frozen:
        return all(_is_constant(getattr(value, f.name)) for f in dataclasses.fields(value))
    return isinstance(value, tuple) and hasattr(value, "_fields")  # a NamedTuple


def _process_state(name: str) -> list[str]:
    module = importlib.import_module(name)
    found = []
    for attr, value in vars(module).items():
        if attr.startswith("__") or (name, attr) in STATELESS:
            continue
        if name.startswith("leaderboard.handlers.") and attr == "handler":
            continue  # the composition root's one object per cold start: see test_a_handler_module_holds_...
        if callable(value) and getattr(value, "__module__", name) != name:
            continue  # imported (urllib's urlsplit is lru_cache'd: not ours)
        if not _is_constant(value):
            found.append(f"{attr}: {type(value).__name__}")
    source = Path(module.__file__).read_text()
    for node in ast.walk(ast.parse(source)):
        for decorator in getattr(node, "decorator_list", ()):
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            label = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
            if label in ("lru_cache", "cache"):
                found.append(f"@{label} on {node.name} (line {node.lineno})")
    return found


@pytest.fixture(scope="module")
def importable():
    """What a handler module reads at import (its runtime is built then), for modules no test imported yet."""
    with pytest.MonkeyPatch.context() as env:
        for name, value in {"SCORES_TABLE": "scores", "SNAPSHOTS_TABLE": "snapshots"}.items():
            if name not in os.environ:
                env.setenv(name, value)
        env.setenv("AWS_DEFAULT_REGION", os.environ.get("AWS_DEFAULT_REGION", "us-east-1"))
        yield


@pytest.mark.parametrize("name", _module_names())
def test_no_module_keeps_process_state(importable, name):
    """No lru_cache/cache, no module-level dict, list, set or other mutable object, no client at import: what
    changes lives in a runtime (composition.Runtime), one per cold start, that tests and the local stack make
    their own of."""
    assert _process_state(name) == []


def test_the_process_state_check_finds_what_it_should():
    """Guards the test above against passing on everything: each kind it refuses is found."""
    fake = types.ModuleType("leaderboard.fake_for_structure_test")
    fake.cache = {}
    fake.seen = set()
    fake.clients = [object()]
    fake.lock = threading.Lock()
    fake.cached = functools.lru_cache(maxsize=1)(lambda: 1)
    fake.fine = (1, "a", frozenset({2}))
    fake.shallow = MappingProxyType({"type": "object", "required": ["id"]})  # read-only outside, a list inside
    fake.frozen = freeze({"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}})
    refused = (fake.cache, fake.seen, fake.clients, fake.lock, fake.cached, fake.shallow)
    assert not any(_is_constant(v) for v in refused)
    assert _is_constant(fake.fine) and _is_constant(fake.frozen)


def test_a_handler_module_holds_one_runtime_built_at_import_and_a_way_to_get_another(importable):
    """The usual Lambda pattern, as one explicit object: each handler module builds its runtime once per cold
    start and offers handler_for(runtime) so that tests and the local stack serve with theirs."""
    handler_modules = sorted(m for m in MODULES if m.startswith("handlers.") and m != "handlers")
    assert handler_modules
    for name in handler_modules:
        module = importlib.import_module(f"leaderboard.{name}")
        assert callable(module.handler) and callable(module.handler_for), name


# --- layers: the domain takes its stores from the runtime (invocation.runtime().<store>), not from data/ ----------

# The data modules now behind a store of the runtime (composition.STORES builds them; data/ modules share memory.py).
BEHIND_STORES = {
    "data.snapshots",
    "data.closings",
    "data.memory",
    "data.rate_limits",
    "data.live_state",
    "data.moderation",
    "data.boards",
    "data.runs",
    "data.pending",
    "data.chain",
    "data.counters",
    "data.idempotency",
    "data.idempotency_memory",
    "data.secrets",
    "data.dynamo",  # the DynamoDB plumbing of the stores' implementations
    "data.entries",
    "data.memory_entries",
    "data.memory_stream",  # the in-memory entries' stream (what the stream consumers read in memory)
    "data.erasures",
    "data.live_key",  # the live API key in AppSync's control plane (the runtime's live_key)
}
# The domain modules moved onto the runtime's stores so far (issue 23). The others still call data/ modules directly.
ON_STORES = (
    *("snapshots", "closing", "player_removal", "rate_limits", "broadcasting", "moderation", "board_registry"),
    *("scoring", "runs", "quarantine", "hashchain", "chain_appending", "ranking", "counting"),
    *("idempotency", "cursors", "digest_key", "keyring", "receipt_keys"),
    *("default_board", "players", "rankings", "receipts", "simulation", "submissions"),
)
# Who still imports a data module behind a store, and why (not the store: a key of its items, read or deleted with
# other items of the scores table in one request).
STILL_IMPORTING = {
    "composition": "builds the stores",
}


def every_import(source: str, module: str, is_package: bool = False) -> set[str]:
    """The package's modules that `source` (the text of `module`) imports in any form: relative or absolute
    (leaderboard.x), `import` or `from ... import`, at the top, inside a function or under TYPE_CHECKING."""
    here = module.split(".") if module else []
    package = here if is_package else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name.removeprefix("leaderboard.") for a in node.names if a.name.startswith("leaderboard.")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else list(package)
                target = base + (node.module.split(".") if node.module else [])
            elif node.module == "leaderboard" or (node.module or "").startswith("leaderboard."):
                target = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:
                candidate = ".".join([*target, alias.name])
                found.add(candidate if candidate in MODULES else ".".join(target))
    return found


def test_only_the_listed_modules_import_a_data_module_behind_a_store():
    """Keeps STILL_IMPORTING honest both ways: a new importer fails here, and so does one that stopped."""
    importers = {m for m, found in GRAPH.items() if found & BEHIND_STORES and not m.startswith("data")}
    assert importers == set(STILL_IMPORTING)


def test_the_layer_check_knows_the_modules_it_names():
    """Guards the test below against a renamed module: every name is a module of the package."""
    assert BEHIND_STORES <= MODULES and set(ON_STORES) <= MODULES


@pytest.mark.parametrize("module", ON_STORES)
def test_a_domain_module_on_stores_imports_no_data_module_behind_one(module):
    """It reaches its stores (composition.STORES) through the runtime (DynamoDB in
    every function, in memory in tests), so that one of them cannot come back to a module-level data call unseen."""
    path = PACKAGE / f"{module.replace('.', '/')}.py"
    assert not every_import(path.read_text(), module) & BEHIND_STORES


@pytest.mark.parametrize(
    "source",
    [
        "from .data import snapshots",
        "from .data import entries, closings as closing_items",
        "from .data.snapshots import DynamoSnapshots",
        "from . import data\nfrom .data import memory",
        "from leaderboard.data import closings",
        "import leaderboard.data.snapshots",
        "def later():\n    from .data import snapshots\n",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .data.closings import DynamoClosings\n",
    ],
)
def test_the_layer_check_finds_a_data_module_behind_a_store_however_it_is_imported(source):
    """Guards the test above against passing on everything: each way of importing one again is found."""
    assert every_import(source, "closing") & BEHIND_STORES
    assert not every_import("from .data import events\nfrom . import invocation", "closing") & BEHIND_STORES


# --- the layers: one table, top to bottom; a module imports its own layer or those below, never one above ---------

# Each layer: its name, what it is, and its modules (every module of the package, once). Reading down: a handler
# serves a function's events over the HTTP side, with the runtime the composition root builds from the stores' data
# implementations and the operations; an operation (what a handler calls) decides with the domain, which reads and
# writes through the stores' ports (Protocols it declares) on the runtime. The data layer sits above the operations
# and the domain although they call it: it implements their ports (data/boards.py answers board_registry's outcomes,
# data/chain.py keeps hashchain's heads), and only the composition root imports it, so that no operation or domain
# module can reach DynamoDB but through a store of the runtime. The shared modules are leaves that every layer reads.
LAYERS: tuple[tuple[str, str, frozenset[str]], ...] = tuple(
    (name, what, frozenset(modules))
    for name, what, modules in (
        (
            "handlers",
            "one module per Lambda function: builds its runtime, names its operations",
            ("handlers", *(f"handlers.{h}" for h in (
                "leaderboard_admin", "leaderboard_query", "leaderboard_snapshot", "live_broadcaster", "period_closer",
                "player_stats", "rank_counter", "score_simulator", "score_submit",
            ))),
        ),
        (
            "http",
            "an event becomes a call and an answer a response; the route table, the OpenAPI document",
            ("http", "validation", "openapi", "routes", "routing", *(f"routing.{r}" for r in (
                "access", "bodies", "caching", "fields", "gateway_errors", "matching", "responses", "route", "table",
                "board_routes", "default_board_routes", "document_routes", "period_routes", "player_routes",
                "proof_routes", "ranking_routes", "review_routes", "submission_routes",
            ))),
        ),
        ("composition", "the root: settings, clients, clock, key rings and the stores, once per cold start",
         ("composition",)),
        (
            "data",
            "the stores' implementations (DynamoDB, in memory) and the other data modules: only the root imports them",
            ("data", *(f"data.{d}" for d in (
                "boards", "chain", "closings", "counters", "dynamo", "entries", "erasures", "events", "idempotency",
                "idempotency_memory", "memory_entries", "memory_stream",
                "live_events", "live_key", "live_state", "memory", "moderation", "pending", "rate_limits", "runs",
                "secrets", "snapshots",
            ))),
        ),
        (
            "operations",
            "what a handler calls: one use case each, deciding with the domain",
            (
                "board_registry", "broadcasting", "chain_appending", "closing", "default_board", "generations",
                "idempotency", "live", "live_access", "live_key", "moderation", "player_removal", "players",
                "quarantine", "rankings", "rate_limits", "receipts", "runs", "signed_summaries", "snapshots",
                "submissions",
            ),
        ),
        (
            "domain",
            "the rules, the formats and the stores' ports: boards, periods, scores, ranks, the log, cursors, tokens",
            (
                "boards", "counting", "cursors", "digest_key", "ed25519", "entry_store", "hashchain", "key_classes",
                "keyring",
                "periods", "plausibility", "ranking", "receipt_keys", "scoring", "simulation", "tokens",
            ),
        ),
        (
            "shared",
            "leaves every layer reads: settings, the clock, errors, value types, table facts, keys, limits",
            (
                "", "attribute_values", "clock", "errors", "frozen", "function_registry", "invocation", "keys",
                "limits", "live_channels", "lru", "metrics", "model", "schema", "settings", "text",
                "vendor", "vendor.rfc8785", "vendor.rfc8785._impl", "vendor.jwt", *(f"vendor.jwt.{j}" for j in (
                    "algorithms", "api_jwk", "api_jws", "api_jwt", "exceptions", "help", "jwk_set_cache",
                    "jwks_client", "types", "utils", "warnings",
                )),
            ),
        ),
    )
)  # fmt: skip
LAYER_OF = {module: rank for rank, (_, _, modules) in enumerate(LAYERS) for module in modules}
LAYER_NAMES = tuple(name for name, _, _ in LAYERS)


def _source_of(module: str) -> tuple[str, bool]:
    """The text of `module` and whether it is a package's __init__."""
    path = PACKAGE / f"{module.replace('.', '/')}.py" if module else PACKAGE / "__init__.py"
    if module and not path.exists():
        return (PACKAGE / module.replace(".", "/") / "__init__.py").read_text(), True
    return path.read_text(), not module


class _WithoutTypeCheckingBlocks(ast.NodeTransformer):
    def visit_If(self, node: ast.If) -> ast.AST:
        return ast.Pass() if _is_type_checking(node) else self.generic_visit(node)


def upward_imports(module: str, source: str | None = None) -> set[str]:
    """The package's modules that `module` (or `source`, read as its text) imports from a layer above its own: in
    any form (relative or absolute, at the top or inside a function), but for annotations only (`if
    TYPE_CHECKING:`). Every data module is behind a store of the runtime: only the composition root imports one."""
    text, is_package = _source_of(module) if source is None else (source, False)
    runtime_text = ast.unparse(_WithoutTypeCheckingBlocks().visit(ast.parse(text)))
    rank = LAYER_OF[module]
    found = every_import(runtime_text, module, is_package) & MODULES
    return {m for m in found if LAYER_OF[m] < rank}


def test_the_layer_table_names_every_module_of_the_package_once():
    """Guards the test below: a new module must be given a layer, a gone one leaves the table."""
    named = [module for _, _, modules in LAYERS for module in modules]
    assert sorted(named) == sorted(MODULES)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_layer_above_its_own(module):
    found = upward_imports(module)
    assert not found, f"{module} ({LAYER_NAMES[LAYER_OF[module]]}) imports " + ", ".join(
        f"{m} ({LAYER_NAMES[LAYER_OF[m]]})" for m in sorted(found)
    )


@pytest.mark.parametrize(
    ("module", "source", "upward"),
    [
        ("scoring", "from .http import Call", {"http"}),  # the domain reading HTTP
        ("keys", "def later():\n    from .cursors import Position\n", {"cursors"}),  # a leaf reading the domain
        ("rankings", "import leaderboard.composition", {"composition"}),  # an operation reaching for the root
        ("scoring", "from .data import snapshots, entries", {"data.snapshots", "data.entries"}),  # data: refused
        ("data.boards", "from ..routing.fields import BOARD_ID", {"routing.fields"}),  # data reading the route table
        ("boards", "from . import board_registry", {"board_registry"}),  # the domain calling an operation
        ("function_registry", "from .routes import ROUTES", {"routes"}),
        ("keys", "from .data import entries", {"data.entries"}),  # no leaf may read a data module
        ("handlers.score_submit", "from .. import scoring, routes, composition\nfrom ..data import entries", set()),
        ("data.chain", "from ..hashchain import MAX_APPEND", set()),  # data implementing a port of the domain
        (
            "invocation",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .composition import Runtime",
            set(),
        ),
    ],
)
def test_the_layer_check_finds_an_upward_import_however_it_is_written(module, source, upward):
    """Guards the test above against passing on everything (and against refusing what the table allows)."""
    assert upward_imports(module, source) == upward
