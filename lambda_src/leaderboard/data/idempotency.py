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
