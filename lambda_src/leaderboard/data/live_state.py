"""Live updates: what was last published for a board period (when, and a digest of the top), items of the scores
table (keys.live_sent_key). The conditional claim on it keeps parallel broadcasters to one publish per interval."""

from __future__ import annotations

from typing import Any

from .. import keys, schema
from . import dynamo


def _key(board_id: str, period_id: str) -> dict:
    partition, sort = keys.live_sent_key(board_id, period_id)
    return dynamo.to_item({schema.SCORES_PARTITION_KEY: partition, schema.SCORES_SORT_KEY: sort})


def last_sent(board_id: str, period_id: str) -> dict[str, Any] | None:
    """What was last published for a board period ({"sent_at_ms", "digest"}), read strongly consistent."""
    answer = dynamo.client().get_item(
        TableName=dynamo.scores_table(), Key=_key(board_id, period_id), ConsistentRead=True
    )
    return dynamo.from_item(answer["Item"]) if "Item" in answer else None


def claim_send(
    board_id: str, period_id: str, previous_ms: int | None, sent_at_ms: int, digest: str, expires_at: int
) -> bool:
    """Record a publish, only if nobody published for this board period since `previous_ms` (our read). False
    when another broadcaster got there first."""
    condition = "attribute_not_exists(sent_at_ms)" if previous_ms is None else "sent_at_ms = :previous"
    values = {":now": sent_at_ms, ":digest": digest, ":expires": expires_at}
    if previous_ms is not None:
        values[":previous"] = previous_ms
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=_key(board_id, period_id),
            UpdateExpression=f"SET sent_at_ms = :now, digest = :digest, {schema.TTL_ATTRIBUTE} = :expires",
            ConditionExpression=condition,
            ExpressionAttributeValues=dynamo.to_item(values),
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False
    return True


def finish_send(board_id: str, period_id: str, claimed_ms: int, done_ms: int) -> None:
    """Move the publish's time to when it ended, if nobody claimed since: the next one waits a full interval from
    the moment AppSync took this one."""
    _update_if_claimed(board_id, period_id, claimed_ms, "SET sent_at_ms = :done", {":done": done_ms})


def release(board_id: str, period_id: str, claimed_ms: int) -> None:
    """Forget the digest of a claimed publish that failed (if nobody claimed since), so that the retried batch
    publishes that top instead of finding it "already sent"; the time stays (the interval still holds)."""
    _update_if_claimed(board_id, period_id, claimed_ms, "REMOVE digest", {})


def _update_if_claimed(board_id: str, period_id: str, claimed_ms: int, expression: str, values: dict) -> None:
    try:
        dynamo.client().update_item(
            TableName=dynamo.scores_table(),
            Key=_key(board_id, period_id),
            UpdateExpression=expression,
            ConditionExpression="sent_at_ms = :claimed",
            ExpressionAttributeValues=dynamo.to_item({**values, ":claimed": claimed_ms}),
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass  # claimed again meanwhile (its own state counts)
