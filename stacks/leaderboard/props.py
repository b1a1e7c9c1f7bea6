"""Everything a forker would change, with defaults that suit the stage."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any, Sequence

from aws_cdk import RemovalPolicy
from aws_cdk import aws_logs as logs

from . import paths  # noqa: F401  (puts lambda_src on sys.path)

_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")  # a typo here would mean alarms that reach nobody


@dataclass(frozen=True)
class LeaderboardProps:
    stage: str = "dev"
    # None: DESTROY in a non-prod stage, RETAIN in prod (tables, log groups, secrets).
    removal_policy: RemovalPolicy | None = None
    # Graviton nano: the dashboard is static files and a proxy; ~3 USD/month.
    instance_type: str = "t4g.nano"
    # None: any origin outside prod; in prod only the dashboard's own origin.
    cors_origins: Sequence[str] | None = None
    throttle_rate_limit: float = 50.0  # requests/s for the whole stage
    throttle_burst_limit: int = 100
    # None: on in a non-prod stage, off in prod.
    enable_simulator: bool | None = None
    # Daily and weekly entries are deleted by TTL this many days after their period ends.
    period_retention_days: int = 35
    log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH
    lambda_memory_mb: int = 256
    dashboard: bool = True  # False: API and tables only (no VPC, no instance)
    # Boards that exist as soon as the stack is deployed, as POST /leaderboards bodies.
    boards: Sequence[dict[str, Any]] = ()
    # False: no alarms, alarm topic or CloudWatch dashboard (see README's cost table for what they cost).
    monitoring: bool = True
    # Every alarm notifies one SNS topic; this address gets an e-mail subscription (AWS asks it to confirm).
    alarm_email: str | None = None

    def __post_init__(self) -> None:
        from leaderboard.boards import parse_new_board  # the Lambda code's own validation, run at synth

        if self.alarm_email is not None and not _EMAIL.fullmatch(self.alarm_email):
            raise ValueError(f"alarm_email is not an e-mail address: {self.alarm_email!r}")
        for body in self.boards:
            parse_new_board(dict(body), created_at=None)

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
    def from_context(cls, stage: str, overrides: dict[str, Any] | None) -> "LeaderboardProps":
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
        return cls(stage=stage, **values)
