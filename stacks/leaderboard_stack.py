"""The deployable stack: composes the Leaderboard construct and exports its outputs."""

from __future__ import annotations

from aws_cdk import CfnOutput, Stack
from cdk_leaderboard import Leaderboard, LeaderboardProps
from cdk_leaderboard.paths import routes
from constructs import Construct


class LeaderboardStack(Stack):
    def __init__(self, scope: Construct, id: str, *, props: LeaderboardProps, **kwargs) -> None:
        super().__init__(scope, id, **kwargs)
        board = Leaderboard(self, "Leaderboard", props)
        self.leaderboard = board
        api = board.api_construct
        outputs = {
            "ApiUrl": (board.api.url, "Base URL of the REST API"),
            **(
                {
                    "EdgeUrl": (
                        board.edge_url,
                        "Public reads through the CloudFront cache: the API's paths, e.g. /leaderboard",
                    )
                }
                if board.edge_url
                else {}
            ),
            **(
                {
                    "LiveUrl": (
                        board.live.realtime_url,
                        "AppSync Events real-time URL of live updates (GET /leaderboards/{board} has it all)",
                    ),
                    # The live key's ids: `python -m ops renew-live-key` and preflight find the key by them.
                    "LiveApiId": (board.live.api.api_id, "AppSync Event API of live updates"),
                    "LiveApiKeyId": (
                        board.live.api_key.attr_api_key_id,
                        "Id of its subscribe-only API key (renewed by the stack)",
                    ),
                }
                if board.live  # none with Live(enabled=False): no Event API
                else {}
            ),
            "ScoresTableName": (board.tables.scores.table_name, "Live scores table"),
            "SnapshotsTableName": (board.tables.snapshots.table_name, "Append-only snapshot history"),
            "GameKeySecretArn": (api.game_key_secret.secret_arn, "Secret holding the game-server API key"),
            "AdminKeySecretArn": (api.admin_key_secret.secret_arn, "Secret holding the admin API key"),
            "TokenSigningSecretArn": (api.token_secret.secret_arn, "Secret holding the player and run tokens' key"),
            "GameUsagePlanId": (api.usage_plans[routes.GAME].usage_plan_id, "Usage plan of the game-server key"),
            "AdminUsagePlanId": (api.usage_plans[routes.ADMIN].usage_plan_id, "Usage plan of the admin key"),
            "EventBusName": (
                board.season.bus.event_bus_name,
                "EventBridge bus of the Leaderboard Period Closed events",
            ),
        }
        if board.dashboard is not None:
            outputs["DashboardUrl"] = (board.dashboard.url, "The dashboard (HTTPS, CloudFront in front of Nginx)")
            outputs["DashboardPasswordSecretArn"] = (
                board.dashboard.password_secret.secret_arn,
                "Secret holding the dashboard's admin password",
            )
            outputs["DashboardInstanceId"] = (board.dashboard.instance.instance_id, "The dashboard's EC2 instance")
        if board.monitoring is not None and board.monitoring.dashboard_url is not None:
            outputs["OperationsDashboardUrl"] = (
                board.monitoring.dashboard_url,
                "CloudWatch dashboard: alarms and figures",
            )
        if board.monitoring is not None:
            outputs["AlarmTopicArn"] = (board.monitoring.alarm_topic.topic_arn, "SNS topic that every alarm notifies")
        if api.cursor_secret is not None:  # production only (elsewhere the cursor keys derive from the token secret)
            outputs["CursorSigningSecretArn"] = (
                api.cursor_secret.secret_arn,
                "Secret holding the key that signs page cursors",
            )
        if api.receipt_secret is not None:  # production only (elsewhere the key derives from the digest key)
            outputs["ReceiptSigningSecretArn"] = (
                api.receipt_secret.secret_arn,
                "Secret holding the Ed25519 key that signs receipts and closing summaries",
            )
        for name, (value, description) in outputs.items():
            # Stable logical ids: scripts (`python -m ops`) and other stacks rely on them across refactors.
            CfnOutput(self, name, value=value, description=description).override_logical_id(name)
