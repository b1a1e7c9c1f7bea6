"""THE route table: the one source of truth for the API's shape.

Each route says its method and path, the function that serves it and the handler function in that function's
module (`operation`), who may call it, the query parameters it takes and the model of its body (with the
limits of limits.py), and what it answers. The CDK stack builds API Gateway from it, the handlers dispatch with it
(http.function_handler), the local gateway dispatches with it, the OpenAPI document is generated from it, and the
tests walk it. Pure data: importable without boto3 or aws-cdk-lib.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .board_routes import BOARD_ROUTES
from .default_board_routes import DEFAULT_BOARD_ROUTES
from .document_routes import DOCUMENT_ROUTES
from .period_routes import PERIOD_ROUTES
from .player_routes import PLAYER_ROUTES
from .proof_routes import PROOF_ROUTES
from .ranking_routes import RANKING_ROUTES
from .review_routes import REVIEW_ROUTES
from .route import Route
from .submission_routes import SUBMISSION_ROUTES

OPENAPI_VERSION = "3.0.3"  # both documents' (3.0 keeps draft 4's integers: openapi.py)

# In this order: the OpenAPI document lists the paths as they come here.
ROUTES: tuple[Route, ...] = (
    *DEFAULT_BOARD_ROUTES,
    *BOARD_ROUTES,
    *SUBMISSION_ROUTES,
    *RANKING_ROUTES,
    *PLAYER_ROUTES,
    *REVIEW_ROUTES,
    *PERIOD_ROUTES,
    *PROOF_ROUTES,
    *DOCUMENT_ROUTES,
)


def match_route(method: str, path: str) -> tuple[Route | None, bool, dict[str, str]]:
    """The route for (method, path), whether the path exists under any method, and its path parameters."""
    matches = [(r, params) for r in ROUTES if (params := r.match(path)) is not None]
    for route, params in matches:
        if route.method == method:
            return route, True, params
    return None, bool(matches), {}


def edge_query_names() -> tuple[str, ...]:
    """The query parameters of the routes the edge caches, sorted: its cache key holds these and only these (in
    this order, whatever order a caller gave them), and it passes no other to the API."""
    return tuple(sorted({name for r in ROUTES if r.method == "GET" and r.cache.cacheable for name in r.query}))


def route_operations() -> Iterator[tuple[str, str, Route, dict]]:
    """THE walk of the route table that both OpenAPI documents take, the served one (web/openapi.py) and the one API
    Gateway imports (web/deployed_api.py): each route's path, OpenAPI method and identity, in the table's order."""
    for route in ROUTES:
        identity = {"operationId": "_".join([route.method.lower(), *re.findall(r"[a-z]+", route.path)])}
        yield route.path, route.method.lower(), route, identity
