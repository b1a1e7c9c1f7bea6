"""An independent check of a leaderboard period's evidence: its hash-chained log, its signed closing summary and the
signed rank receipts players hold (docs/PROVING.md).

Written from the published format alone: it imports nothing of the Lambda code or the construct, so that a bug
shared by the server and its check cannot hide. Run it as `python -m leaderboard_verify` (or `make verify`); its
dependencies are the wheel's `verify` extra (`pip install "cdk-leaderboard[verify]"`). Modules: chain (the records
and their links), standings (the replay), jws (signatures and the JWKS), checks (receipts and summaries), inputs
(files and the API), cli.
"""
