"""The same flows for asyncio game servers: AsyncLeaderboard, over the generated operations' asyncio functions and an
httpx.AsyncClient with the same retry policy (AsyncRetryTransport)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

import httpx

from ._leaderboard import EventHooks, _Settings, bulk_args, expect, submit_args, token_args, top_args
from ._retry import AsyncBorrowedTransport, AsyncRetryTransport, Retry
from .generated import AuthenticatedClient
from .generated.api.default import (
    get_leaderboards_board_top,
    post_leaderboards_board_scores,
    post_leaderboards_board_scores_bulk,
    post_players_player_id_tokens,
)
from .generated.models import BoardSubmit, Bulk, Entry, Page, PendingScore, PlayerToken


class AsyncLeaderboard(_Settings):
    """Leaderboard's twin for asyncio: the same arguments and answers, awaited. `lb.api` is the generated client for
    the operations' `asyncio` and `asyncio_detailed` functions; `event_hooks` must be async functions (httpx's rule
    for an AsyncClient). Close it with `await lb.aclose()` or `async with`."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        retry: Retry | None = None,
        timeout: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
        event_hooks: EventHooks | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(base_url, timeout, event_hooks, headers)
        self._transport = AsyncRetryTransport(transport, retry)
        self.api = AuthenticatedClient(
            base_url=self.base_url, token=api_key or "", prefix="", auth_header_name="x-api-key"
        ).set_async_httpx_client(self._http(self._keyed(api_key), self._transport))

    def _http(self, headers: Mapping[str, str], transport: httpx.AsyncBaseTransport) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=transport, **self._options(headers))

    def as_player(self, token: str) -> AuthenticatedClient:
        """As Leaderboard.as_player, for the asyncio functions; close it with `async with` or its async client's
        aclose()."""
        return AuthenticatedClient(base_url=self.base_url, token=token).set_async_httpx_client(
            self._http(self._bearer(token), AsyncBorrowedTransport(self._transport))
        )

    async def submit(
        self,
        board: str,
        *,
        player_id: str,
        score: int,
        player_name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        evidence: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> BoardSubmit | PendingScore:
        """As Leaderboard.submit."""
        args = submit_args(board, player_id, score, player_name, metadata, evidence, idempotency_key)
        response = await post_leaderboards_board_scores.asyncio_detailed(client=self.api, **args)
        return expect(response, BoardSubmit, PendingScore)

    async def submit_bulk(
        self, board: str, entries: Iterable[Mapping[str, Any]], *, idempotency_key: str | None = None
    ) -> Bulk:
        """As Leaderboard.submit_bulk."""
        args = bulk_args(board, entries, idempotency_key)
        return expect(await post_leaderboards_board_scores_bulk.asyncio_detailed(client=self.api, **args), Bulk)

    async def top(
        self, board: str, *, period: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> Page:
        """As Leaderboard.top."""
        args = top_args(board, period, limit, cursor)
        return expect(await get_leaderboards_board_top.asyncio_detailed(client=self.api, **args), Page)

    async def entries(self, board: str, *, period: str | None = None, limit: int = 100) -> AsyncIterator[Entry]:
        """As Leaderboard.entries: `async for entry in lb.entries(board)`."""
        cursor: str | None = None
        while True:
            page = await self.top(board, period=period, limit=limit, cursor=cursor)
            for entry in page.entries:
                yield entry
            if not isinstance(page.next_cursor, str):
                return
            cursor = page.next_cursor

    async def player_token(
        self, player_id: str, *, boards: Iterable[str] | None = None, ttl_seconds: int | None = None
    ) -> PlayerToken:
        """As Leaderboard.player_token."""
        args = token_args(player_id, boards, ttl_seconds)
        return expect(await post_players_player_id_tokens.asyncio_detailed(client=self.api, **args), PlayerToken)

    async def aclose(self) -> None:
        await self.api.get_async_httpx_client().aclose()

    async def __aenter__(self) -> AsyncLeaderboard:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
