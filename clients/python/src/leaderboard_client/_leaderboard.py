"""The hand-written half of the SDK: a game server's flows over the generated operations (leaderboard_client.generated,
written by openapi-python-client from the API's OpenAPI document at build time)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar, overload

import httpx

from ._retry import BorrowedTransport, Retry, RetryTransport, retry_after_seconds
from .generated import AuthenticatedClient
from .generated.api.default import (
    get_leaderboards_board_top,
    post_leaderboards_board_scores,
    post_leaderboards_board_scores_bulk,
    post_players_player_id_tokens,
)
from .generated.models import (
    BoardSubmit,
    Bulk,
    Entry,
    Error,
    Page,
    PendingScore,
    PlayerToken,
    PostLeaderboardsBoardScoresBody,
    PostLeaderboardsBoardScoresBulkBody,
    PostPlayersPlayerIdTokensBody,
)
from .generated.types import UNSET, Response

A = TypeVar("A")
B = TypeVar("B")
EventHooks = Mapping[str, list[Callable[..., Any]]]


class LeaderboardError(Exception):
    """An answer other than the operation's success: its status, the API's `{"error": ...}` message, its Retry-After
    (seconds) when it sent one, and the body as parsed JSON (None when it was not JSON)."""

    def __init__(self, status: int, message: str, body: Any = None, retry_after: float | None = None) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status
        self.message = message
        self.body = body
        self.retry_after = retry_after

    @classmethod
    def of(cls, response: Response[Any]) -> LeaderboardError:
        try:
            body: Any = json.loads(response.content)
        except ValueError:  # not JSON (a proxy's page): the text is the message (UnicodeDecodeError is a ValueError)
            body = None
        message = body.get("error") if isinstance(body, dict) else None
        if not isinstance(message, str):
            message = response.content.decode("utf-8", "replace")[:200] or response.status_code.phrase
        return cls(int(response.status_code), message, body, retry_after_seconds(httpx.Headers(response.headers)))


@overload
def expect(response: Response[Any], kind: type[A]) -> A: ...
@overload
def expect(response: Response[Any], kind: type[A], other: type[B]) -> A | B: ...
def expect(response: Response[Any], kind: type, other: type | None = None) -> Any:
    """The parsed body when it is one of the operation's success models; else LeaderboardError. (The generated code
    parses a documented error answer into an `Error` model, which is raised here too.)"""
    parsed = response.parsed
    if response.status_code < 300 and isinstance(parsed, (kind, other or kind)) and not isinstance(parsed, Error):
        return parsed
    raise LeaderboardError.of(response)


def new_idempotency_key() -> str:
    """A fresh key per logical submission: the SDK's retries of it then repeat the key, so it is stored once."""
    return str(uuid.uuid4())


def submit_args(
    board: str,
    player_id: str,
    score: int,
    player_name: str | None,
    metadata: Mapping[str, Any] | None,
    evidence: Mapping[str, Any] | None,
    idempotency_key: str | None,
) -> dict[str, Any]:
    """POST /leaderboards/{board}/scores's arguments (Leaderboard.submit and AsyncLeaderboard.submit)."""
    fields = {"player_id": player_id, "score": score, "player_name": player_name, "metadata": metadata}
    fields["evidence"] = evidence
    body = PostLeaderboardsBoardScoresBody.from_dict({k: v for k, v in fields.items() if v is not None})
    return {"board": board, "body": body, "idempotency_key": idempotency_key or new_idempotency_key()}


def bulk_args(board: str, entries: Iterable[Mapping[str, Any]], idempotency_key: str | None) -> dict[str, Any]:
    body = PostLeaderboardsBoardScoresBulkBody.from_dict({"entries": [dict(e) for e in entries]})
    return {"board": board, "body": body, "idempotency_key": idempotency_key or new_idempotency_key()}


def top_args(board: str, period: str | None, limit: int | None, cursor: str | None) -> dict[str, Any]:
    optional = {"period": period, "limit": limit, "cursor": cursor}
    return {"board": board, **{k: UNSET if v is None else v for k, v in optional.items()}}


def token_args(player_id: str, boards: Iterable[str] | None, ttl_seconds: int | None) -> dict[str, Any]:
    body: dict[str, Any] = {}
    if boards is not None:
        body["boards"] = list(boards)
    if ttl_seconds is not None:
        body["ttl_seconds"] = ttl_seconds
    return {"player_id": player_id, "body": PostPlayersPlayerIdTokensBody.from_dict(body)}


