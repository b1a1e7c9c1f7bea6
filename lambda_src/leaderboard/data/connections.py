"""Live updates: WebSocket connections, their subscriptions, what was last pushed per board period, and the
WebSocket API's management endpoint (pushing a message to a connection)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import boto3
from botocore.config import Config

from .. import schema
from ..settings import get_settings
from . import dynamo

CONNECTION_ITEM = "#connection"
SENT_PARTITION = "#sent"
_PK, _SK = schema.CONNECTIONS_PARTITION_KEY, schema.CONNECTIONS_SORT_KEY


class TooManySubscriptions(Exception):
    """The connection follows its maximum of topics already (or is gone)."""


def table() -> str:
    name = get_settings().connections_table
    if not name:
        raise RuntimeError("CONNECTIONS_TABLE is not set: the stack sets it on the live functions")
    return name


@lru_cache(maxsize=1)
def management():
    """The WebSocket API's management API (post_to_connection), at the stage's callback URL."""
    url = get_settings().live_connections_url
    if not url:
        raise RuntimeError("LIVE_CONNECTIONS_URL is not set: the stack sets it on the live functions")
    # Short timeouts and few retries: one slow connection must not hold the others' pushes back.
    config = Config(connect_timeout=2, read_timeout=3, retries={"mode": "standard", "max_attempts": 2})
    return boto3.client("apigatewaymanagementapi", endpoint_url=url, config=config)


def _key(partition: str, item: str) -> dict:
    return dynamo.to_item({_PK: partition, _SK: item})


def put_connection(connection_id: str, connected_at_ms: int, expires_at: int) -> None:
    dynamo.client().put_item(
        TableName=table(),
        Item=dynamo.to_item(
            {
                _PK: connection_id,
                _SK: CONNECTION_ITEM,
                "connected_at": connected_at_ms,
                schema.TTL_ATTRIBUTE: expires_at,
            }
        ),
    )


def add_subscription(connection_id: str, topic: str, most: int, details: dict[str, Any]) -> None:
    """Follow `topic`: the connection's set of topics grows by it (at most `most` topics, atomically), then the
    subscription item (found through the subscribers index) is written with the connection's expiry."""
    try:
        answer = dynamo.client().update_item(
            TableName=table(),
            Key=_key(connection_id, CONNECTION_ITEM),
            UpdateExpression="ADD topics :topic",
            ConditionExpression="attribute_exists(#pk) AND (attribute_not_exists(topics) OR size(topics) < :most"
            " OR contains(topics, :name))",
            ExpressionAttributeNames={"#pk": _PK},
            ExpressionAttributeValues={":topic": {"SS": [topic]}, ":most": {"N": str(most)}, ":name": {"S": topic}},
            ReturnValues="ALL_NEW",
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException as err:
        raise TooManySubscriptions(topic) from err
    expires_at = answer["Attributes"][schema.TTL_ATTRIBUTE]["N"]
    dynamo.client().put_item(
        TableName=table(),
        Item={
            **dynamo.to_item(
                {_PK: connection_id, _SK: topic, schema.SUBSCRIBERS_INDEX_PARTITION_KEY: topic, **details}
            ),
            schema.TTL_ATTRIBUTE: {"N": expires_at},
        },
    )


def remove_subscription(connection_id: str, topic: str) -> None:
    dynamo.client().delete_item(TableName=table(), Key=_key(connection_id, topic))
    try:
        dynamo.client().update_item(
            TableName=table(),
            Key=_key(connection_id, CONNECTION_ITEM),
            UpdateExpression="DELETE topics :topic",
            ConditionExpression="attribute_exists(#pk)",
            ExpressionAttributeNames={"#pk": _PK},
            ExpressionAttributeValues={":topic": {"SS": [topic]}},
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass  # the connection is gone already


def items_of(connection_id: str) -> list[dict[str, Any]]:
    return dynamo.query_items(
        TableName=table(),
        KeyConditionExpression="#pk = :id",
        ExpressionAttributeNames={"#pk": _PK},
        ExpressionAttributeValues={":id": {"S": connection_id}},
        ConsistentRead=True,
    )


def remove_connection(connection_id: str) -> int:
    """The connection and its subscriptions (at most 1 + the subscription limit items); returns how many."""
    found = items_of(connection_id)
    for item in found:
        dynamo.client().delete_item(TableName=table(), Key=_key(item[_PK], item[_SK]))
    return len(found)


def subscribers(topic: str) -> list[str]:
    """The connections following `topic`: a query of the sparse subscribers index, one partition per topic, so
    its cost grows with this topic's subscribers only."""
    items = dynamo.query_items(
        TableName=table(),
        IndexName=schema.SUBSCRIBERS_INDEX,
        KeyConditionExpression="#topic = :topic",
        ExpressionAttributeNames={"#topic": schema.SUBSCRIBERS_INDEX_PARTITION_KEY},
        ExpressionAttributeValues={":topic": {"S": topic}},
    )
    return [item[_PK] for item in items]


def last_sent(board_period: str) -> dict[str, Any] | None:
    """What was last pushed for a board period ({"sent_at_ms", "digest"}), read strongly consistent."""
    answer = dynamo.client().get_item(TableName=table(), Key=_key(SENT_PARTITION, board_period), ConsistentRead=True)
    return dynamo.from_item(answer["Item"]) if "Item" in answer else None


def claim_send(board_period: str, previous_ms: int | None, sent_at_ms: int, digest: str, expires_at: int) -> bool:
    """Record a push, only if nobody pushed for this board period since `previous_ms` (our read): the claim that
    keeps parallel broadcasters to one push per interval. False when another one got there first."""
    condition = "attribute_not_exists(sent_at_ms)" if previous_ms is None else "sent_at_ms = :previous"
    values = {":now": sent_at_ms, ":digest": digest, ":expires": expires_at}
    if previous_ms is not None:
        values[":previous"] = previous_ms
    try:
        dynamo.client().update_item(
            TableName=table(),
            Key=_key(SENT_PARTITION, board_period),
            UpdateExpression=f"SET sent_at_ms = :now, digest = :digest, {schema.TTL_ATTRIBUTE} = :expires",
            ConditionExpression=condition,
            ExpressionAttributeValues=dynamo.to_item(values),
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        return False
    return True


def finish_send(board_period: str, claimed_ms: int, done_ms: int) -> None:
    """Move the push's time to when its posts ended, if nobody claimed since: the next push waits a full interval
    from the moment the subscribers got this one, however long posting took."""
    try:
        dynamo.client().update_item(
            TableName=table(),
            Key=_key(SENT_PARTITION, board_period),
            UpdateExpression="SET sent_at_ms = :done",
            ConditionExpression="sent_at_ms = :claimed",
            ExpressionAttributeValues=dynamo.to_item({":done": done_ms, ":claimed": claimed_ms}),
        )
    except dynamo.client().exceptions.ConditionalCheckFailedException:
        pass  # claimed again meanwhile (its own time counts)


def post(connection_id: str, data: bytes) -> bool:
    """Push one message to a connection; False when the connection is gone (closed, or never completed)."""
    try:
        management().post_to_connection(ConnectionId=connection_id, Data=data)
    except management().exceptions.GoneException:
        return False
    return True
