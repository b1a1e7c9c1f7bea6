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

import asyncio
import email.utils
import itertools
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


def retry_info(
    policy: Retry,
    request: httpx.Request,
    attempt: int,
    response: httpx.Response | None = None,
    error: Exception | None = None,
) -> RetryInfo | None:
    """The retry after an attempt's answer or transport error, or None: hand it back (or raise it). The one decision
    of both transports, sync and async."""
    if attempt >= max(1, policy.attempts):
        return None
    url = str(request.url)
    if response is None:
        # nothing sent (the connection never opened): safe for any method; else only a request safe to send twice
        if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout) or retriable(request):
            return RetryInfo(attempt, request.method, url, None, None, backoff(attempt, policy))
        return None
    if not (response.status_code == 429 or response.status_code >= 500) or not retriable(request):
        return None
    told = retry_after_seconds(response.headers)
    if told is not None and told > policy.max_delay:
        return None  # the server asks for longer than the caller waits
    delay = told if told is not None else backoff(attempt, policy)
    return RetryInfo(attempt, request.method, url, response.status_code, told, delay)


def _tell(policy: Retry, request: httpx.Request, info: RetryInfo, error: Exception | None) -> None:
    cause = type(error).__name__ if error is not None else info.status
    log.info(
        "retrying %s %s in %.2f s after %s (attempt %d)", info.method, request.url.path, info.delay, cause, info.attempt
    )
    if policy.on_retry is not None:
        policy.on_retry(info)


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
        if self.policy.attempts > 1:
            request.read()  # the body in memory (it is already for JSON), so that each attempt can send it
        for attempt in itertools.count(1):
            try:
                response = self._inner.handle_request(request)
            except httpx.TransportError as err:
                info = retry_info(self.policy, request, attempt, error=err)
                if info is None:
                    raise
                _tell(self.policy, request, info, err)
                self._sleep(info.delay)
                continue
            info = retry_info(self.policy, request, attempt, response=response)
            if info is None:
                return response
            response.read()  # frees the connection for the next attempt
            response.close()
            _tell(self.policy, request, info, None)
            self._sleep(info.delay)
        raise AssertionError("unreachable")

    def close(self) -> None:
        self._inner.close()


class AsyncRetryTransport(httpx.AsyncBaseTransport):
    """The same for httpx.AsyncClient (httpx.AsyncHTTPTransport by default)."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None, policy: Retry | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport()
        self.policy = policy or Retry()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.policy.attempts > 1:
            await request.aread()
        for attempt in itertools.count(1):
            try:
                response = await self._inner.handle_async_request(request)
            except httpx.TransportError as err:
                info = retry_info(self.policy, request, attempt, error=err)
                if info is None:
                    raise
                _tell(self.policy, request, info, err)
                await asyncio.sleep(info.delay)
                continue
            info = retry_info(self.policy, request, attempt, response=response)
            if info is None:
                return response
            await response.aread()
            await response.aclose()
            _tell(self.policy, request, info, None)
            await asyncio.sleep(info.delay)
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        await self._inner.aclose()


class BorrowedTransport(httpx.BaseTransport):
    """Another client's transport, lent: closing the borrowing client leaves it open for its owner."""

    def __init__(self, owner: httpx.BaseTransport) -> None:
        self._owner = owner

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        return self._owner.handle_request(request)

    def close(self) -> None:
        pass  # the owner (the Leaderboard) closes it


class AsyncBorrowedTransport(httpx.AsyncBaseTransport):
    """The same for an async client's transport."""

    def __init__(self, owner: httpx.AsyncBaseTransport) -> None:
        self._owner = owner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await self._owner.handle_async_request(request)

    async def aclose(self) -> None:
        pass  # the owner (the AsyncLeaderboard) closes it
