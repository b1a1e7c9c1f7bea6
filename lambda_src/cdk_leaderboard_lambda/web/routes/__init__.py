"""THE route table's front: the one source of truth for the API's shape, split by concern in web/routes/ (its
__init__ says what lives where). The CDK stack builds API Gateway from it, the handlers dispatch with it, the local
gateway dispatches with it, the OpenAPI document is generated from it, and the tests walk it. Import from here.

Its schema fragments and body models are frozen (frozen.py): read them as dicts; `thaw` one to hand it out as JSON.
"""

from __future__ import annotations

from ...shared.frozen import Frozen, freeze, thaw
from ...shared.function_registry import (
    FUNCTIONS,
    LEADERBOARD_ADMIN,
    LEADERBOARD_QUERY,
    LEADERBOARD_SNAPSHOT,
    LIVE_AUTHORIZER,
    LIVE_BROADCASTER,
    PERIOD_CLOSER,
    PLAYER_STATS,
    RANK_COUNTER,
    SCORE_SIMULATOR,
    SCORE_SUBMIT,
    Function,
)
from ...shared.limits import MAX_SCORE
from .access import ADMIN, BEARER, GAME, KEYED, PLAYER, PUBLIC, RUN
from .bodies import (
    BOARD_BODY,
    BOARD_SCORE_BODY,
    BOARD_UPDATE_BODY,
    BULK_BODY,
    SCORE_BODY,
    SIMULATE_BODY,
    SNAPSHOT_BODY,
    TOKEN_BODY,
    TOURNAMENT_TIME,
    Body,
)
from .caching import LIVE, NO_STORE, PERIOD, SETTLED, SETTLED_SECONDS, SNAPSHOTS, Caching
from .fields import (
    BOARD_ID,
    BOARD_PERIOD,
    CURSOR,
    DEFAULT_BOARD_KINDS,
    DEFAULT_PERIOD,
    ERASURE_ID,
    FRIEND_IDS,
    IDEMPOTENCY_KEY,
    PAGE_QUERY,
    PATH_PARAMS,
    PLAYER_ID,
    PLAYER_NAME,
    RANK_MODE,
    SCORE,
)
from .gateway_errors import (
    BEARER_CHALLENGE,
    INVALID_API_KEY,
    METHOD_NOT_ALLOWED,
    MISSING_CREDENTIALS,
    THROTTLED,
    UNKNOWN_ROUTE,
    GatewayError,
)
from .route import Route
from .table import OPENAPI_VERSION, ROUTES, edge_query_names, match_route, route_operations

__all__ = [
    "ADMIN", "BEARER", "BEARER_CHALLENGE", "BOARD_BODY", "BOARD_ID", "BOARD_PERIOD", "BOARD_SCORE_BODY",
    "BOARD_UPDATE_BODY", "BULK_BODY", "Body", "CURSOR", "Caching", "DEFAULT_BOARD_KINDS", "DEFAULT_PERIOD",
    "ERASURE_ID", "FRIEND_IDS", "FUNCTIONS", "Frozen", "Function", "GAME", "GatewayError", "IDEMPOTENCY_KEY",
    "INVALID_API_KEY", "KEYED", "LEADERBOARD_ADMIN", "LEADERBOARD_QUERY", "LEADERBOARD_SNAPSHOT", "LIVE",
    "LIVE_AUTHORIZER", "LIVE_BROADCASTER", "MAX_SCORE", "METHOD_NOT_ALLOWED", "MISSING_CREDENTIALS", "NO_STORE",
    "PAGE_QUERY",
    "PATH_PARAMS", "PERIOD", "PERIOD_CLOSER", "PLAYER", "PLAYER_ID", "PLAYER_NAME", "PLAYER_STATS", "PUBLIC",
    "RANK_COUNTER", "RANK_MODE", "ROUTES", "RUN", "Route", "SCORE", "SCORE_BODY", "SCORE_SIMULATOR", "SCORE_SUBMIT",
    "SETTLED", "SETTLED_SECONDS", "SIMULATE_BODY", "SNAPSHOTS", "SNAPSHOT_BODY", "THROTTLED", "TOKEN_BODY",
    "TOURNAMENT_TIME", "UNKNOWN_ROUTE", "edge_query_names", "freeze", "match_route", "thaw", "OPENAPI_VERSION",
    "route_operations",
]  # fmt: skip
