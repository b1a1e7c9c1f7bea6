"""The embedded stack: the whole leaderboard on one machine.

DynamoDB Local (AWS's own engine) with tables built from the synthesized CDK
template, the real Lambda handlers behind a local API gateway that dispatches
with the same route table as the CDK API, and the dashboard behind Nginx.
"""

import os
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAMBDA_SRC = ROOT / "lambda_src"
STATE_DIR = ROOT / ".local"  # gitignored: the jar and the template cache, shared by every run


def run_dir() -> Path:
    """Where one running stack keeps its logs, nginx files, site and run.json."""
    return Path(os.environ.get("LEADERBOARD_RUN_DIR") or STATE_DIR / "run")
