"""The API's own OpenAPI document."""

from __future__ import annotations

from ...shared.function_registry import LEADERBOARD_ADMIN
from .access import PUBLIC
from .caching import SETTLED
from .route import Route

DOCUMENT_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/openapi.json",
        LEADERBOARD_ADMIN,
        "document",
        access=PUBLIC,
        response=(200, "OpenApi"),
        cache=SETTLED,
        summary="This API's OpenAPI 3 document",
    ),
)
