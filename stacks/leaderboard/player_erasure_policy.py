"""What erasure on request needs beyond the functions' everyday actions (lambda_src/leaderboard/player_removal.py):
statements of the one shared, hand-written role (api.py adds them to its inline policy)."""

from __future__ import annotations

from aws_cdk import aws_iam as iam

from .tables import LeaderboardTables


def erasure_statements(tables: LeaderboardTables) -> list[iam.PolicyStatement]:
    """Erasure replaces an erased player in the snapshot history: it scans the history (in steps) and rewrites
    the snapshots that name them, the only change the append-only history ever gets."""
    return [
        iam.PolicyStatement(
            sid="SnapshotsErasure",
            actions=["dynamodb:Scan", "dynamodb:UpdateItem"],
            resources=[tables.snapshots.table_arn],
        )
    ]
