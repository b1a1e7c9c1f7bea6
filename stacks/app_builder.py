"""Builds the CDK app the same way for `cdk synth`, the tests and the local stack."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aws_cdk as cdk
from aws_cdk import Validations
from cdk_leaderboard import LeaderboardProps
from cdk_nag import AwsSolutionsChecks

from .leaderboard_stack import LeaderboardStack

ROOT = Path(__file__).resolve().parents[1]


def cdk_json_context() -> dict[str, Any]:
    return json.loads((ROOT / "cdk.json").read_text())["context"]


def stack_name(stage: str) -> str:
    return f"leaderboard-{stage}"


def build_app(
    stage: str | None = None, *, context: dict[str, Any] | None = None, outdir: str | None = None, nag: bool = True
) -> cdk.App:
    """An App with cdk.json's context (feature flags), the stage's props and cdk-nag attached.

    When run by the CDK CLI the CLI passes context itself; elsewhere (tests, local) we load it,
    since a bare App() would synthesize with every feature flag off.
    """
    ctx = {**cdk_json_context(), **(context or {})}
    app = cdk.App(context=ctx, outdir=outdir)
    stage = stage or app.node.try_get_context("stage") or "dev"
    stages = app.node.try_get_context("stages") or {}
    props = LeaderboardProps.from_context(stage, stages.get(stage))
    LeaderboardStack(
        app,
        stack_name(stage),
        props=props,
        # Env-agnostic (no account/region): synth needs no credentials and makes no lookups.
        description=f"Real-time multi-period leaderboard ({stage})",
    )
    if nag:
        Validations.of(app).add_plugins(AwsSolutionsChecks(app))
    return app
