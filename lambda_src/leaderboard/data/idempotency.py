"""Idempotency records: Powertools' persistence layer on the scores table, under its own partition."""

from __future__ import annotations

import threading
from typing import Any

from .. import invocation, keys, schema
from . import dynamo

KEEP_SECONDS = 24 * 3600  # how long a retry with the same Idempotency-Key gets the first result


class Records:
    """Powertools' persistence layer for one runtime's table and client: made on the first request that carries an
    Idempotency-Key (importing Powertools costs cold-start time other requests need not pay), then kept."""

    def __init__(self, table_name: str, client: Any) -> None:
        self._table_name, self._client = table_name, client
        self._layer: Any = None
        self._lock = threading.Lock()

    def persistence(self) -> Any:
        with self._lock:
            if self._layer is None:
                from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

                self._layer = DynamoDBPersistenceLayer(
                    table_name=self._table_name,
                    key_attr=schema.SCORES_PARTITION_KEY,
                    sort_key_attr=schema.SCORES_SORT_KEY,
                    static_pk_value=keys.IDEMPOTENCY_PARTITION,
                    expiry_attr=schema.TTL_ATTRIBUTE,  # the table's TTL removes old records
                    boto3_client=self._client,
                )
            return self._layer


def persistence() -> Any:
    """The runtime's persistence layer."""
    return invocation.runtime().idempotency.persistence()


def records_holding(text: str, start: dict | None, limit: int) -> tuple[list[tuple[str, str]], dict | None]:
    """Keys of idempotency records whose stored response holds `text`: one page of the records partition
    (every record of the last KEEP_SECONDS, whoever made it), filtered by DynamoDB."""
    args = {
        "TableName": dynamo.scores_table(),
        "KeyConditionExpression": f"{schema.SCORES_PARTITION_KEY} = :p",
        "FilterExpression": "contains(#data, :text)",
        "ExpressionAttributeNames": {"#data": "data"},
        "ExpressionAttributeValues": dynamo.to_item({":p": keys.IDEMPOTENCY_PARTITION, ":text": text}),
        "Limit": limit,
    }
    if start:
        args["ExclusiveStartKey"] = start
    resp = dynamo.client().query(**args)
    found = [(i[schema.SCORES_PARTITION_KEY]["S"], i[schema.SCORES_SORT_KEY]["S"]) for i in resp.get("Items", [])]
    return found, resp.get("LastEvaluatedKey")
