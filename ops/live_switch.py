"""The live updates' kill switch from an operator's machine, no deploy: `python -m ops live-off --stage STAGE`
(`make live-off`) and `live-on`. It writes the switch item in the stage's scores table (the stack output
ScoresTableName) through the same store the functions read (cdk_leaderboard_lambda/data/live_state.py): within
LIVE_SWITCH_CACHE_SECONDS every instance of the Event API's authorizer refuses new connects and subscribes, and the
broadcaster publishes nothing more, so open connections get no further events (docs/OPERATIONS.md, "Live spend and
the kill switch", says what happens to them)."""

from __future__ import annotations

import time

import boto3
import cdk_leaderboard.paths  # noqa: F401 (loads the Lambda package under its one name, as the construct does)

from cdk_leaderboard_lambda.data.live_state import DynamoLiveState

from .outputs import require, stack_outputs


def switch(session: boto3.Session, stack: str, off: bool, now: float | None = None) -> None:
    """Turn live updates off (True) or on again (False) in the deployed stack."""
    (table,) = require(stack_outputs(session, stack), "ScoresTableName")
    DynamoLiveState(session.client("dynamodb"), table).set_switch(off=off, at=int(time.time() if now is None else now))


def is_off(session: boto3.Session, stack: str) -> bool:
    (table,) = require(stack_outputs(session, stack), "ScoresTableName")
    return DynamoLiveState(session.client("dynamodb"), table).switched_off()