class _Settings:
    """What Leaderboard and AsyncLeaderboard keep alike: the URL, and the timeout, hooks and headers of every call."""

    def __init__(
        self, base_url: str, timeout: float, event_hooks: EventHooks | None, headers: Mapping[str, str] | None
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._timeout = httpx.Timeout(timeout)
        self._event_hooks = {name: list(hooks) for name, hooks in (event_hooks or {}).items()}
        self._headers = dict(headers or {})

    def _keyed(self, api_key: str | None) -> dict[str, str]:
        return {**self._headers, **({"x-api-key": api_key} if api_key else {})}

    def _bearer(self, token: str) -> dict[str, str]:
        return {**self._headers, "Authorization": f"Bearer {token}"}

    def _options(self, headers: Mapping[str, str]) -> dict[str, Any]:
        """An httpx client's settings, the sync one's or the async one's, with `headers`."""
        return {
            "base_url": self.base_url,
            "headers": dict(headers),
            "timeout": self._timeout,
            "event_hooks": self._event_hooks,
        }


class Leaderboard(_Settings):
    """A game server's client of one deployment.

    `base_url` is the API's URL (the `ApiUrl` output, or `make run`'s `API:` line); `api_key` is sent as `x-api-key`
    on every call: the game key for submissions and player tokens, the admin key for board management. `lb.api` is
    the generated client with the same key, transport and retries: pass it as `client=` to any operation of
    `leaderboard_client.generated.api.default` (every operation of the document). `transport` replaces the network
    transport under the retries (httpx.HTTPTransport by default); `event_hooks` are httpx's, called once per call
    (not per retry).
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        retry: Retry | None = None,
        timeout: float = 30.0,
        transport: httpx.BaseTransport | None = None,
        event_hooks: EventHooks | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(base_url, timeout, event_hooks, headers)
        self._transport = RetryTransport(transport, retry)
        # The generated AuthenticatedClient adds its header only to an httpx client it builds itself; this one is
        # built here (the retrying transport, the hooks), with the key among its headers, and handed to it.
        self.api = AuthenticatedClient(
            base_url=self.base_url, token=api_key or "", prefix="", auth_header_name="x-api-key"
        ).set_httpx_client(self._http(self._keyed(api_key), self._transport))

    def _http(self, headers: Mapping[str, str], transport: httpx.BaseTransport) -> httpx.Client:
        return httpx.Client(transport=transport, **self._options(headers))

    def as_player(self, token: str) -> AuthenticatedClient:
        """A generated client that sends `Authorization: Bearer <token>` (a player or run token) and no API key (the
        API refuses both credentials together): for the player-token routes (`GET /players/{player_id}`, a receipt,
        a run start and a run's score). It shares this client's connections and retries; close it when done."""
        return AuthenticatedClient(base_url=self.base_url, token=token).set_httpx_client(
            self._http(self._bearer(token), BorrowedTransport(self._transport))
        )

    def submit(
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
        """POST /leaderboards/{board}/scores (the game key). A PendingScore (`status` "pending") when a plausibility
        rule of the board held the score back for review. Sent with an Idempotency-Key (a fresh one unless given: pass
        your own, e.g. a match id, to make a resubmission after a crash store once too), so retries are safe."""
        args = submit_args(board, player_id, score, player_name, metadata, evidence, idempotency_key)
        return expect(post_leaderboards_board_scores.sync_detailed(client=self.api, **args), BoardSubmit, PendingScore)

    def submit_bulk(
        self, board: str, entries: Iterable[Mapping[str, Any]], *, idempotency_key: str | None = None
    ) -> Bulk:
        """POST /leaderboards/{board}/scores/bulk: up to 500 submissions (each `{"player_id", "score", "player_name"?,
        "metadata"?}`) in one request; the answer's `results` say each one's status in input order (a refused entry
        does not fail the others). With an Idempotency-Key, as submit."""
        args = bulk_args(board, entries, idempotency_key)
        return expect(post_leaderboards_board_scores_bulk.sync_detailed(client=self.api, **args), Bulk)

    def top(
        self, board: str, *, period: str | None = None, limit: int | None = None, cursor: str | None = None
    ) -> Page:
        """GET /leaderboards/{board}/top: one page, best first (`next_cursor` absent on the last)."""
        args = top_args(board, period, limit, cursor)
        return expect(get_leaderboards_board_top.sync_detailed(client=self.api, **args), Page)

    def entries(self, board: str, *, period: str | None = None, limit: int = 100) -> Iterator[Entry]:
        """Every entry of a board period, best first, following `next_cursor` to the last page (`limit` per request,
        at most 100). Cursors expire 15 minutes after the walk's first page (a 422 then: start again)."""
        cursor: str | None = None
        while True:
            page = self.top(board, period=period, limit=limit, cursor=cursor)
            yield from page.entries
            if not isinstance(page.next_cursor, str):
                return
            cursor = page.next_cursor

    def player_token(
        self, player_id: str, *, boards: Iterable[str] | None = None, ttl_seconds: int | None = None
    ) -> PlayerToken:
        """POST /players/{player_id}/tokens (the game key): a token the player's device starts runs with on a client
        board (`boards` limits it to those; `ttl_seconds` 60 to 86,400, 3,600 by default)."""
        args = token_args(player_id, boards, ttl_seconds)
        return expect(post_players_player_id_tokens.sync_detailed(client=self.api, **args), PlayerToken)

    def close(self) -> None:
        self.api.get_httpx_client().close()

    def __enter__(self) -> Leaderboard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
