"""The type check: mypy, pinned, over lambda_src, stacks, local and ops, in `make test`. These tests read
the settings instead of running mypy (a first run takes minutes: `make typecheck` is the run); they fail when a
module would silently fall out of the check or the check out of `make test`."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
MYPY = PYPROJECT["tool"]["mypy"]


def _recipe(target: str) -> str:
    makefile = (ROOT / "Makefile").read_text()
    (recipe,) = re.findall(rf"^{target}:.*\n((?:\t.*\n|\n)+)", makefile, flags=re.M)
    return recipe


def test_make_test_runs_the_type_check_after_ruff():
    recipe = _recipe("test")
    assert "typecheck" in recipe, "make test does not run make typecheck"
    assert recipe.index("ruff format --check") < recipe.index("typecheck") < recipe.index("pytest")


def test_mypy_is_pinned_and_checks_untyped_bodies_too():
    pins = (ROOT / "requirements-dev.txt").read_text().splitlines()
    assert any(re.fullmatch(r"mypy==\d+(\.\d+)+", line) for line in pins)
    assert MYPY["check_untyped_defs"] is True  # a wrong argument inside an unannotated function is found too
    assert "ignore_errors" not in MYPY and "ignore_missing_imports" not in MYPY  # only per module, below


def test_no_module_is_exempt_from_the_check():
    """No code of the repository is exempt: PyJWT and rfc8785 are installed packages now, checked by their own
    projects (and typed: py.typed), not copies inside the Lambda package."""
    ignored = [m for o in MYPY.get("overrides", []) if o.get("ignore_errors") for m in o["module"]]
    assert ignored == [], ignored


def test_the_check_covers_the_lambda_code_the_construct_local_and_ops():
    """cdk_leaderboard is stacks/leaderboard with lambda_src as its runtime (pyproject's package-dir, which `make
    typecheck` mirrors), the Lambda package is checked under its one name, `leaderboard`; the other modules of
    stacks/ are listed one by one, so a new one must be added."""
    package_dirs = PYPROJECT["tool"]["setuptools"]["package-dir"]
    assert package_dirs["cdk_leaderboard"] == "stacks/leaderboard" and package_dirs["cdk_leaderboard.runtime"] == (
        "lambda_src"
    )
    assert {"cdk_leaderboard", "cdk_leaderboard_lambda", "local", "ops"} <= set(MYPY["packages"])
    stacks_modules = {f"stacks.{p.stem}" for p in (ROOT / "stacks").glob("*.py") if p.stem != "__init__"}
    assert stacks_modules == set(MYPY["modules"]), "list every module of stacks/ in [tool.mypy] modules"


def test_only_the_jsii_bindings_are_skipped():
    """follow_imports=skip makes a module's types Any: only the generated CDK bindings, which check their arguments at
    synth themselves, may be read that way (our modules, boto3's and the others' are analysed)."""
    skipped = [m for o in MYPY.get("overrides", []) if o.get("follow_imports") == "skip" for m in o["module"]]
    assert skipped and {m.split(".")[0] for m in skipped} <= {"aws_cdk", "constructs", "cdk_nag", "jsii"}, skipped
