"""The Lambda package's shape: no import cycle, no process state, and its layers, which are its folders
(LAYER_FOLDERS): no module imports a layer above its own, so the domain knows nothing of HTTP and reaches its stores
through the runtime, not data/."""

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

from cdk_leaderboard_lambda.shared.frozen import freeze
from tests.support.import_graph import circle

PACKAGE_NAME = "cdk_leaderboard_lambda"
PACKAGE = Path(__file__).resolve().parents[2] / "lambda_src" / PACKAGE_NAME


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path, source: str | None = None) -> set[str]:
    """The package's modules that `path` imports (relative imports resolved; `from . import x` names x), those for
    annotations only (`if TYPE_CHECKING:`) too; `source`: other text than the file's, read as if it stood there."""
    here = module_name(path).split(".") if module_name(path) else []
    package = here if path.name == "__init__.py" else here[:-1]
    found = set()
    tree = ast.parse(path.read_text() if source is None else source)
    for node in ast.walk(tree):  # `if TYPE_CHECKING:` imports too: an annotation's import is a dependency
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


def test_the_graph_sees_the_imports_it_should():
    """Guards the two tests below against reading nothing: known edges are found."""
    assert "domain.entry_store" in GRAPH["domain.score_writes"]
    assert "web.routes" in GRAPH["web.http"]
    assert "shared.schema" in GRAPH["data.entries"]


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_itself_through_others(module):
    assert circle(GRAPH, module) is None, " -> ".join(circle(GRAPH, module) or [])


# --- no process state: what a module keeps lives in a runtime (composition.py) ------------------------------

ROOT = PACKAGE.parents[1]
LOCAL = ROOT / "local"
# Module-level objects that are constants although their type is not one of the immutable kinds.
STATELESS = {
    (
        "cdk_leaderboard_lambda.shared.attribute_values",
        "_serializer",
    ): "boto3's TypeSerializer keeps nothing between calls",
    (
        "cdk_leaderboard_lambda.shared.attribute_values",
        "_deserializer",
    ): "boto3's TypeDeserializer keeps nothing between calls",
}
IMMUTABLE = (
    *(str, bytes, int, float, complex, bool, type(None), tuple, frozenset, range, MappingProxyType, Decimal),
    *(datetime.date, datetime.time, datetime.timedelta, datetime.tzinfo, __future__._Feature, PurePath),
)


def _module_names() -> list[str]:
    names = [f"cdk_leaderboard_lambda.{m}" if m else "cdk_leaderboard_lambda" for m in sorted(MODULES)]
    names += [f"local.{p.stem}" for p in sorted(LOCAL.glob("*.py")) if p.stem not in ("__init__", "__main__")]
    return names


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
    if isinstance(value, contextvars.ContextVar):  # per thread (local/invocation.py), not per process
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
        if name.startswith("cdk_leaderboard_lambda.handlers.") and attr == "handler":
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
    fake = types.ModuleType("cdk_leaderboard_lambda.fake_for_structure_test")
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
        module = importlib.import_module(f"cdk_leaderboard_lambda.{name}")
        assert callable(module.handler) and callable(module.handler_for), name


# --- the layers are the folders: a module imports its own layer or those below, never one above ------------------

# Top to bottom. A handler serves a function's events with the HTTP side (web/) and the runtime the composition root
# builds from the stores' implementations (data/) and the operations; an operation (what a handler calls) decides with
# the domain, which reads and writes through the stores' ports (Protocols it declares) on the runtime. data/ sits
# above the operations and the domain although they call it: it implements their ports, and only the composition
# root imports it, so that no operation or domain module reaches DynamoDB but through a store of the runtime.
# shared/ holds the leaves every layer reads.
LAYER_FOLDERS = ("handlers", "web", "composition", "data", "operations", "domain", "shared")
# What may sit at the package's top level: the package itself and the composition root (its own layer).
TOP_LEVEL = {"", "composition"}


def layer_of(module: str) -> int:
    """The rank of `module`'s layer: its folder's (the first part of its name); the root's for the two top-level
    modules (the package's __init__ reads nothing above shared: its rank is shared's)."""
    if module == "":
        return LAYER_FOLDERS.index("shared")
    return LAYER_FOLDERS.index(module.split(".")[0])


