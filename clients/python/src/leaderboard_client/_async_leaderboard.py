"""The same flows for asyncio game servers: AsyncLeaderboard, over the generated operations' asyncio functions and an
httpx.AsyncClient with the same retry policy (AsyncRetryTransport)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

import httpx

from ._leaderboard import (
    EventHooks,
    Run,
    _Settings,
    around_args,
    board_body,
    bulk_args,
    catching_up,
    expect,
    page_args,
    run_of,
    run_score_args,
    submit_args,
    token_args,
    top_args,
)
from ._receipts import VerifiedReceipt, verify_receipt
from ._retry import AsyncBorrowedTransport, AsyncRetryTransport, Retry
from .generated import AuthenticatedClient
from .generated.api.default import (
    get_leaderboards_board,
    get_leaderboards_board_players_player_id,
    get_leaderboards_board_players_player_id_receipt,
    get_leaderboards_board_top,
    get_players_player_id_boards,
    get_well_known_jwks_json,
    post_leaderboards,
    post_leaderboards_board_runs,
    post_leaderboards_board_runs_run_id_score,
    post_leaderboards_board_scores,
    post_leaderboards_board_scores_bulk,
    post_players_player_id_tokens,
)
from .generated.models import (
    Around,
    Board,
    BoardSubmit,
    Bulk,
    Entry,
    Jwks,
    Page,
    PendingScore,
    PlayerBoards,
    PlayerToken,
    Receipt,
)
from .generated.models import Run as GeneratedRun
from .generated.types import UNSET


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

    async def create_board(self, board_id: str, **settings: Any) -> Board:
        """As Leaderboard.create_board."""
        body = board_body(board_id, settings)
        return expect(await post_leaderboards.asyncio_detailed(client=self.api, body=body), Board)

    async def ensure_board(self, board_id: str, **settings: Any) -> Board:
        """As Leaderboard.ensure_board."""
        read = await get_leaderboards_board.asyncio_detailed(board_id, client=self.api)
        if read.status_code != 404:
            return expect(read, Board)
        created = await post_leaderboards.asyncio_detailed(client=self.api, body=board_body(board_id, settings))
        if created.status_code != 409:
            return expect(created, Board)
        return await self.board(board_id)

    async def board(self, board_id: str) -> Board:
        """As Leaderboard.board."""
        return expect(await get_leaderboards_board.asyncio_detailed(board_id, client=self.api), Board)

    async def around(
        self,
        board: str,
        player_id: str,
        *,
        period: str | None = None,
        window: int | None = None,
        rank_mode: str | None = None,
    ) -> Around:
        """As Leaderboard.around."""
        args = around_args(board, player_id, period, window, rank_mode)
        return expect(await get_leaderboards_board_players_player_id.asyncio_detailed(client=self.api, **args), Around)

    async def rank(
        self, board: str, player_id: str, *, period: str | None = None, rank_mode: str | None = None
    ) -> Around:
        """As Leaderboard.rank."""
        return await self.around(board, player_id, period=period, window=0, rank_mode=rank_mode)

    async def player_boards(
        self, player_id: str, *, limit: int | None = None, cursor: str | None = None
    ) -> PlayerBoards:
        """As Leaderboard.player_boards."""
        args = page_args(limit, cursor)
        response = await get_players_player_id_boards.asyncio_detailed(player_id, client=self.api, **args)
        return expect(response, PlayerBoards)

    async def start_run(self, board: str, player_token: str) -> Run:
        """As Leaderboard.start_run."""
        async with self.as_player(player_token) as player:
            answer = expect(await post_leaderboards_board_runs.asyncio_detailed(board, client=player), GeneratedRun)
        return run_of(board, player_token, answer)

    async def submit_run(
        self,
        run: Run,
        score: int,
        *,
        player_name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        evidence: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> BoardSubmit | PendingScore:
        """As Leaderboard.submit_run."""
        args = run_score_args(run, score, player_name, metadata, evidence, idempotency_key)
        async with self.as_player(run.run_token) as runner:
            response = await post_leaderboards_board_runs_run_id_score.asyncio_detailed(client=runner, **args)
        return expect(response, BoardSubmit, PendingScore)

    async def receipt(
        self,
        board: str,
        player_id: str,
        player_token: str,
        *,
        period: str | None = None,
        catch_up_attempts: int = 10,
        max_wait: float = 30.0,
    ) -> Receipt:
        """As Leaderboard.receipt: a 409 "log catching up" is awaited out, within the same bounds."""
        deadline = time.monotonic() + max_wait
        async with self.as_player(player_token) as player:
            for attempt in range(1, max(1, catch_up_attempts) + 1):
                response = await get_leaderboards_board_players_player_id_receipt.asyncio_detailed(
                    board, player_id, client=player, period=UNSET if period is None else period
                )
                wait = catching_up(response)
                if wait is None or attempt >= catch_up_attempts or time.monotonic() + wait > deadline:
                    break
                await asyncio.sleep(wait)
        return expect(response, Receipt)

    async def jwks(self) -> Jwks:
        """As Leaderboard.jwks."""
        return expect(await get_well_known_jwks_json.asyncio_detailed(client=self.api), Jwks)

    async def verify_receipt(
        self, receipt: Receipt | str, *, jwks: Jwks | Mapping[str, Any] | None = None
    ) -> VerifiedReceipt:
        """As Leaderboard.verify_receipt (the JWKS read awaited; the check itself is local)."""
        return verify_receipt(receipt, await self.jwks() if jwks is None else jwks)

    async def aclose(self) -> None:
        await self.api.get_async_httpx_client().aclose()

    async def __aenter__(self) -> AsyncLeaderboard:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
