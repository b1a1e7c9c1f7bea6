"""The distribution as a user gets it: build the wheel, install it into a fresh virtual environment with only its
declared dependencies, and synthesize an app of one's own that has module names the Lambda package also uses.

The dependencies' wheels are downloaded once into .local/wheelhouse (pinned by requirements.txt), so later runs
install offline in well under a minute.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from cdk_leaderboard import lambda_asset
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]
USER_APP = Path(__file__).resolve().parent / "user_app"
WHEELHOUSE = ROOT / ".local" / "wheelhouse"
PIP = ["-m", "pip", "--disable-pip-version-check", "--no-input"]

pytestmark = pytest.mark.slow


def run(*args: str, cwd: Path = ROOT, env: dict | None = None, timeout: int = 600) -> str:
    result = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    run(sys.executable, *PIP, "wheel", "--no-deps", "--wheel-dir", str(out), str(ROOT))
    (built,) = out.glob("cdk_leaderboard-*.whl")
    return built


@pytest.fixture(scope="module")
def user_env(wheel, tmp_path_factory) -> Path:
    """A fresh venv (no system site-packages) with the wheel, its declared dependencies and cdk-nag."""
    venv = tmp_path_factory.mktemp("venv")
    run(sys.executable, "-m", "venv", str(venv))
    python = venv / "bin" / "python"
    pins = ROOT / "requirements.txt"  # the versions the repository is tested with, inside the declared ranges
    WHEELHOUSE.mkdir(parents=True, exist_ok=True)
    install = [str(python), *PIP, "install", "--quiet", "--no-compile", "--no-index", "--find-links", str(WHEELHOUSE)]
    install += ["--constraint", str(pins), str(wheel), "cdk-nag"]
    # Offline from the wheelhouse when it holds every pin (a second run); else download what is missing, then again
    if subprocess.run(install, cwd=ROOT, capture_output=True, timeout=600).returncode != 0:
        run(str(python), *PIP, "download", "--quiet", "--dest", str(WHEELHOUSE), "-r", str(pins), str(wheel))
        run(*install)
    return python


def test_wheel_holds_the_construct_and_the_verifier_with_their_assets_and_declares_its_ranges(wheel):
    """Two top-level packages: the construct, and beside it the proof verifier, which must not be a part of it (it
    imports nothing of the construct or the Lambda code: tests/unit/test_verify.py)."""
    names = zipfile.ZipFile(wheel).namelist()
    top_level = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert top_level == {"cdk_leaderboard", "leaderboard_verify"}
    for needed in (
        "cdk_leaderboard/py.typed",
        "cdk_leaderboard/construct.py",
        "cdk_leaderboard/runtime/cdk_leaderboard_lambda/web/routes/__init__.py",
        "cdk_leaderboard/runtime/cdk_leaderboard_lambda/handlers/score_submit.py",
        "cdk_leaderboard/runtime/cdk_leaderboard_lambda/data/dynamo.py",
        "cdk_leaderboard/dashboard_ec2/render.py",
        "cdk_leaderboard/dashboard_ec2/user_data.sh",
        "cdk_leaderboard/dashboard_ec2/nginx.conf.template",
        "cdk_leaderboard/dashboard_ec2/site/index.html",
        "cdk_leaderboard/dashboard_ec2/boot/first-boot.sh",
        "leaderboard_verify/__main__.py",
        "leaderboard_verify/py.typed",
    ):
        assert needed in names, needed
    # The functions' third-party wheels, the lock's files (lambda_asset.py installs them into the asset at synth)
    fetched = sorted(p.name for p in lambda_asset.wheels())
    shipped_deps = sorted(n.split("/")[-1] for n in names if n.startswith("cdk_leaderboard/lambda_deps/"))
    assert fetched and shipped_deps == sorted([*fetched, "requirements-lambda.txt"])
    # Every file of the three source folders is shipped (a new subpackage must be listed in pyproject.toml).
    shipped = (
        ("stacks/leaderboard", "cdk_leaderboard/"),
        ("lambda_src", "cdk_leaderboard/runtime/"),
        ("dashboard_ec2", "cdk_leaderboard/dashboard_ec2/"),
        ("leaderboard_verify", "leaderboard_verify/"),
    )
    for folder, inside in shipped:
        in_repo = {
            f"{inside}{p.relative_to(ROOT / folder)}"
            for p in (ROOT / folder).rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc" and p.name != ".gitignore"
        }
        assert in_repo <= set(names), sorted(in_repo - set(names))
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    requires = {
        Requirement(line.split(": ", 1)[1]) for line in metadata.splitlines() if line.startswith("Requires-Dist:")
    }
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = {r for r in requires if r.marker is not None}
    requires -= extras
    declared = project["dependencies"]
    assert {(r.name, r.specifier) for r in requires} == {(r.name, r.specifier) for r in map(Requirement, declared)}
    # the verifier's dependencies are an extra: a CDK app does not install them
    (verify_extra,) = {str(r.marker) for r in extras}
    assert verify_extra == 'extra == "verify"'
    verify = {r.name: r.specifier for r in extras}
    assert verify == {r.name: r.specifier for r in map(Requirement, project["optional-dependencies"]["verify"])}
    pins = dict(lambda_asset.locked((ROOT / "requirements-lambda.txt").read_text()).keys())
    assert set(verify) == {"rfc8785", "cryptography"} and all(pins[n] in verify[n] for n in verify)
    assert "0.2.0" not in verify["rfc8785"]
    version = next(line.split(": ", 1)[1] for line in metadata.splitlines() if line.startswith("Version:"))
    assert f'__version__ = "{version}"' in (ROOT / "stacks" / "leaderboard" / "__init__.py").read_text()
    assert f"## {version}" in (ROOT / "CHANGELOG.md").read_text()
    ranges = {r.name: r.specifier for r in requires}
    assert set(ranges) == {"aws-cdk-lib", "constructs", "installer"}  # installer: the functions' wheels at synth
    assert "1.9" in ranges["installer"] and "2.0.0" not in ranges["installer"]
    assert "2.999" in ranges["aws-cdk-lib"] and "3.0.0" not in ranges["aws-cdk-lib"]
    assert "10.99" in ranges["constructs"] and "11.0.0" not in ranges["constructs"]


def test_an_app_of_ones_own_synthesizes_with_the_installed_construct(user_env, tmp_path):
    """cdk-nag is on in the app: synth raises on any unacknowledged finding. One run, with a concrete env (as the CDK
    recommends; the harder case for the acknowledgements, which then name a real region and account). The same
    construct without an env synthesizes nag-clean in tests/infra (every stage), and the wheel ships every file of it
    (the test above): a second run here, env-agnostic, checked nothing else and cost a minute and a half."""
    app = tmp_path / "app"
    shutil.copytree(USER_APP, app, ignore=shutil.ignore_patterns("__pycache__"))
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["OUTDIR"] = str(tmp_path / "cdk.out")
    env["USER_APP_ENV"] = "111111111111/us-east-1"
    report = json.loads(run(str(user_env), "app.py", cwd=app, env=env).strip().splitlines()[-1])

    assert report["own_modules_kept"] and report["schema_is_own"] and report["leaderboard_is_own"]
    assert report["sys_path_unchanged"]
    # The construct adds two names: its own, and the Lambda package's one name (loaded from the file it ships).
    assert {"cdk_leaderboard", "cdk_leaderboard_lambda"} <= set(report["new_top_level_modules"])
    assert not {"leaderboard", "schema", "routes", "handlers", "runtime", "dashboard_ec2", "stacks"} & set(
        report["new_top_level_modules"]
    )
    assert str(Path(report["construct_file"]).resolve()).startswith(str(user_env.parents[1].resolve()))
    runtime = Path(report["runtime_file"]).resolve()
    assert (
        runtime
        == Path(report["construct_file"]).resolve().parent / "runtime" / "cdk_leaderboard_lambda" / "__init__.py"
    )
    assert report["runtime_names"] == []  # never also as cdk_leaderboard.runtime.cdk_leaderboard_lambda
    assert report["stacks"] == ["games", "tools"]
    assert len(set(report["rest_apis"])) == 3

    # The Lambda asset is the installed package's runtime folder, `cdk_leaderboard_lambda` at its root as Lambda
    # imports it, with the third-party packages the wheel ships installed beside it (no network, no Docker).
    outdir = tmp_path / "cdk.out"
    handler_files = list(outdir.glob("asset.*/cdk_leaderboard_lambda/handlers/score_submit.py"))
    assert handler_files, sorted(p.name for p in outdir.iterdir())
    asset = handler_files[0].parents[2]
    for package in ("jwt", "rfc8785", "cryptography"):
        assert (asset / package / "__init__.py").is_file(), package
    assert list(asset.glob("cryptography/hazmat/bindings/_rust*.so"))
    assert list(outdir.glob("asset.*/site/index.html")), "the dashboard's site asset"
    template = json.loads((outdir / "games.template.json").read_text())
    handlers = {
        r["Properties"]["Handler"] for r in template["Resources"].values() if r["Type"] == "AWS::Lambda::Function"
    }
    assert handlers and all(h.startswith("cdk_leaderboard_lambda.handlers.") for h in handlers)


def test_an_app_with_a_module_of_the_lambda_packages_name_is_refused_clearly(user_env, tmp_path):
    """`cdk_leaderboard_lambda` is the Lambda package's one name: another module of that name on the app's path is
    refused, not shadowed. (One already imported is refused the same way: tests/unit/test_module_names.py.)"""
    (tmp_path / "cdk_leaderboard_lambda").mkdir()
    (tmp_path / "cdk_leaderboard_lambda" / "__init__.py").write_text('OWNER = "user-app"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run(
        [str(user_env), "-c", "import cdk_leaderboard"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode != 0
    assert (
        "ImportError: cdk_leaderboard imports its Lambda package as top-level `cdk_leaderboard_lambda`" in result.stderr
    )
    assert "Rename your own `cdk_leaderboard_lambda`" in result.stderr
    assert str(tmp_path / "cdk_leaderboard_lambda") in result.stderr


def test_the_example_app_synthesizes_with_the_installed_construct(user_env, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["CDK_OUTDIR"] = str(tmp_path)
    example = ROOT / "examples" / "basic"
    run(str(user_env), "app.py", cwd=example, env=env)
    template = json.loads((tmp_path / "my-game.template.json").read_text())
    assert "ApiUrl" in template["Outputs"]
    (declared,) = {
        r["Properties"]["Environment"]["Variables"]["DECLARED_BOARDS"]
        for r in template["Resources"].values()
        if r["Type"] == "AWS::Lambda::Function"
    }
    assert json.loads(declared)[0]["board_id"] == "speedrun"


def _fresh_clone(into: Path) -> Path:
    """The checkout's files as a clone has them: tracked (and new, not ignored) files only, so no lambda_deps (which
    `make setup` fetches, gitignored), no venv, no build output."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a file deleted in the work tree but still tracked is not in a clone of it either
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    assert not (into / "stacks" / "leaderboard" / "lambda_deps").exists()
    return into


