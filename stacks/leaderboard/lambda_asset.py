"""The functions' one code asset: the Lambda package and its third-party packages, built on this machine.

The third-party packages (PyJWT, rfc8785, cryptography and what they need) are pinned with the hash of every file in
requirements-lambda.txt. `make setup` downloads their wheels for the functions' platform (Lambda's Python 3.14 on
arm64: manylinux aarch64 builds) with pip's --require-hashes into LAMBDA_DEPS, with a copy of the lock beside them; the
construct's wheel ships that folder as package data. Synth then needs no network and no Docker: CDK's local bundling
(`LocalBundling`) copies the package and installs each wheel with PyPA's `installer` (the library pip's own wheel
installation follows: RECORD checked against the files, nothing written outside the target, no bytecode), into one
folder as `pip install --target` would. One asset rather than a layer: one upload, no layer versions to keep or clean
up, the same hash rules for everything the functions import.

The asset hash is the output's (AssetHashType.OUTPUT): what is uploaded is what is hashed, so a new pin changes it
even when no file of lambda_src did. CDK's directory fingerprint reads paths and contents, not times; the files are
written from sorted lists and the wheels' RECORDs are theirs, so two synths and two clones give the same hash
(tests/infra/test_lambda_asset.py).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import jsii
from aws_cdk import AssetHashType, BundlingOptions, DockerImage, ILocalBundling
from aws_cdk import aws_lambda as lambda_
from installer import install
from installer.destinations import SchemeDictionaryDestination
from installer.exceptions import InstallerError
from installer.sources import WheelFile

from . import lambda_lock
from .lambda_lock import FETCH_HINT, LOCK_NAME, LambdaDependenciesMissing, locked

LAMBDA_DEPS = Path(__file__).resolve().parent / "lambda_deps"  # gitignored in a checkout; package data in the wheel
# Where Lambda's Python 3.14 lives: the interpreter a wheel's console scripts would name (none of ours has one)
LAMBDA_INTERPRETER = "/var/lang/bin/python3.14"

__all__ = ["FETCH_HINT", "LAMBDA_DEPS", "LOCK_NAME", "LambdaDependenciesMissing", "code", "locked", "wheels"]


def wheels(deps: Path | None = None) -> list[Path]:
    """The fetched wheels (in `deps`, default LAMBDA_DEPS), one per locked package, each with a hash the lock lists;
    else a clear error."""
    return lambda_lock.wheels(deps or LAMBDA_DEPS)


def _install(wheel: Path, out: Path) -> None:
    """`wheel` installed into `out`, every scheme of it there (as `pip install --target`), its RECORD checked first;
    a wheel that does not match its RECORD or writes outside `out` stops the build."""
    target = str(out)
    schemes = {"purelib": target, "platlib": target, "data": target}
    destination = SchemeDictionaryDestination(
        {**schemes, "headers": str(out / "include"), "scripts": str(out / "bin")},
        interpreter=LAMBDA_INTERPRETER,
        script_kind="posix",
    )
    try:
        with WheelFile.open(wheel) as source:
            source.validate_record()
            install(source, destination, additional_metadata={})
    except (InstallerError, ValueError, OSError) as error:
        raise LambdaDependenciesMissing(f"{wheel.name} is not a wheel this build installs: {error}") from error


def build(out: Path, source: Path, fetched: list[Path]) -> None:
    """The asset's content in `out`: `source` (lambda_src, less bytecode) and the `fetched` wheels installed."""
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_file() and "__pycache__" not in relative.parts and path.suffix != ".pyc":
            target = out / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    for wheel in fetched:
        _install(wheel, out)


@jsii.implements(ILocalBundling)
class LocalBundling:
    """CDK's bundling hook, run at synth on this machine (never in Docker: it always succeeds or raises)."""

    def __init__(self, source: Path, fetched: list[Path]) -> None:
        self.source, self.fetched = source, fetched

    def try_bundle(self, output_dir: str, *args: object, **kwargs: object) -> bool:
        build(Path(output_dir), self.source, self.fetched)
        return True


def code(source: Path, deps: Path | None = None) -> lambda_.AssetCode:
    """The functions' code: `source` and the locked third-party packages (in `deps`, default LAMBDA_DEPS), hashed by
    their content."""
    fetched = wheels(deps)  # checked once, here: a clear error at construction, before CDK's bundling wraps it
    return lambda_.Code.from_asset(
        str(source),
        asset_hash_type=AssetHashType.OUTPUT,
        bundling=BundlingOptions(
            # never used: local bundling returns True or raises (CDK requires an image all the same)
            image=DockerImage.from_registry("public.ecr.aws/sam/build-python3.14"),
            local=LocalBundling(source, fetched),
        ),
    )
