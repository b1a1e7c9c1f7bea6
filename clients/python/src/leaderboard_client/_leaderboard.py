"""The hand-written half of the SDK: a game server's flows over the generated operations (leaderboard_client.generated,
written by openapi-python-client from the API's OpenAPI document at build time)."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar, overload

import httpx
import jwt

from ._receipts import VerifiedReceipt, verify_receipt
from ._retry import BorrowedTransport, Retry, RetryTransport, retry_after_seconds
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
    Error,
    GetLeaderboardsBoardPlayersPlayerIdRankMode,
    Jwks,
    Page,
    PendingScore,
    PlayerBoards,
    PlayerToken,
    PostLeaderboardsBoardRunsRunIdScoreBody,
    PostLeaderboardsBoardScoresBody,
    PostLeaderboardsBoardScoresBulkBody,
    PostLeaderboardsBody,
    PostPlayersPlayerIdTokensBody,
    Receipt,
)
from .generated.models import Run as GeneratedRun
from .generated.types import UNSET, Response

A = TypeVar("A")
B = TypeVar("B")
EventHooks = Mapping[str, list[Callable[..., Any]]]


# The API's error statuses by name (docs/API.md, "Errors"), as the TypeScript SDK's errorCode names them
CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    414: "uri_too_long",
    422: "unprocessable",
    429: "too_many_requests",
    500: "internal_error",
    502: "bad_gateway",
    503: "unavailable",
    504: "gateway_timeout",
}


def error_code(status: int) -> str:
    """The code of a status: the API's statuses by name, any other as `http_<status>`."""
    return CODES.get(status, f"http_{status}")


class LeaderboardError(Exception):
    """An answer other than the operation's success: its status, a short code named after the status, the API's
    `{"error": ...}` text (`message`), its Retry-After (seconds) when it sent one, and the body as parsed JSON (None
    when it was not JSON). Shown as `<status> <code>: <message>`, e.g. `404 not_found: no leaderboard race`."""

    def __init__(self, status: int, message: str, body: Any = None, retry_after: float | None = None) -> None:
        self.code = error_code(status)
        super().__init__(f"{status} {self.code}: {message}")
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


@dataclass(frozen=True)
class Run:
    """A run: what POST /leaderboards/{board}/runs answered, and who and where it is for (`player_id`: the player
    token's `sub`)."""

    board: str
    run_id: str
    run_token: str
    player_id: str
    seed: int
    started_at: str
    expires_at: str


def token_subject(token: str) -> str:
    """The `sub` (player id) of a player token, read without checking it: the tokens are signed, not encrypted
    (docs/API.md); the API checks them."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.InvalidTokenError:
        claims = {}
    if not isinstance(claims.get("sub"), str):
        raise TypeError("not a player token (a JWT with a `sub` claim)")
    return str(claims["sub"])


def run_of(board: str, player_token: str, answer: GeneratedRun) -> Run:
    return Run(
        board=board,
        run_id=answer.run_id,
        run_token=answer.run_token,
        player_id=token_subject(player_token),
        seed=answer.seed,
        started_at=answer.started_at,
        expires_at=answer.expires_at,
    )


def catching_up(response: Response[Any]) -> float | None:
    """The wait a 409 "log catching up" asks for (a receipt asked for before the log has the entry): its Retry-After,
    else its body's retry_after_seconds; None for any other answer."""
    if response.status_code != 409:
        return None
    told = retry_after_seconds(httpx.Headers(response.headers))
    if told is None:
        try:
            body = json.loads(response.content)
        except ValueError:
            return None
        seconds = body.get("retry_after_seconds") if isinstance(body, dict) else None
        told = float(seconds) if isinstance(seconds, int | float) and not isinstance(seconds, bool) else None
    return told if told is not None and told >= 0 else None


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


def run_score_args(run: Run, score: int, player_name: str | None, metadata, evidence, key: str | None) -> dict:
    fields = {"player_id": run.player_id, "score": score, "player_name": player_name, "metadata": metadata}
    fields["evidence"] = evidence
    body = PostLeaderboardsBoardRunsRunIdScoreBody.from_dict({k: v for k, v in fields.items() if v is not None})
    return {"board": run.board, "run_id": run.run_id, "body": body, "idempotency_key": key or new_idempotency_key()}


def board_body(board_id: str, settings: Mapping[str, Any]) -> PostLeaderboardsBody:
    """POST /leaderboards's body: the board id and its settings (docs/API.md, "Many boards")."""
    return PostLeaderboardsBody.from_dict({"board_id": board_id, **settings})


def around_args(board: str, player_id: str, period: str | None, window: int | None, rank_mode: str | None) -> dict:
    optional: dict[str, Any] = {"period": period, "window": window}
    optional["rank_mode"] = None if rank_mode is None else GetLeaderboardsBoardPlayersPlayerIdRankMode(rank_mode)
    return {"board": board, "player_id": player_id, **{k: UNSET if v is None else v for k, v in optional.items()}}


