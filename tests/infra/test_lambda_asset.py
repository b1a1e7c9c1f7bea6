"""The functions' code asset: the Lambda package with its third-party packages installed from a hashed lock for the
functions' platform (arm64, Python 3.14), built offline, with a hash that depends on the content only."""

from __future__ import annotations

import base64
import hashlib
import re
import shutil
import zipfile
from importlib import metadata
from pathlib import Path

import cdk_leaderboard.functions as functions_module
import cdk_leaderboard.lambda_asset as lambda_asset
import cdk_leaderboard.lambda_lock as lambda_lock
import pytest

from stacks.app_builder import build_app, stack_name

ROOT = Path(__file__).resolve().parents[2]
LOCK = ROOT / "requirements-lambda.txt"
DIRECT = {"pyjwt", "rfc8785", "cryptography"}  # what the code imports; the rest comes with cryptography
ELF_AARCH64 = 183  # e_machine of an ARM 64-bit ELF file
FETCHED = lambda_asset.LAMBDA_DEPS  # what `make setup` fetched


def _code_keys(template: dict) -> set[str]:
    return {
        r["Properties"]["Code"]["S3Key"] for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function"
    }


def _synth_code_key(tmp: Path) -> str:
    app = build_app("dev", nag=False, outdir=str(tmp))
    (key,) = _code_keys(app.synth().get_stack_by_name(stack_name("dev")).template)
    return key


