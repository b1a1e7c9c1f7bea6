"""Leaderboard: tables, the functions on one role, the REST API with its two keys, the dashboard and the alarms."""

from __future__ import annotations

from aws_cdk import Stack
from constructs import Construct

from .api import LeaderboardApi
from .counting import RankCounterSource
from .dashboard import Dashboard, DashboardAddress
from .data import LeaderboardTables
from .monitoring import LeaderboardMonitoring
from .paths import routes
from .props import LeaderboardProps
from .season import SeasonClosing


class Leaderboard(Construct):
    def __init__(self, scope: Construct, id: str, props: LeaderboardProps | None = None) -> None:
        super().__init__(scope, id)
        props = props or LeaderboardProps()
        self.props = props
        self.tables = LeaderboardTables(
            self, "Tables", removal_policy=props.effective_removal_policy, deletion_protection=props.is_prod
        )
        address = DashboardAddress(self, "DashboardAddress") if props.dashboard else None
        self.api_construct = LeaderboardApi(
            self, "Api", props=props, tables=self.tables, cors_origins=self._cors_origins(props, address)
        )
        self.api = self.api_construct.rest_api
        self.functions = self.api_construct.functions
        self.role = self.api_construct.role
        self.rank_counter = RankCounterSource(
            self, "RankCounter", tables=self.tables, function=self.functions[routes.RANK_COUNTER.name]
        )
        self.season = SeasonClosing(
            self,
            "Season",
            role=self.role,
            closer=self.functions[routes.PERIOD_CLOSER.name],
            publishers=[self.functions[routes.LEADERBOARD_ADMIN.name]],  # POST .../periods/{period_id}/close
        )
        self.dashboard: Dashboard | None = None
        if address is not None:
            self.dashboard = Dashboard(
                self,
                "Dashboard",
                props=props,
                address=address,
                api_host=f"{self.api.rest_api_id}.execute-api.{Stack.of(self).region}.{Stack.of(self).url_suffix}",
                api_stage=self.api.deployment_stage.stage_name,
                api_url=self.api.url,
                admin_key_secret=self.api_construct.admin_key_secret,
            )
        self.monitoring: LeaderboardMonitoring | None = None
        if props.monitoring:
            self.monitoring = LeaderboardMonitoring(
                self,
                "Monitoring",
                props=props,
                tables=self.tables,
                functions=self.functions,
                api=self.api,
                instance=self.dashboard.instance if self.dashboard else None,
            )
        self.alarm_topic = self.monitoring.alarm_topic if self.monitoring else None
        self.operations_dashboard = self.monitoring.operations_dashboard if self.monitoring else None

    @staticmethod
    def _cors_origins(props: LeaderboardProps, address: DashboardAddress | None) -> list[str]:
        if props.cors_origins:
            return list(props.cors_origins)
        # The dashboard itself calls its own same-origin /api/ proxy and needs no CORS; prod allows only its
        # HTTPS origin (never "*"), for a page that would call the API directly.
        if props.is_prod and address is not None:
            return [address.url]
        return ["*"]