def test_a_wheel_built_from_a_fresh_clone_as_the_readme_says_fails_with_the_command_to_run(tmp_path):
    """The README's build line in a clone that has not fetched the functions' wheels: the build stops (no wheel at
    all, rather than one whose synth fails in the user's app) and says what to run; that command is the README's line
    before it, and a target of the Makefile."""
    clone = _fresh_clone(tmp_path / "clone")
    readme = (ROOT / "README.md").read_text()
    build = "python -m pip wheel --no-deps -w dist ."
    fetch = "make lambda-deps"
    assert readme.index(fetch) < readme.index(build)
    result = subprocess.run(
        [sys.executable, *build.split()[1:]], cwd=clone, capture_output=True, text=True, timeout=600
    )
    assert result.returncode != 0 and not list((clone / "dist").glob("*.whl"))
    output = result.stdout + result.stderr
    assert "cdk-leaderboard's wheel would lack the Lambda functions' packages" in output, output[-3000:]
    assert f"run `{fetch}` in the checkout" in output
    assert run("make", "-n", fetch.split()[1], cwd=clone)  # the target exists in the clone's Makefile


VERIFIER_PINS = ("rfc8785", "cryptography")


def test_the_verifier_runs_from_the_installed_wheel_and_asks_for_its_extra_without_it(user_env, wheel, tmp_path):
    """`python -m leaderboard_verify` from the installed wheel, outside the checkout: without the `verify` extra it
    says what to install (no traceback); with it, it verifies a spec vector's log and refuses a tampered one."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    verify = [str(user_env), "-m", "leaderboard_verify"]
    bare = subprocess.run([*verify, "--help"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert bare.returncode == 2 and "Traceback" not in bare.stderr, bare
    assert (
        bare.stderr.startswith("leaderboard_verify needs ") and 'pip install "cdk-leaderboard[verify]"' in bare.stderr
    )

    pins = tmp_path / "verify-pins.txt"
    locked = lambda_asset.locked((ROOT / "requirements-lambda.txt").read_text())
    pins.write_text("".join(f"{name}=={version}\n" for name, version in locked if name in VERIFIER_PINS))
    install = [str(user_env), *PIP, "install", "--quiet", "--no-compile", "--no-index", "--find-links", str(WHEELHOUSE)]
    install += ["--constraint", str(pins), f"{wheel}[verify]"]
    if subprocess.run(install, cwd=ROOT, capture_output=True, timeout=600).returncode != 0:
        run(str(user_env), *PIP, "download", "--quiet", "--dest", str(WHEELHOUSE), "-r", str(pins))
        run(*install)

    from tests.support.proof_vectors import tournament

    log = tournament().export()
    (tmp_path / "log.json").write_text(json.dumps(log))
    good = run(*verify, "--log", str(tmp_path / "log.json"), cwd=tmp_path, env=env)
    assert good.splitlines()[-1] == "VERIFIED: 1 check passed", good
    where = run(
        str(user_env), "-c", "import leaderboard_verify; print(leaderboard_verify.__file__)", cwd=tmp_path, env=env
    )
    assert Path(where.strip()).resolve().is_relative_to(user_env.parents[1].resolve())
    log["records"][2]["score"] += 1
    (tmp_path / "log.json").write_text(json.dumps(log))
    bad = subprocess.run(
        [*verify, "--log", "log.json"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert bad.returncode == 1 and bad.stdout.startswith("FAIL log: record seq 3 (position 3): hash: "), bad
