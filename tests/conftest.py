"""Test-wide environment: fake AWS credentials and region, so nothing can reach real AWS; no browser test across
midnight UTC."""

import importlib.util
import os
from datetime import UTC, datetime
from pathlib import Path
from time import sleep

import pytest

from tests.support import clock

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


# The browser tests' stack runs on the real clock (the browser reads it too: "today", the countdowns), and the daily
# and weekly boards change at 00:00 UTC: a test that writes just before midnight and reads just after would read a
# new, empty period. Such a test starts just after midnight instead (a wait of at most this long, on a run that happens
# to cross it). The integration and fuzz stacks move their own clock past midnight instead (tests/support/clock.py).
MIDNIGHT_MARGIN_SECONDS = clock.MIDNIGHT_MARGIN_SECONDS
_REAL_CLOCK_SUITES = {"e2e"}


@pytest.fixture(autouse=True)
def _not_across_midnight(request):
    if _REAL_CLOCK_SUITES.isdisjoint(request.node.path.relative_to(_checkout).parts):
        return
    left = clock.seconds_to_midnight(datetime.now(UTC))
    if left < MIDNIGHT_MARGIN_SECONDS:
        print(f"waiting {left:.0f} s for 00:00 UTC so that the test does not straddle a period boundary")
        sleep(left + 1)
