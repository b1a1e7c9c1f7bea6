"""The real Lambda handlers, called in-process with API Gateway REST proxy events.

Events are built by the local gateway's own builder (local/events.py) from the route table,
exactly as `make run` and the unit tests build them.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from local.events import LambdaContext, Request, build_event
from local.gateway import load_handlers

STAGE = "bench"


@dataclass(frozen=True)
class Response:
    status: int
    body: Any
    seconds: float  # wall time of the handler call alone


class HandlerApi:
    def __init__(self, keys: dict[str, str] | None = None) -> None:
        """`keys`: each key class's value (routes.GAME, routes.ADMIN) where the settings give none (a stack whose
        functions read them from their secrets)."""
        from cdk_leaderboard_lambda.web import routes

        self._routes = routes
        from local import invocation

        self._handlers = load_handlers(invocation.runtime())  # the benchmark's runtime (environment.connect)
        s = invocation.settings()
        self._keys = keys or {routes.GAME: s.game_api_key, routes.ADMIN: s.admin_api_key}

    def call(self, method: str, path: str, query: dict | None = None, body: Any = None) -> Response:
        route, _, params = self._routes.match_route(method, path)
        if route is None:
            raise ValueError(f"no route {method} {path}")
        raw = None if body is None else json.dumps(body).encode()
        headers = [("Content-Type", "application/json")] if raw else []
        req = Request(method, path, [(k, str(v)) for k, v in (query or {}).items()], headers, raw)
        event = build_event(req, route.path, params, STAGE, *self._key(route))
        context = LambdaContext(route.function.name, req.request_id, route.function.timeout_seconds)
        handler = self._handlers[route.function.handler]
        started = time.perf_counter()
        result = handler(event, context)
        seconds = time.perf_counter() - started
        return Response(result["statusCode"], json.loads(result["body"]), seconds)

    def _key(self, route) -> tuple[str | None, str | None]:
        """Keyed routes are called as the holder of the right key would call them (its value and an id, as API
        Gateway passes them; the functions tell the classes apart by the value)."""
        if not route.needs_key:
            return None, None
        return self._keys[route.access], "in-process"

    # --- the routes the benchmark uses ----------------------------------------------------

    def create_board(self, body: dict) -> Response:
        return self.call("POST", "/leaderboards", body=body)

    def submit(self, board: str, player_id: str, score: int, name: str | None = None) -> Response:
        body = {"player_id": player_id, "score": score}
        if name:
            body["player_name"] = name
        return self.call("POST", f"/leaderboards/{board}/scores", body=body)

    def top(self, board: str, limit: int, cursor: str | None = None) -> Response:
        query = {"limit": limit, **({"cursor": cursor} if cursor else {})}
        return self.call("GET", f"/leaderboards/{board}/top", query=query)

    def player(self, board: str, player_id: str, window: int) -> Response:
        return self.call("GET", f"/leaderboards/{board}/players/{player_id}", query={"window": window})