def page_args(limit: int | None, cursor: str | None) -> dict[str, Any]:
    return {k: UNSET if v is None else v for k, v in {"limit": limit, "cursor": cursor}.items()}


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

    def create_board(self, board_id: str, **settings: Any) -> Board:
        """POST /leaderboards (the admin key): a new board; `settings` are the body's other fields (`order`,
        `operator`, `periods`, `submissions`, ...: docs/API.md, "Many boards"). A LeaderboardError 409 if it exists."""
        return expect(post_leaderboards.sync_detailed(client=self.api, body=board_body(board_id, settings)), Board)

    def ensure_board(self, board_id: str, **settings: Any) -> Board:
        """The board `board_id`: read, or created with `settings` (the admin key) when it does not exist. An existing
        board's settings are not compared with `settings`."""
        read = get_leaderboards_board.sync_detailed(board_id, client=self.api)
        if read.status_code != 404:
            return expect(read, Board)
        created = post_leaderboards.sync_detailed(client=self.api, body=board_body(board_id, settings))
        if created.status_code != 409:
            return expect(created, Board)
        return self.board(board_id)  # created meanwhile by another caller (or the deployment is full: its error)

    def board(self, board_id: str) -> Board:
        """GET /leaderboards/{board}: the board's settings, periods and `live` (discovery)."""
        return expect(get_leaderboards_board.sync_detailed(board_id, client=self.api), Board)

    def around(
        self,
        board: str,
        player_id: str,
        *,
        period: str | None = None,
        window: int | None = None,
        rank_mode: str | None = None,
    ) -> Around:
        """GET /leaderboards/{board}/players/{player_id}: the player's rank, score, total_players and percentile,
        with `window` entries above and below ("around me"; 5 by default, 0 to 50)."""
        args = around_args(board, player_id, period, window, rank_mode)
        return expect(get_leaderboards_board_players_player_id.sync_detailed(client=self.api, **args), Around)

    def rank(self, board: str, player_id: str, *, period: str | None = None, rank_mode: str | None = None) -> Around:
        """The player's rank, score, total_players and percentile on a board period: `around` without neighbours."""
        return self.around(board, player_id, period=period, window=0, rank_mode=rank_mode)

    def player_boards(self, player_id: str, *, limit: int | None = None, cursor: str | None = None) -> PlayerBoards:
        """GET /players/{player_id}/boards: one page of the boards (current periods) the player is on, with ranks
        (`next_cursor` while more follow)."""
        args = page_args(limit, cursor)
        return expect(get_players_player_id_boards.sync_detailed(player_id, client=self.api, **args), PlayerBoards)

    def start_run(self, board: str, player_token: str) -> Run:
        """POST /leaderboards/{board}/runs with a player token (sent alone, without the API key): a Run, whose
        token takes the run's one score (`submit_run`)."""
        with self.as_player(player_token) as player:
            answer = expect(post_leaderboards_board_runs.sync_detailed(board, client=player), GeneratedRun)
        return run_of(board, player_token, answer)

    def submit_run(
        self,
        run: Run,
        score: int,
        *,
        player_name: str | None = None,
        metadata: Mapping[str, Any] | None = None,
        evidence: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> BoardSubmit | PendingScore:
        """POST /leaderboards/{board}/runs/{run_id}/score with the run's token (and an Idempotency-Key, so it is
        retried): the run's one score, for its player. A PendingScore when a rule held it back, as `submit`."""
        args = run_score_args(run, score, player_name, metadata, evidence, idempotency_key)
        with self.as_player(run.run_token) as runner:
            response = post_leaderboards_board_runs_run_id_score.sync_detailed(client=runner, **args)
        return expect(response, BoardSubmit, PendingScore)

    def receipt(
        self,
        board: str,
        player_id: str,
        player_token: str,
        *,
        period: str | None = None,
        catch_up_attempts: int = 10,
        max_wait: float = 30.0,
    ) -> Receipt:
        """GET /leaderboards/{board}/players/{player_id}/receipt with the player's token: the signed receipt
        (`.receipt`, a compact JWS). The log follows the table's stream, a moment behind the score: a 409 "log
        catching up" is waited out (its Retry-After or retry_after_seconds), up to `catch_up_attempts` tries and
        `max_wait` seconds in all; then its LeaderboardError."""
        deadline = time.monotonic() + max_wait
        with self.as_player(player_token) as player:
            for attempt in range(1, max(1, catch_up_attempts) + 1):
                response = get_leaderboards_board_players_player_id_receipt.sync_detailed(
                    board, player_id, client=player, period=UNSET if period is None else period
                )
                wait = catching_up(response)
                if wait is None or attempt >= catch_up_attempts or time.monotonic() + wait > deadline:
                    break
                time.sleep(wait)
        return expect(response, Receipt)

    def jwks(self) -> Jwks:
        """GET /.well-known/jwks.json: the keys receipts and closing summaries are signed with, and their status."""
        return expect(get_well_known_jwks_json.sync_detailed(client=self.api), Jwks)

    def verify_receipt(
        self, receipt: Receipt | str, *, jwks: Jwks | Mapping[str, Any] | None = None
    ) -> VerifiedReceipt:
        """The receipt checked against this API's JWKS (or `jwks`): its claims, or ReceiptError (tampered, an unknown
        or revoked key, a retired key's signature dated at or after its retired_at)."""
        return verify_receipt(receipt, self.jwks() if jwks is None else jwks)

    def close(self) -> None:
        self.api.get_httpx_client().close()

    def __enter__(self) -> Leaderboard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
