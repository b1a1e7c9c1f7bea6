"""Idempotency-Key: a retried write returns the first result instead of applying twice.

Powertools' idempotency utility keeps the records (in-progress and completed, with
expiry; see data/idempotency.py and the store below); it is imported only when a request carries a key,
so other requests do not pay its import time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..domain.ports import IdempotencyStore
from ..shared import limits
from ..shared.errors import Conflict, Unprocessable


def once(
    store: IdempotencyStore,
    key: str | None,
    scope: str,
    request: Any,
    work: Callable[[], dict],
    lambda_context: Any = None,
) -> dict:
    """Run `work` once per (scope, key), its record in `store` (the runtime's idempotency); a retry with the same key
    and request gets the stored result. `lambda_context`: the invocation's Lambda context object, with which an
    in-progress record expires (None outside Lambda: the record's own expiry only)."""
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
        expires_after_seconds=limits.IDEMPOTENCY_KEEP_SECONDS,
    )
    if lambda_context is not None:
        config.register_lambda_context(lambda_context)  # in-progress records expire with the invocation

    @idempotent_function(data_keyword_argument="data", persistence_store=store.persistence(), config=config)
    def run(data: dict) -> dict:
        return work()

    try:
        return run(data={"scope": scope, "key": key, "request": request})
    except IdempotencyAlreadyInProgressError:
        raise Conflict("a request with this Idempotency-Key is still in progress; retry shortly") from None
    except IdempotencyValidationError:
        raise Unprocessable("this Idempotency-Key was already used with a different request body") from None