def every_import(source: str, module: str, is_package: bool = False) -> set[str]:
    """The package's modules that `source` (the text of `module`) imports in any form: relative or absolute
    (cdk_leaderboard_lambda.x), `import` or `from ... import`, at the top, inside a function or under TYPE_CHECKING."""
    here = module.split(".") if module else []
    package = here if is_package else here[:-1]
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {
                a.name.removeprefix("cdk_leaderboard_lambda.")
                for a in node.names
                if a.name.startswith("cdk_leaderboard_lambda.")
            }
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else list(package)
                target = base + (node.module.split(".") if node.module else [])
            elif node.module == PACKAGE_NAME or (node.module or "").startswith(f"{PACKAGE_NAME}."):
                target = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:
                candidate = ".".join([*target, alias.name])
                found.add(candidate if candidate in MODULES else ".".join(target))
    return found


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
    """The package's modules that `module` (or `source`, read as its text) imports from a layer above its own, in
    any form (relative or absolute, at the top or inside a function), but for annotations only (`if
    TYPE_CHECKING:`); and any data/ module it imports unless it is data/ or the composition root."""
    text, is_package = _source_of(module) if source is None else (source, False)
    runtime_text = ast.unparse(_WithoutTypeCheckingBlocks().visit(ast.parse(text)))
    rank = layer_of(module)
    found = every_import(runtime_text, module, is_package) & MODULES
    behind_stores = module.split(".")[0] not in ("data", "composition")
    return {m for m in found if layer_of(m) < rank or (behind_stores and m.split(".")[0] == "data")}


def test_every_module_is_in_a_layer_folder_or_is_the_root():
    """No module sits at the package's top level but the package and the composition root: the folders are the
    layers, and a new folder must be given its place in LAYER_FOLDERS."""
    top_level_files = {m for m in MODULES if "." not in m and not (m and (PACKAGE / m).is_dir())}
    assert top_level_files == TOP_LEVEL
    assert {m.split(".")[0] for m in MODULES if m} == set(LAYER_FOLDERS)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_imports_a_layer_above_its_own(module):
    found = upward_imports(module)
    assert not found, f"{module} ({LAYER_FOLDERS[layer_of(module)]}) imports " + ", ".join(
        f"{m} ({LAYER_FOLDERS[layer_of(m)]})" for m in sorted(found)
    )


@pytest.mark.parametrize(
    ("module", "source", "upward"),
    [
        ("domain.score_writes", "from ..web.http import Call", {"web.http"}),  # the domain reading HTTP
        ("shared.item_keys", "def later():\n    from ..domain.cursors import Position\n", {"domain.cursors"}),
        (
            "operations.ranking_reads",
            "import cdk_leaderboard_lambda.composition",
            {"composition"},
        ),  # reaching for the root
        ("domain.score_writes", "from ..data import snapshots, entries", {"data.snapshots", "data.entries"}),
        ("operations.closing", "from ..data.closings import DynamoClosings", {"data.closings"}),
        ("handlers.score_submit", "from ..data import entries", {"data.entries"}),  # only the root builds stores
        ("data.boards", "from ..web.routes.fields import BOARD_ID", {"web.routes.fields"}),  # data reading routes
        ("domain.boards", "from ..operations import board_catalog", {"operations.board_catalog"}),
        ("shared.function_registry", "from ..web.routes import ROUTES", {"web.routes"}),
        ("shared.item_keys", "from ..data import entries", {"data.entries"}),  # no leaf may read a data module
        ("handlers.score_submit", "from .. import composition\nfrom ..domain import score_writes", set()),
        ("composition", "from .data import entries", set()),  # the root builds the stores
        ("data.chain", "from ..domain.hashchain import MAX_APPEND", set()),  # data implementing a port of the domain
        (
            "handlers.score_submit",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..composition import Runtime",
            set(),
        ),
    ],
)
def test_the_layer_check_finds_an_upward_import_however_it_is_written(module, source, upward):
    """Guards the test above against passing on everything (and against refusing what the layers allow)."""
    assert upward_imports(module, source) == upward


# --- dependencies handed down: only the root and the handlers bind a runtime; nothing falls back to a clock -------

