"""Where the construct finds the Lambda code and the dashboard files, and the Lambda package's pure-data modules.

Both ship inside this package (`runtime` is the Lambda asset's root, `dashboard_ec2` the dashboard's files), so an
installed wheel and this repository (an editable install) find them the same way, and nothing touches sys.path: the
Lambda package is imported as `cdk_leaderboard.runtime.leaderboard` here, and as top-level `leaderboard` in Lambda.
"""

from __future__ import annotations

from pathlib import Path

from . import dashboard_ec2 as _dashboard_package
from . import runtime as _runtime_package
from .runtime.leaderboard import limits, live_channels, metrics, routes, schema

LAMBDA_SRC = Path(next(iter(_runtime_package.__path__)))
DASHBOARD_DIR = Path(next(iter(_dashboard_package.__path__)))

__all__ = ["LAMBDA_SRC", "DASHBOARD_DIR", "limits", "live_channels", "metrics", "routes", "schema"]
