"""The deployed live updates' API key from an operator's machine: its expiry (preflight) and
`python -m ops renew-live-key --stage STAGE`, which runs the same renewal as the stack's schedule
(cdk_leaderboard_lambda/operations/live_key.py: the same key extended to LIVE_KEY_VALID_DAYS ahead) with the operator's
credentials."""

from __future__ import annotations

from datetime import UTC, datetime

import boto3
import cdk_leaderboard.paths  # noqa: F401 (loads the Lambda package under its one name, as the construct does)

from cdk_leaderboard_lambda.data.live_key import AppSyncApiKey, KeyRenewalFailed
from cdk_leaderboard_lambda.operations import live_key as renewal

from .outputs import require, stack_outputs

__all__ = ["KeyRenewalFailed", "key_ids", "expiry", "renew", "days_left", "RENEW_COMMAND"]
days_left = renewal.days_left

RENEW_COMMAND = "python -m ops renew-live-key --stage {stage}"


def key_ids(session: boto3.Session, stack: str) -> tuple[str, str]:
    """The Event API's id and its subscribe key's id (the stack's outputs LiveApiId, LiveApiKeyId)."""
    api_id, key_id = require(stack_outputs(session, stack), "LiveApiId", "LiveApiKeyId")
    return api_id, key_id


def expiry(session: boto3.Session, stack: str) -> int | None:
    """The key's expiry (epoch s), or None when AppSync has no such key any more (deleted 60 days after lapsing)."""
    api_id, key_id = key_ids(session, stack)
    for page in session.client("appsync").get_paginator("list_api_keys").paginate(apiId=api_id):
        for key in page.get("apiKeys", []):
            if key.get("id") == key_id:
                return int(key["expires"])
    return None


def renew(session: boto3.Session, stack: str, now: datetime | None = None) -> dict[str, int]:
    """Extend the key now; AppSync's answer {"expires", "deletes"} (raises KeyRenewalFailed)."""
    api_id, key_id = key_ids(session, stack)
    key = AppSyncApiKey(api_id, key_id, lambda: session.client("appsync"))
    return renewal.renew(key, now or datetime.now(UTC))
