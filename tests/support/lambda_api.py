"""The API as the unit tests call it: each request goes, through the route table, to its function's handler,
as the event API Gateway would send; every answer is checked against the OpenAPI document the API serves."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

from cdk_leaderboard_lambda.web.routes import ADMIN, match_route
from local import invocation
from local.events import LambdaContext, Request, build_event
from local.gateway import load_handlers
from tests.support.openapi_check import assert_matches_openapi
from tests.support.player_tokens import bearer


class Reply(NamedTuple):
    status: int
    body: Any
    headers: dict


def event(
    method: str,
    path: str,
    body: Any = None,
    query: dict | None = None,
    headers: dict | None = None,
    key_id: str | None = None,
    api_key: str | None = None,
) -> dict:
    """The event API Gateway sends; on a keyed route the key it checked is `api_key` (default: the route class's
    key the settings give, as its caller would send it) and its id `key_id`."""
    raw = (
        body
        if isinstance(body, (bytes, type(None)))
        else (body if isinstance(body, str) else json.dumps(body)).encode()
    )
    route, _, params = match_route(method, path)
    headers = dict(headers or {})
    req = Request(method, path, [(k, str(v)) for k, v in (query or {}).items()], list(headers.items()), raw)
    if api_key is None and route is not None and route.needs_key:
        settings = invocation.settings()
        api_key = settings.admin_api_key if route.access == ADMIN else settings.game_api_key
    return build_event(req, route.path if route else path, params, "test", api_key, key_id)


def handler_of(method: str, path: str):
    """The handler API Gateway would invoke for this request (the route's function), serving with the test's
    runtime."""
    route, _, _ = match_route(method, path)
    assert route is not None, f"no route {method} {path}: the gateway answers it, not a handler"
    return load_handlers(invocation.runtime())[route.function.handler]


def call(method: str, path: str, *, check_contract: bool = True, **kwargs) -> Reply:
    """Invoke the route's handler like API Gateway would: (status, JSON body, headers)."""
    result = handler_of(method, path)(event(method, path, **kwargs), LambdaContext("unit", "req-1", 10))
    reply = Reply(result["statusCode"], json.loads(result["body"]), result["headers"])
    if check_contract:
        route, _, _ = match_route(method, path)
        assert_matches_openapi(method, route.path, reply.status, reply.body)
    return reply


def scan(client, table: str) -> list[dict]:
    return client.scan(TableName=table)["Items"]


# --- the calls most tests make ---------------------------------------------------------------------------


def create_board(board_id: str, key_id: str | None = None, api_key: str | None = None, **fields) -> Reply:
    return call("POST", "/leaderboards", body={"board_id": board_id, **fields}, key_id=key_id, api_key=api_key)


def submit(board: str, player: str, score: Any, **fields) -> Reply:
    """A score on a board (the default board's original route when board is None)."""
    path = "/scores" if board is None else f"/leaderboards/{board}/scores"
    headers = fields.pop("headers", None)
    return call("POST", path, body={"player_id": player, "score": score, **fields}, headers=headers)


def run_submit(board: str, player: str, score: Any, run: dict, **fields) -> Reply:
    """A run's score (a run start's answer: run_id, run_token) on its own route, as a player's device sends it."""
    headers = {"Authorization": f"Bearer {run['run_token']}", **fields.pop("headers", {})}
    path = f"/leaderboards/{board}/runs/{run['run_id']}/score"
    return call("POST", path, body={"player_id": player, "score": score, **fields}, headers=headers)


def top(board: str, **query) -> Reply:
    return call("GET", f"/leaderboards/{board}/top", query=query)


def player_token(player: str, **body) -> str:
    """A player token of `player`, minted with the game key (POST /players/{player_id}/tokens)."""
    reply = call("POST", f"/players/{player}/tokens", body=body)
    assert reply.status == 201, reply.body
    return str(reply.body["token"])


def own_receipt(board: str, player: str, **query) -> Reply:
    """The player's receipt, fetched with their own token (a game server mints it with the game key)."""
    headers = bearer(player_token(player))
    return call("GET", f"/leaderboards/{board}/players/{player}/receipt", query=query or None, headers=headers)
