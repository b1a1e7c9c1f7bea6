"""Everything a forker would change, with defaults that suit the stage."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_logs as logs

from .paths import routes
from .runtime.leaderboard.boards import parse_new_board

# Upper bounds on each function's concurrency: a cost bound per function, and isolation (a flood of anonymous
# reads cannot take the concurrency that score submissions need). Lambda keeps 100 of the account's quota
# unreserved, so an account needs a quota of at least 100 + the sum (`make preflight` checks it).
DEFAULT_RESERVED_CONCURRENCY: Mapping[str, int] = {
    "score-submit": 20,
    "leaderboard-query": 20,
    "player-stats": 10,
    "leaderboard-snapshot": 2,
    "score-simulator": 2,
    "leaderboard-admin": 5,
    # One invocation per stream shard and parallelization slot (2): 5 covers a table of a few partitions.
    "rank-counter": 5,
}

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")  # a typo here would mean alarms that reach nobody


@dataclass(frozen=True)
class LeaderboardProps:
    stage: str = "dev"
    # None: DESTROY in a non-prod stage, RETAIN in prod (tables, log groups, secrets).
    removal_policy: RemovalPolicy | None = None
    # Graviton nano (0.5 GiB): the dashboard is static files and a proxy; first boot adds a 1 GiB swap
    # file so that dnf fits. ~3 USD/month.
    instance_type: str = "t4g.nano"
    # None: any origin outside prod; in prod only the dashboard's own (HTTPS) origin.
    cors_origins: Sequence[str] | None = None
    # Default throttle of every API method (each method has its own bucket), requests/s.
    throttle_rate_limit: float = 50.0
    throttle_burst_limit: int = 100
    # Anonymous reads get their own, lower per-method throttle.
    public_read_rate_limit: float = 25.0
    public_read_burst_limit: int = 50
    # Per API key (usage plans): the game-server key submits scores, the admin key manages boards,
    # snapshots and the simulator. Each key is refused on the other key's routes.
    game_key_rate_limit: float = 50.0
    game_key_burst_limit: int = 100
    game_key_daily_quota: int = 1_000_000
    admin_key_rate_limit: float = 5.0
    admin_key_burst_limit: int = 10
    admin_key_daily_quota: int = 10_000
    # None: on in a non-prod stage, off in prod.
    enable_simulator: bool | None = None
    # Reserved concurrency per function name; a function left out has none. {} reserves nothing.
    reserved_concurrency: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_RESERVED_CONCURRENCY))
    # None: no WAF. A number: a regional web ACL on the API stage that blocks an IP address sending more
    # than this many requests in 5 minutes (about 6 USD/month, see README).
    waf_requests_per_5_minutes_per_ip: int | None = None
    # False: the stack sets the account's API Gateway CloudWatch role (account-wide, kept on deletion).
    # True: the account already has one (`make preflight` checks it), the stack leaves it alone.
    account_has_api_gateway_logging_role: bool = False
    # None: the Powertools layer's ARN is read from AWS's public SSM parameter at deploy time.
    powertools_layer_arn: str | None = None
    # None: CloudFront's origin-facing managed prefix list id from the region table in dashboard.py.
    cloudfront_prefix_list_id: str | None = None
    # Daily and weekly entries are deleted by TTL this many days after their period ends.
    period_retention_days: int = 35
    log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH
    lambda_memory_mb: int = 256
    dashboard: bool = True  # False: API and tables only (no VPC, no instance, no CloudFront)
    # Boards that exist as soon as the stack is deployed, as POST /leaderboards bodies.
    boards: Sequence[dict[str, Any]] = ()
    # False: no alarms, alarm topic or CloudWatch dashboard (see README's cost table for what they cost).
    monitoring: bool = True
    # Every alarm notifies one SNS topic; this address gets an e-mail subscription (AWS asks it to confirm).
    alarm_email: str | None = None

    def __post_init__(self) -> None:
        if self.alarm_email is not None and not _EMAIL.fullmatch(self.alarm_email):
            raise ValueError(f"alarm_email is not an e-mail address: {self.alarm_email!r}")
        for body in self.boards:
            parse_new_board(dict(body), created_at=None)
        known = {f.name for f in routes.FUNCTIONS}
        unknown = sorted(set(self.reserved_concurrency) - known)
        if unknown:
            raise ValueError(f"reserved_concurrency names unknown functions: {', '.join(unknown)}")
        if any(not isinstance(n, int) or n < 1 for n in self.reserved_concurrency.values()):
            raise ValueError("reserved_concurrency values must be integers >= 1 (leave a function out for none)")
        if self.waf_requests_per_5_minutes_per_ip is not None and not (
            10 <= self.waf_requests_per_5_minutes_per_ip <= 2_000_000_000
        ):
            raise ValueError("waf_requests_per_5_minutes_per_ip must be between 10 and 2,000,000,000 (WAF's range)")

    @property
    def is_prod(self) -> bool:
        return self.stage.startswith("prod")

    @property
    def effective_removal_policy(self) -> RemovalPolicy:
        if self.removal_policy is not None:
            return self.removal_policy
        return RemovalPolicy.RETAIN if self.is_prod else RemovalPolicy.DESTROY

    @property
    def simulator_enabled(self) -> bool:
        return (not self.is_prod) if self.enable_simulator is None else self.enable_simulator

    @classmethod
    def from_context(cls, stage: str, overrides: dict[str, Any] | None) -> LeaderboardProps:
        """Props from cdk.json's `stages.<stage>` context block (plain JSON values)."""
        values = dict(overrides or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown leaderboard props in context for stage {stage}: {', '.join(unknown)}")
        if "removal_policy" in values:
            values["removal_policy"] = RemovalPolicy[values["removal_policy"].upper()]
        if "log_retention" in values:
            values["log_retention"] = logs.RetentionDays[values["log_retention"].upper()]
        if values.get("reserved_concurrency") is None and "reserved_concurrency" in values:
            values["reserved_concurrency"] = {}
        return cls(stage=stage, **values)
