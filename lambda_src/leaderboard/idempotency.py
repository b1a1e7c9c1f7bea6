"""Idempotency-Key: a retried write returns the first result instead of applying twice.

Powertools' idempotency utility keeps the records (in-progress and completed, with
expiry) in the scores table under its own partition; it is imported only when a
request carries a key, so other requests do not pay its import time.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Callable

from . import schema

from . import keys
from .data import dynamo
from .errors import Conflict, Unprocessable
from .http import lambda_context
from .settings import get_settings

KEEP_SECONDS = 24 * 3600


@lru_cache(maxsize=1)
def _persistence():
    from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

    return DynamoDBPersistenceLayer(
        table_name=get_settings().scores_table,
        key_attr=schema.SCORES_PARTITION_KEY,
        sort_key_attr=schema.SCORES_SORT_KEY,
        static_pk_value=keys.IDEMPOTENCY_PARTITION,
        expiry_attr=schema.TTL_ATTRIBUTE,  # the table's TTL removes old records
        boto3_client=dynamo.client(),
    )


def once(key: str | None, scope: str, request: Any, work: Callable[[], dict]) -> dict:
    """Run `work` once per (scope, key); a retry with the same key and request gets the stored result."""
    if not key:
        return work()
    from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig, idempotent_function
    from aws_lambda_powertools.utilities.idempotency.exceptions import (
        IdempotencyAlreadyInProgressError,
        IdempotencyValidationError,
    )

    config = IdempotencyConfig(
        event_key_jmespath="[scope, key]",
        payload_validation_jmespath="request",
        expires_after_seconds=KEEP_SECONDS,
    )
    if lambda_context.get() is not None:
        config.register_lambda_context(lambda_context.get())  # in-progress records expire with the invocation

    @idempotent_function(data_keyword_argument="data", persistence_store=_persistence(), config=config)
    def run(data: dict) -> dict:
        return work()

    try:
        return run(data={"scope": scope, "key": key, "request": request})
    except IdempotencyAlreadyInProgressError:
        raise Conflict("a request with this Idempotency-Key is still in progress; retry shortly") from None
    except IdempotencyValidationError:
        raise Unprocessable("this Idempotency-Key was already used with a different request body") from None
