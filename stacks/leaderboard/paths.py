"""Where the construct finds the Lambda code and the dashboard files, and the shared pure-data modules."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LAMBDA_SRC = ROOT / "lambda_src"
DASHBOARD_DIR = ROOT / "dashboard_ec2"

# The Lambda code is one package, `leaderboard`, at the root of its asset; its route table and table
# schema are plain data, so the CDK app imports the very same files.
if str(LAMBDA_SRC) not in sys.path:
    sys.path.insert(0, str(LAMBDA_SRC))

from leaderboard import limits, metrics, routes, schema  # noqa: E402

__all__ = ["ROOT", "LAMBDA_SRC", "DASHBOARD_DIR", "limits", "metrics", "routes", "schema"]