def test_every_locked_package_is_pinned_with_hashes_and_the_venv_runs_the_same_versions():
    """One home for the versions: requirements-lambda.txt (`make lambda-lock`); requirements-dev.txt includes it
    and pins none of its packages again, so the tests and `make run` import what the functions ship."""
    lines = [line for line in LOCK.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    requirements = [line for line in lines if not line.startswith(" ")]
    assert all(re.fullmatch(r"[A-Za-z0-9._-]+==[^ ;]+ \\", r) for r in requirements), requirements
    pins = lambda_asset.locked(LOCK.read_text())  # raises on a requirement without a hash
    assert len(pins) == len(requirements) and DIRECT <= {name for name, _ in pins}
    assert all(len(h) == 64 for hashes in pins.values() for h in hashes)
    dev = (ROOT / "requirements-dev.txt").read_text().splitlines()
    assert "-r requirements-lambda.txt" in dev
    pinned_in_dev = {lambda_lock._normalized(line.split("==")[0]) for line in dev if "==" in line}
    assert not pinned_in_dev & {name for name, _ in pins}
    for name, version in pins:
        assert metadata.version(name) == version, name


def test_the_fetched_wheels_are_the_locks_for_the_functions_platform():
    """`make setup` fetched the lock as it is now, for the functions' runtime and architecture (the Makefile's
    platform is the construct's: a change of one without the other fails here)."""
    deps = lambda_asset.LAMBDA_DEPS
    assert (deps / lambda_asset.LOCK_NAME).read_text() == LOCK.read_text(), (
        "requirements-lambda.txt changed: make setup"
    )
    makefile = (ROOT / "Makefile").read_text()
    python = re.search(r"^LAMBDA_PYTHON := (\S+)$", makefile, re.M).group(1)
    platforms = re.search(r"^LAMBDA_PLATFORMS := (.+)$", makefile, re.M).group(1).split()
    assert functions_module.RUNTIME.name == f"python{python}"
    assert functions_module.ARCHITECTURE.name == "arm64" and all(p.endswith("_aarch64") for p in platforms)
    assert "--python-version $(LAMBDA_PYTHON)" in makefile and "aarch64-manylinux" in makefile
    for wheel in lambda_asset.wheels():
        tags = zipfile.ZipFile(wheel).read(next(n for n in zipfile.ZipFile(wheel).namelist() if n.endswith("WHEEL")))
        wheel_tags = [t.split(": ")[1] for t in tags.decode().splitlines() if t.startswith("Tag: ")]
        cp = python.replace(".", "")
        assert any(
            t == "py3-none-any" or (t.endswith("_aarch64") and (t.startswith(f"cp{cp}-cp{cp}-") or "-abi3-" in t))
            for t in wheel_tags
        ), (wheel.name, wheel_tags)


def test_the_asset_holds_the_package_and_its_packages_built_for_arm64(dev_app):
    """The handlers at the root as Lambda imports them, jwt, rfc8785 and cryptography installed (its compiled
    module an AArch64 ELF), no copied vendor/ folder, no hand-written Ed25519, no bytecode of this machine."""
    template = dev_app.synth().get_stack_by_name(stack_name("dev")).template
    (key,) = _code_keys(template)
    asset = Path(dev_app.outdir) / f"asset.{key.removesuffix('.zip')}"
    for needed in (
        "cdk_leaderboard_lambda/handlers/score_submit.py",
        "jwt/__init__.py",
        "rfc8785/__init__.py",
        "cryptography/hazmat/primitives/asymmetric/ed25519.py",
        "cffi/__init__.py",
    ):
        assert (asset / needed).is_file(), needed
    for name in DIRECT:
        assert list(asset.glob(f"{name}-*.dist-info/METADATA")), name
    (rust,) = asset.glob("cryptography/hazmat/bindings/_rust*.so")
    header = rust.read_bytes()[:20]
    assert header[:4] == b"\x7fELF" and int.from_bytes(header[18:20], "little") == ELF_AARCH64
    files = [p.relative_to(asset) for p in asset.rglob("*")]
    assert not [f for f in files if "vendor" in f.parts or f.name == "ed25519.py" and f.parts[0] != "cryptography"]
    assert not [f for f in files if "__pycache__" in f.parts or f.suffix == ".pyc"]


def test_the_asset_hash_is_the_same_on_two_synths_and_from_another_clone(dev_app, tmp_path):
    """Synthesized again, and from a copy of lambda_src and of the fetched wheels elsewhere (new paths, new file
    times, as in another clone): the same asset hash, so CloudFormation sees no change where there is none."""
    (first,) = _code_keys(dev_app.synth().get_stack_by_name(stack_name("dev")).template)
    assert _synth_code_key(tmp_path / "again") == first
    clone = tmp_path / "clone"
    shutil.copytree(functions_module.LAMBDA_SRC, clone / "lambda_src", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(lambda_asset.LAMBDA_DEPS, clone / "lambda_deps")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(functions_module, "LAMBDA_SRC", clone / "lambda_src")
        patch.setattr(lambda_asset, "LAMBDA_DEPS", clone / "lambda_deps")
        assert _synth_code_key(tmp_path / "clone.out") == first
        # and the hash follows the content: a changed pin's wheel or source file is a new asset
        (clone / "lambda_src" / "cdk_leaderboard_lambda" / "shared" / "limits.py").open("a").write("\n# changed\n")
        assert _synth_code_key(tmp_path / "changed.out") != first


def test_synth_without_the_fetched_packages_fails_and_says_make_setup(tmp_path, monkeypatch):
    """Never an asset without its packages: a missing fetch, a wheel the lock does not pin, or a package the lock
    pins with no wheel is an error that says what to run."""
    monkeypatch.setattr(lambda_asset, "LAMBDA_DEPS", tmp_path / "none")
    with pytest.raises(lambda_asset.LambdaDependenciesMissing, match=r"not fetched .*run `make setup`"):
        build_app("dev", nag=False, outdir=str(tmp_path / "out"))
    deps = tmp_path / "deps"
    shutil.copytree(FETCHED, deps)
    monkeypatch.setattr(lambda_asset, "LAMBDA_DEPS", deps)
    (pyjwt,) = deps.glob("pyjwt-*.whl")
    pyjwt.write_bytes(pyjwt.read_bytes() + b"\0")
    with pytest.raises(lambda_asset.LambdaDependenciesMissing, match=r"pyjwt-.*is not a file requirements-lambda"):
        lambda_asset.wheels()
    pyjwt.unlink()
    with pytest.raises(lambda_asset.LambdaDependenciesMissing, match=r"no wheel fetched for pyjwt==.*make setup"):
        lambda_asset.wheels()


def _wheel(path: Path, members: dict[str, str], record: dict[str, str] | None = None) -> Path:
    """A wheel of `members` with its metadata and a RECORD of their hashes (`record` overrides a member's line)."""
    info = "pkg-1.0.dist-info"
    members = {
        **members,
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    lines = []
    for name, text in members.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        lines.append((record or {}).get(name, f"{name},sha256={digest},{len(text.encode())}"))
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
        archive.writestr(f"{info}/RECORD", "\n".join([*lines, f"{info}/RECORD,,"]) + "\n")
    return path


def test_a_wheel_is_installed_by_pypas_installer_every_scheme_into_the_asset(tmp_path):
    """As `pip install --target`: the package at the root, a .data folder's scripts in bin/, a RECORD of what was
    written, no bytecode."""
    wheel = _wheel(tmp_path / "pkg-1.0-py3-none-any.whl", {"pkg/__init__.py": "", "pkg-1.0.data/scripts/tool": "x"})
    lambda_asset._install(wheel, tmp_path / "out")
    written = {str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*") if p.is_file()}
    assert written == {
        "pkg/__init__.py",
        "bin/tool",
        "pkg-1.0.dist-info/METADATA",
        "pkg-1.0.dist-info/WHEEL",
        "pkg-1.0.dist-info/RECORD",
    }


@pytest.mark.parametrize(
    "members, record",
    [
        ({"../outside.py": "x"}, None),  # a path out of the asset
        ({"/etc/passwd": "x"}, None),
        ({"pkg/tampered.py": "x"}, {"pkg/tampered.py": "pkg/tampered.py,sha256=AAAA,1"}),  # not what RECORD says
    ],
)
def test_a_wheel_that_writes_outside_the_asset_or_does_not_match_its_record_is_refused(tmp_path, members, record):
    wheel = _wheel(tmp_path / "pkg-1.0-py3-none-any.whl", {"pkg/__init__.py": "", **members}, record)
    with pytest.raises(lambda_asset.LambdaDependenciesMissing, match="is not a wheel this build installs"):
        lambda_asset._install(wheel, tmp_path / "out" / "asset")
    assert not (tmp_path / "outside.py").exists() and not (tmp_path / "out" / "outside.py").exists()
