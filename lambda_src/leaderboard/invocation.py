"""The Lambda invocation being handled: its context object, for code that needs the time it has left
(Powertools' idempotency expires its in-progress records with the invocation)."""

from __future__ import annotations

import contextvars
from typing import Any

lambda_context: contextvars.ContextVar[Any] = contextvars.ContextVar("lambda_context", default=None)
