"""One name per module: the construct, the handlers and the local stack share the Lambda package's modules, loaded
once each under its one name, top-level `cdk_leaderboard_lambda` (the name Lambda imports it by)."""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def files_loaded_twice() -> dict[str, list[str]]:
    """This checkout's files that back more than one module object. (An alias is one object: fine. Third-party
    packages are not ours to judge: jsii's generated aws_cdk loads its __init__ files twice on purpose.)"""
    modules_by_file: dict[str, dict[int, str]] = defaultdict(dict)
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve().is_relative_to(ROOT) and ".venv" not in Path(file).parts:
            modules_by_file[str(Path(file).resolve())].setdefault(id(module), name)
    return {file: sorted(names.values()) for file, names in modules_by_file.items() if len(names) > 1}


def test_the_construct_and_every_handler_together_load_no_file_twice(monkeypatch):
    # A handler module builds its runtime at import, from what the stack sets on every function
    for name, value in {
        "SCORES_TABLE": "scores",
        "SNAPSHOTS_TABLE": "snapshots",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, os.environ.get(name, value))
    import cdk_leaderboard  # noqa: F401 (the construct reads the route table, the schema, the limits)
    from cdk_leaderboard import paths

    import local.backend  # noqa: F401 (the local stack's wiring)
    from local import gateway

    for function in gateway.routes_module().FUNCTIONS:
        importlib.import_module(function.handler.rpartition(".")[0])

    assert files_loaded_twice() == {}
    from cdk_leaderboard_lambda.web import routes

    assert paths.routes is routes and paths.LAMBDA_SRC.resolve() == (ROOT / "lambda_src").resolve()
    assert not any(name.startswith("cdk_leaderboard.runtime.") for name in sys.modules)


def test_the_lambda_package_refuses_a_second_name():
    with pytest.raises(ImportError, match="top-level `cdk_leaderboard_lambda`"):
        importlib.import_module("cdk_leaderboard.runtime.cdk_leaderboard_lambda")
    assert "cdk_leaderboard.runtime.cdk_leaderboard_lambda" not in sys.modules


def test_the_construct_refuses_another_module_of_the_lambda_packages_name(monkeypatch):
    """An app with a `cdk_leaderboard_lambda` of its own would otherwise hand the construct (or itself) the wrong
    module. (A `leaderboard` of its own is the app's business: tests/package/user_app has one.)"""
    from cdk_leaderboard import paths

    theirs = types.ModuleType("cdk_leaderboard_lambda")
    theirs.__file__ = "/elsewhere/cdk_leaderboard_lambda/__init__.py"
    monkeypatch.setitem(sys.modules, "cdk_leaderboard_lambda", theirs)
    with pytest.raises(
        ImportError,
        match=r"Rename your own `cdk_leaderboard_lambda`.*/elsewhere/cdk_leaderboard_lambda/__init__\.py|"
        r"/elsewhere/cdk_leaderboard_lambda/__init__\.py.*Rename your own `cdk_leaderboard_lambda`",
    ):
        paths.import_runtime()
