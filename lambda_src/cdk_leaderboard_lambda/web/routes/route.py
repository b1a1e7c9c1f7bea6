"""One route: its method and path, the function and operation that serve it, who may call it, its query parameters
and body model, its answer, and what the edge may keep of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ...shared.frozen import Frozen, freeze
from ...shared.function_registry import Function
from .access import BEARER, KEYED, PUBLIC
from .bodies import Body
from .caching import NO_STORE, Caching
from .matching import match_path


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # may hold {name} segments, e.g. /leaderboards/{board}
    function: Function
    operation: str  # the function's handler module serves this route with the function of this name
    access: str  # PUBLIC, GAME, ADMIN, PLAYER or RUN
    response: tuple[int, str]  # success status, and the name of its schema in the OpenAPI document
    query: Mapping[str, Frozen] = field(default_factory=dict)  # name -> JSON Schema (with "default"); frozen
    required_query: tuple[str, ...] = field(default=())
    body: Body | None = None  # the body's model (bodies.py)
    idempotent: bool = False  # takes an Idempotency-Key header
    summary: str = ""
    description: str = ""  # rules the schemas cannot say
    cache: Caching = NO_STORE  # how long the edge may keep its answers; keyed routes are never cached
    # When the route answers 503 with Retry-After: a DynamoDB transaction of its cancelled by another one in
    # progress on one of its items (TransactionConflict), nothing written. Empty: it does not.
    busy: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "query", freeze(self.query))  # a constant of the route table, as the body's model

    @property
    def needs_key(self) -> bool:
        """Whether API Gateway requires an API key (and meters it in the key's usage plan)."""
        return self.access in KEYED

    @property
    def required_headers(self) -> tuple[str, ...]:
        """Headers API Gateway's request validator requires (present and not blank) before it invokes anything:
        the bearer routes' Authorization, so a request with no credential costs no invocation (API Gateway's 401
        with WWW-Authenticate: Bearer, gateway_errors.MISSING_CREDENTIALS)."""
        return ("Authorization",) if self.access in BEARER else ()

    @property
    def authenticated(self) -> bool:
        """Whether the caller must prove who they are (a key or a token): never cached, answers are no-store."""
        return self.access != PUBLIC

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))

    def match(self, path: str) -> dict[str, str] | None:
        """The path parameters if `path` fits this route's template, else None."""
        return match_path(self.path, path)

    @property
    def body_schema(self) -> Frozen | None:
        """The body's JSON Schema (draft 4), frozen: API Gateway's request model, the OpenAPI requestBody."""
        return None if self.body is None else self.body.schema
