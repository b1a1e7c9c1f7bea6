"""The CI/CD workflows people copy: valid GitHub Actions syntax (SchemaStore's schema, vendored by check-jsonschema)
and no finding of zizmor's offline audits (unpinned actions, template injection, over-broad permissions, ...)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
BIN = Path(sys.executable).parent


def check_schema(*paths: Path) -> subprocess.CompletedProcess:
    args = [str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.github-workflows", *map(str, paths)]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def zizmor(*paths: Path) -> subprocess.CompletedProcess:
    args = [str(BIN / "zizmor"), "--offline", "--no-progress", *map(str, paths)]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def test_there_is_a_workflow():
    assert [p.name for p in WORKFLOWS] == ["ci.yml"]


@pytest.mark.parametrize("lint", [check_schema, zizmor], ids=["schema", "zizmor"])
def test_workflows_pass_the_linters(lint):
    result = lint(*WORKFLOWS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_linters_catch_a_broken_workflow(tmp_path):
    """Guard against checks that cannot fail: an unknown key, and a pull request title run as shell code."""
    broken = tmp_path / "broken.yml"
    broken.write_text("on: pull_request\njobs:\n  x:\n    runs-on: ubuntu-24.04\n    stepz: []\n")
    assert check_schema(broken).returncode != 0
    injected = tmp_path / "injected.yml"
    injected.write_text(
        "on: pull_request_target\n"
        "permissions: {}\n"
        "jobs:\n"
        "  x:\n"
        "    runs-on: ubuntu-24.04\n"
        "    steps:\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n"
    )
    assert check_schema(injected).returncode == 0
    assert zizmor(injected).returncode != 0


def test_deploy_uses_oidc_and_no_long_lived_keys():
    text = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "id-token: write" in text and "AWS_WEB_IDENTITY_TOKEN_FILE" in text
    assert "AWS_SECRET_ACCESS_KEY" not in text and "secrets." not in text


def test_make_test_runs_every_test_directory():
    """`make test` names its suites (tests/unit beside two groups, then two groups side by side): a new test
    directory outside them would never run in CI."""
    makefile = (ROOT / "Makefile").read_text()
    named = {"tests/unit"}
    for group in ("TEMPLATE_SUITES", "PACKAGE_SUITES", "STACK_SUITES", "BROWSER_SUITES"):
        (line,) = re.findall(rf"^{group} := (.+)$", makefile, flags=re.M)
        named.update(line.split())
    with_tests = {str(p.parent.relative_to(ROOT)) for p in (ROOT / "tests").glob("*/**/test_*.py")}
    top_level = {"/".join(d.split("/")[:2]) for d in with_tests}
    assert top_level <= named, sorted(top_level - named)
    assert not list((ROOT / "tests").glob("test_*.py")), "a test file directly under tests/ runs in no suite"


def test_make_integ_rehearses_a_definition_that_exists():
    """`make integ` hands the integ-runner a directory by name: a renamed folder would leave it nothing to deploy."""
    makefile = (ROOT / "Makefile").read_text()
    (directory,) = re.findall(r"--directory (\S+)", makefile)
    assert list((ROOT / directory).glob("integ_*.py")), directory
    (suites,) = re.findall(r"^PACKAGE_SUITES := (.+)$", makefile, flags=re.M)
    assert directory in suites.split()
