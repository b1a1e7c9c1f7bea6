"""Idempotency records: Powertools' persistence layer on the scores table, under its own partition."""

from __future__ import annotations

from functools import lru_cache

from .. import keys, schema
from ..settings import get_settings
from . import dynamo

KEEP_SECONDS = 24 * 3600  # how long a retry with the same Idempotency-Key gets the first result


@lru_cache(maxsize=1)
def persistence():
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    return DynamoDBPersistenceLayer(
        table_name=get_settings().scores_table,
        key_attr=schema.SCORES_PARTITION_KEY,
        sort_key_attr=schema.SCORES_SORT_KEY,
        static_pk_value=keys.IDEMPOTENCY_PARTITION,
        expiry_attr=schema.TTL_ATTRIBUTE,  # the table's TTL removes old records
        boto3_client=dynamo.client(),
    )


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
