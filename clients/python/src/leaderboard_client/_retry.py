"""Retries, as an httpx transport: every call of the SDK goes through it, the generated operations (`lb.api`) as well
as the hand-written flows, so a caller of either gets the same policy.

What is retried: a 429 (the API's per-player and token limits, API Gateway's throttles) after its Retry-After, and a
5xx or a transport error after a jittered backoff; but only a request that is safe to send twice: GET, HEAD, OPTIONS,
PUT, DELETE (idempotent in HTTP's sense), or a POST/PATCH that carries an Idempotency-Key (the API answers a repeat
from its record and changes nothing: docs/API.md, "Idempotency-Key"). One more case for any method: a connection that
could not be opened (httpx.ConnectError, ConnectTimeout), since then nothing was sent. A Retry-After longer than
`max_delay` is not waited out: the response is handed back (the caller sees the 429 and its Retry-After), since a
retry sooner than the server said would be refused again. The same rules as the TypeScript SDK's retry.ts.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

log = logging.getLogger("leaderboard_client")

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE"})


@dataclass(frozen=True)
class RetryInfo:
    """What `Retry.on_retry` is told before each retry."""

    attempt: int  # the attempt that failed (1: the first)
    method: str
    url: str
    status: int | None  # None: a transport error
    retry_after: float | None  # the server's Retry-After in seconds, when it sent one
    delay: float  # the wait before the next attempt, in seconds


@dataclass(frozen=True)
class Retry:
    """The retry policy. attempts counts the first one too (1 switches retries off)."""

    attempts: int = 4
    max_delay: float = 30.0  # seconds: the longest wait before a retry; a longer Retry-After is not waited out
    base_delay: float = 0.25  # seconds: the first backoff of a 5xx or transport error, doubled on each attempt
    on_retry: Callable[[RetryInfo], None] | None = None  # for logs, metrics, tests


def retriable(request: httpx.Request) -> bool:
    """Whether a request may be sent again after an answer: an idempotent method, or one with an Idempotency-Key."""
    return request.method.upper() in SAFE_METHODS or "idempotency-key" in request.headers


def retry_after_seconds(headers: httpx.Headers, now: datetime | None = None) -> float | None:
    """Retry-After in seconds: delta-seconds, or an HTTP date (RFC 9110 section 10.2.3); None when absent or
    unreadable."""
    value = headers.get("retry-after", "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if at.tzinfo is None:
        return None
    return max(0.0, (at - (now or datetime.now(UTC))).total_seconds())


def backoff(attempt: int, policy: Retry) -> float:
    """ "Equal jitter": half the exponential delay fixed, half random, so that clients failing together spread out."""
    ceiling = min(policy.max_delay, policy.base_delay * 2.0 ** (attempt - 1))
    return ceiling / 2 + random.random() * (ceiling / 2)


class RetryTransport(httpx.BaseTransport):
    """Wraps a transport (httpx.HTTPTransport by default) with the retry policy."""

    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        policy: Retry | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._inner = inner or httpx.HTTPTransport()
        self.policy = policy or Retry()
        self._sleep = sleep

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        policy = self.policy
        attempts = max(1, policy.attempts)
        if attempts > 1:
            request.read()  # the body in memory (it is already for JSON), so that each attempt can send it
        for attempt in range(1, attempts + 1):
            last = attempt == attempts
            try:
                response = self._inner.handle_request(request)
            except (httpx.ConnectError, httpx.ConnectTimeout) as err:  # nothing sent: safe for any method
                if last:
                    raise
                self._wait(request, attempt, None, None, backoff(attempt, policy), err)
                continue
            except httpx.TransportError as err:  # sent, perhaps handled: only a request safe to send twice
                if last or not retriable(request):
                    raise
                self._wait(request, attempt, None, None, backoff(attempt, policy), err)
                continue
            if last or not (response.status_code == 429 or response.status_code >= 500) or not retriable(request):
                return response
            told = retry_after_seconds(response.headers)
            if told is not None and told > policy.max_delay:
                return response  # the server asks for longer than the caller waits
            response.read()  # frees the connection for the next attempt
            response.close()
            delay = told if told is not None else backoff(attempt, policy)
            self._wait(request, attempt, response.status_code, told, delay, None)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _wait(
        self,
        request: httpx.Request,
        attempt: int,
        status: int | None,
        told: float | None,
        delay: float,
        err: Exception | None,
    ) -> None:
        info = RetryInfo(attempt, request.method, str(request.url), status, told, delay)
        log.info(
            "retrying %s %s in %.2f s after %s (attempt %d)",
            request.method,
            request.url.path,
            delay,
            status if err is None else type(err).__name__,
            attempt,
        )
        if self.policy.on_retry is not None:
            self.policy.on_retry(info)
        self._sleep(delay)

    def close(self) -> None:
        self._inner.close()


class BorrowedTransport(httpx.BaseTransport):
    """Another client's transport, lent: closing the borrowing client leaves it open for its owner."""

    def __init__(self, owner: httpx.BaseTransport) -> None:
        self._owner = owner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._owner.handle_request(request)

    def close(self) -> None:
        pass  # the owner (the Leaderboard) closes it
