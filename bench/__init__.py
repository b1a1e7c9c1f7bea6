"""The benchmark: what each API operation costs in DynamoDB requests, capacity units and time.

`python -m bench --players N` starts DynamoDB Local, loads N players onto one board and measures the
real handlers (called in-process with API Gateway proxy events) next to the original design's
COUNT-based algorithm (bench/baseline.py) on the same data. See docs/PERFORMANCE.md.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAMBDA_SRC = ROOT / "lambda_src"

# The Lambda code is the package `leaderboard` at the root of its asset, lambda_src/
for _path in (str(ROOT), str(LAMBDA_SRC)):
    if _path not in sys.path:
        sys.path.insert(0, _path)
