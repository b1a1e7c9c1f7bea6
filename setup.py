"""The construct's wheel refuses to build without the functions' third-party wheels (stacks/leaderboard/lambda_deps,
fetched by `make lambda-deps` or `make setup`, gitignored): a wheel without them built fine and then failed in a
user's `cdk synth`, far from the cause. Everything else about the distribution is in pyproject.toml. Editable installs
(`make setup` makes one before it fetches) are not wheels of this command and build as before."""

import importlib.util
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
BUILD_HINT = (
    "run `make lambda-deps` in the checkout (it downloads requirements-lambda.txt's wheels for the functions' "
    "platform, every file hash-checked), then build the wheel again"
)


def _lock_module():
    """stacks/leaderboard/lambda_lock.py by its path: the package's __init__ imports aws-cdk-lib, which the isolated
    build environment does not have."""
    spec = importlib.util.spec_from_file_location("_lambda_lock", HERE / "stacks" / "leaderboard" / "lambda_lock.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CheckedWheel(bdist_wheel):
    def run(self):
        lock = _lock_module()
        try:
            lock.wheels(HERE / "stacks" / "leaderboard" / "lambda_deps", BUILD_HINT)
        except lock.LambdaDependenciesMissing as missing:
            raise SystemExit(f"cdk-leaderboard's wheel would lack the Lambda functions' packages: {missing}") from None
        super().run()


setup(cmdclass={"bdist_wheel": CheckedWheel})