# Nothing of the package reads its runtime from a context variable (the binding tests and local tools use lives
# outside it, local/invocation.py): a handler hands the runtime its composition root built down as an argument.


def _reads_a_context_variable(source: str) -> bool:
    """Whether `source` imports contextvars or the tools' binding (local.invocation), in any form."""
    for node in ast.walk(ast.parse(source)):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            names = [node.module or "", *(f"{node.module}.{a.name}" for a in node.names)]
        if any(n == "contextvars" or n.startswith("local.invocation") or n == "invocation" for n in names):
            return True
    return False


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_module_reads_its_runtime_from_a_context_variable(module):
    assert not _reads_a_context_variable(_source_of(module)[0])


def test_the_context_variable_check_finds_one():
    """Guards the test above against passing on everything."""
    for source in ("import contextvars", "from contextvars import ContextVar", "from local import invocation"):
        assert _reads_a_context_variable(source), source
    assert not _reads_a_context_variable("from ..shared import clock\nimport threading")


def _ambient_clock_fallbacks(source: str) -> list[str]:
    """Parameters named like a time (`now`, `at`, `when`, `today`) that default to None: a fallback to a clock."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            positional = [*args.posonlyargs, *args.args]
            pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True))
            pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is not None]
            for arg, default in pairs:
                if (
                    arg.arg in ("now", "at", "when", "today")
                    and isinstance(default, ast.Constant)
                    and default.value is None
                ):
                    found.append(f"{node.name}({arg.arg}=None) line {node.lineno}")
    return found


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_function_falls_back_to_an_ambient_clock(module):
    assert _ambient_clock_fallbacks(_source_of(module)[0]) == []


def test_the_fallback_check_finds_one():
    """Guards the test above against passing on everything."""
    assert _ambient_clock_fallbacks("def f(a, now=None):\n    pass\ndef g(*, now: object = None): pass\n") == [
        "f(now=None) line 1",
        "g(now=None) line 3",
    ]


# --- the change feed: stream records are read in one module -----------------------------------------------------------
# Every consumer of the scores table's stream reads domain/changes' typed changes; one module of data/ decodes the
# records Lambda hands over (and writes the in-memory stream's), so it alone knows their format.
STREAM_RECORD_MODULE = "data.stream_changes"
_RECORD_FIELDS = {"NewImage", "OldImage", "ApproximateCreationDateTime", "StreamViewType", "SequenceNumber"}
_RECORD_FIELDS |= {"eventName", "eventSourceARN", "userIdentity"}


def _stream_record_reads(source: str) -> list[str]:
    """Where `source` names a stream record's field: one of _RECORD_FIELDS anywhere, or "dynamodb" as a key (a
    subscript, a dict key, .get's argument), not as a boto3 client's name."""
    found = []
    for node in ast.walk(ast.parse(source)):
        keys: list[ast.expr] = []
        if isinstance(node, ast.Subscript):
            keys = [node.slice]
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if k is not None]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            keys = node.args[:1]
        elif isinstance(node, ast.Constant) and node.value in _RECORD_FIELDS:
            found.append(f"{node.value} line {node.lineno}")
        found += [f"dynamodb line {k.lineno}" for k in keys if isinstance(k, ast.Constant) and k.value == "dynamodb"]
    return found


def test_exactly_one_module_reads_stream_records():
    """The decoder; every other module reads typed changes (the handlers ask the runtime's change feed for them)."""
    readers = {module for module in MODULES if module and _stream_record_reads(_source_of(module)[0])}
    assert readers == {STREAM_RECORD_MODULE}


def test_the_stream_record_check_finds_every_way_of_reading_one():
    """Guards the test above against passing on everything (and against refusing a boto3 client's name)."""
    source = 'a = r["dynamodb"]\nb = r.get("dynamodb")\nc = {"dynamodb": 1}\nd = x["NewImage"]\ne = "eventName"\n'
    assert sorted(_stream_record_reads(source)) == [
        "NewImage line 4",
        "dynamodb line 1",
        "dynamodb line 2",
        "dynamodb line 3",
        "eventName line 5",
    ]
    assert _stream_record_reads('client = boto3.client("dynamodb")\n"""NewImage and OldImage"""\n') == []
