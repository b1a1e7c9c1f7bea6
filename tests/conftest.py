"""Test-wide environment: fake AWS credentials and region, so nothing can reach real AWS. (Every local stack runs on
tests/support/clock.RunningClock and moves it past midnight UTC rather than cross it: integration, fuzz, browser.)"""

import gc
import importlib.util
import os
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
        "JSII_SILENCE_WARNING_DEPRECATED_NODE_VERSION": "1",
    }
)
os.environ.pop("AWS_PROFILE", None)

# The app and the tests import the construct as users do, `cdk_leaderboard`, from an editable install of this checkout
# (`make setup`). A venv shared with another checkout would silently test that checkout's construct: refuse instead.
_construct = importlib.util.find_spec("cdk_leaderboard")
_checkout = Path(__file__).resolve().parents[1]
if _construct is None or not Path(_construct.origin).resolve().is_relative_to(_checkout):
    raise pytest.UsageError(
        f"cdk_leaderboard is {'not installed' if _construct is None else 'installed from ' + str(_construct.origin)}; "
        f"run `.venv/bin/python -m pip install --no-deps -e .` in {_checkout} (make setup does)"
    )


def pytest_configure(config):
    # hypothesis fails an example that takes over 200 ms by default: a wall-clock bound, which a loaded machine (or
    # tests/unit run at low priority beside the template suites, `make test`) would trip with nothing wrong
    settings.register_profile("suite", deadline=None)
    settings.load_profile("suite")
    # Every suite keeps a large heap (moto's tables and stream records, the local stack's state, hypothesis'
    # examples): at CPython's default thresholds a full collection walks all of it every few thousand allocations.
    # Collected less often, 70 unit tests in one process took 37 s instead of 67 s wall (sys 4 s instead of 18),
    # side by side in one run (docs/results/test-times.md, "Test-suite times"). Memory only grows until the next
    # collection.
    gc.set_threshold(50_000, 20, 100)
