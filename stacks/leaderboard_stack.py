"""The deployable stack: composes the Leaderboard construct and exports its outputs."""

from __future__ import annotations

from aws_cdk import CfnOutput, Stack
from constructs import Construct

from .leaderboard import Leaderboard, LeaderboardProps


class LeaderboardStack(Stack):
    def __init__(self, scope: Construct, id: str, *, props: LeaderboardProps, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        board = Leaderboard(self, "Leaderboard", props)
        self.leaderboard = board
        outputs = {
            "ApiUrl": (board.api.url, "Base URL of the REST API"),
            "ScoresTableName": (board.tables.scores.table_name, "Live scores table"),
            "SnapshotsTableName": (board.tables.snapshots.table_name, "Append-only snapshot history"),
            "ApiKeySecretArn": (board.api_construct.api_key_secret.secret_arn, "Secret holding the write API key"),
        }
        if board.dashboard is not None:
            outputs["DashboardUrl"] = (board.dashboard.url, "The dashboard (Nginx on EC2)")
            outputs["AdminSecretArn"] = (board.dashboard.admin_secret.secret_arn, "Secret holding the admin password")
        if board.monitoring is not None:
            outputs["OperationsDashboardUrl"] = (board.monitoring.dashboard_url, "CloudWatch dashboard: alarms and figures")
            outputs["AlarmTopicArn"] = (board.monitoring.alarm_topic.topic_arn, "SNS topic that every alarm notifies")
        for name, (value, description) in outputs.items():
            # Stable logical ids: scripts and other stacks can rely on them across refactors.
            CfnOutput(self, name, value=value, description=description).override_logical_id(name)
