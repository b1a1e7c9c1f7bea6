"""A stage's settings, read the way `cdk synth` reads them (cdk.json's stage block -> LeaderboardProps)."""

from __future__ import annotations

from cdk_leaderboard import LeaderboardProps

from stacks.app_builder import cdk_json_context, stack_name

__all__ = ["stage_props", "stack_name", "bootstrap_qualifier"]


def stage_props(stage: str) -> LeaderboardProps:
    stages = cdk_json_context().get("stages") or {}
    return LeaderboardProps.from_context(stage, stages.get(stage))


def bootstrap_qualifier() -> str:
    """The CDK bootstrap qualifier the app synthesizes with (cdk.json may set its own)."""
    return cdk_json_context().get("@aws-cdk/core:bootstrapQualifier", "hnb659fds")
