"""The ports ("Ports in one place"): every store protocol lives in domain/ports/, each implementation of a
store has its port's methods with the same parameters (the in-memory ones reach the runtime untyped, through
in_memory_stores, so mypy alone does not hold them), the Runtime protocol lists exactly composition.Runtime's
attributes, and no port, operation or domain module speaks DynamoDB."""

from __future__ import annotations

import ast
import dataclasses
import inspect
import typing
from pathlib import Path

import pytest

from cdk_leaderboard_lambda import composition
from cdk_leaderboard_lambda.domain import ports
from cdk_leaderboard_lambda.domain.ports import runtime as runtime_port

PACKAGE = Path(composition.__file__).parent
PORTS = Path(ports.__file__).parent

# The port of each store of the runtime (composition.STORES names them).
PORT_OF = {
    name: typing.get_type_hints(vars(runtime_port.Runtime)[name].fget)["return"] for name, _, _ in composition.STORES
}


def _protocols(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [
        n.name
        for n in tree.body
        if isinstance(n, ast.ClassDef) and any(ast.unparse(b).endswith("Protocol") for b in n.bases)
    ]


def test_every_protocol_of_the_package_is_a_port_but_the_clock():
    elsewhere = {
        str(path.relative_to(PACKAGE)): found
        for path in sorted(PACKAGE.rglob("*.py"))
        if PORTS not in path.parents and (found := _protocols(path))
    }
    assert elsewhere == {"shared/clock.py": ["Clock"]}  # a leaf of shared/ that settings and the stores take
    assert {name for name, _, _ in composition.STORES} <= set(PORT_OF)
    assert all(port.__name__ in ports.__all__ for port in PORT_OF.values())


def _methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in inspect.getmembers(cls, inspect.isfunction)
        if not name.startswith("_")
    }


def _shape(signature: inspect.Signature) -> list[tuple[str, object, bool]]:
    """The parameters as a caller sees them: name, kind (positional or keyword-only), whether it has a default."""
    return [(p.name, p.kind, p.default is not p.empty) for p in signature.parameters.values()]


@pytest.mark.parametrize("name", [name for name, _, _ in composition.STORES])
def test_both_implementations_of_a_store_have_its_port_s_methods_with_the_same_parameters(name):
    port = PORT_OF[name]
    wanted = _methods(port)
    assert wanted, f"{port.__name__} declares no method"
    for implementation in [cls for store, *classes in composition.STORES if store == name for cls in classes]:
        have = _methods(implementation)
        for method, signature in wanted.items():
            assert method in have, f"{implementation.__name__} lacks {port.__name__}.{method}"
            assert _shape(have[method]) == _shape(signature), f"{implementation.__name__}.{method}"


def test_the_runtime_protocol_lists_exactly_the_runtime_s_attributes():
    """composition.as_port makes mypy check each attribute's type; this keeps the two lists the same."""
    declared = {name for name, member in vars(runtime_port.Runtime).items() if isinstance(member, property)}
    assert declared == {f.name for f in dataclasses.fields(composition.Runtime)}


def test_a_built_runtime_is_the_port_at_run_time_too():
    built = composition.Runtime.build(
        composition.Settings.from_environment({"SCORES_TABLE": "s", "SNAPSHOTS_TABLE": "n"}),
        dynamodb=object(),
        **composition.in_memory_stores(),
    )
    assert composition.as_port(built) is built
    for name, port in PORT_OF.items():
        assert all(callable(getattr(getattr(built, name), m)) for m in _methods(port)), name


# What a DynamoDB item, action or transaction looks like in Python source.
DYNAMODB_WORDS = ("TransactWriteItems", "TransactItems", '"Delete":', '"Put":', '"Update":', '"ConditionCheck":')


@pytest.mark.parametrize("folder", ["domain", "operations"])
def test_no_operation_or_domain_module_builds_a_dynamodb_item_or_transaction(folder):
    sources = {p: p.read_text() for p in sorted((PACKAGE / folder).rglob("*.py"))}
    found = {str(p.relative_to(PACKAGE)): w for p, text in sources.items() for w in DYNAMODB_WORDS if w in text}
    assert found == {}


def test_the_ports_import_no_engine_nor_data_nor_operations():
    imported = [
        (n.module or "") if isinstance(n, ast.ImportFrom) else a.name
        for p in PORTS.glob("*.py")
        for n in ast.walk(ast.parse(p.read_text()))
        if isinstance(n, ast.Import | ast.ImportFrom)
        for a in n.names
    ]
    assert imported and not [m for m in imported if {"data", "operations", "boto3", "botocore"} & set(m.split("."))]
