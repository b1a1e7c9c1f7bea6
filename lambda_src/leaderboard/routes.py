"""THE route table: the one source of truth for the API's shape.

The CDK stack builds API Gateway from it, the local gateway dispatches with it,
and the tests walk it. Pure data (and the period patterns): importable without boto3 or aws-cdk-lib.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import periods


@dataclass(frozen=True)
class Function:
    """One Lambda function: its deployed name suffix and its Python entry point."""

    name: str
    handler: str  # "module.attribute", relative to lambda_src/
    description: str
    timeout_seconds: int = 10


# Who may call a route. Keys are API Gateway API keys, each in its own usage plan: game servers get the
# game key (score submissions only); operators get the admin key (boards, snapshots, the simulator).
PUBLIC = "public"
GAME = "game"
ADMIN = "admin"


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # may hold {name} segments, e.g. /leaderboards/{board}
    function: Function
    access: str  # PUBLIC, GAME or ADMIN
    required_query: tuple[str, ...] = field(default=())
    body_schema: dict | None = None  # JSON Schema (draft 4) that API Gateway validates
    summary: str = ""

    @property
    def needs_key(self) -> bool:
        return self.access != PUBLIC

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(part[1:-1] for part in self.path.split("/") if part.startswith("{"))

    def match(self, path: str) -> dict[str, str] | None:
        """The path parameters if `path` fits this route's template, else None."""
        template, parts = self.path.split("/"), path.split("/")
        if len(template) != len(parts):
            return None
        params = {}
        for expected, actual in zip(template, parts):
            if expected.startswith("{"):
                if not actual:
                    return None
                params[expected[1:-1]] = actual
            elif expected != actual:
                return None
        return params


SCORE_SUBMIT = Function(
    "score-submit", "leaderboard.handlers.score_submit.handler", "POST /scores: high-score-wins on every period"
)
LEADERBOARD_QUERY = Function(
    "leaderboard-query", "leaderboard.handlers.leaderboard_query.handler", "GET /leaderboard: top N of a period"
)
PLAYER_STATS = Function(
    "player-stats", "leaderboard.handlers.player_stats.handler", "GET /player: rank and percentile on every board"
)
LEADERBOARD_SNAPSHOT = Function(
    "leaderboard-snapshot",
    "leaderboard.handlers.leaderboard_snapshot.handler",
    "POST /snapshot, GET /snapshots: append-only history",
)
SCORE_SIMULATOR = Function(
    "score-simulator",
    "leaderboard.handlers.score_simulator.handler",
    "POST /simulate: seeds realistic demo data",
    timeout_seconds=60,
)

LEADERBOARD_ADMIN = Function(
    "leaderboard-admin",
    "leaderboard.handlers.leaderboard_admin.handler",
    "Boards: create, list, show, delete; the OpenAPI document",
    timeout_seconds=60,
)

# Not behind the API: Lambda feeds it the scores table's stream (an event source mapping).
RANK_COUNTER = Function(
    "rank-counter",
    "leaderboard.handlers.rank_counter.handler",
    "Keeps the rank counters in step with the scores table's stream",
    timeout_seconds=60,
)

FUNCTIONS: tuple[Function, ...] = (
    SCORE_SUBMIT,
    LEADERBOARD_QUERY,
    PLAYER_STATS,
    LEADERBOARD_SNAPSHOT,
    SCORE_SIMULATOR,
    LEADERBOARD_ADMIN,
    RANK_COUNTER,
)

MAX_SCORE = 2**53 - 1  # the largest integer a JSON number carries exactly
# Ids, as the handlers check them (with fullmatch) and the OpenAPI document and body models state them.
# A player id is letters, digits and _ . : @ -, not only dots ("." and ".." are path segments that HTTP
# clients resolve away, so such a player could never be looked up).
PLAYER_ID_PATTERN = r"^[A-Za-z0-9_.:@-]*[A-Za-z0-9_:@-][A-Za-z0-9_.:@-]*$"
BOARD_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,47}$"
PLAYER_ID = {"type": "string", "minLength": 1, "maxLength": 64, "pattern": PLAYER_ID_PATTERN}
# A name is shown as given, trimmed; it must have something besides whitespace.
PLAYER_NAME = {"type": "string", "minLength": 1, "maxLength": 64, "pattern": r"\S"}

# Request body models (JSON Schema draft 4, which API Gateway validates for application/json). They state
# every rule the handlers enforce that JSON Schema can say; the handlers check them all again themselves.
SCORE_BODY = {
    "type": "object",
    "required": ["player_id", "score"],
    "properties": {
        "player_id": PLAYER_ID,
        "player_name": PLAYER_NAME,
        "score": {"type": "integer", "minimum": 0, "maximum": MAX_SCORE},
    },
    "additionalProperties": False,
}
SNAPSHOT_BODY = {
    "type": "object",
    "properties": {
        "period": {"type": "string", "pattern": periods.pattern((periods.ALL_TIME, periods.DAILY, periods.WEEKLY))},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    },
    "additionalProperties": False,
}
SIMULATE_BODY = {
    "type": "object",
    "properties": {"players": {"type": "integer", "minimum": 1, "maximum": 1000}},
    "additionalProperties": False,
}

PERIOD_KINDS = list(periods.KINDS)
BOARD_BODY = {
    "type": "object",
    "required": ["board_id"],
    "properties": {
        "board_id": {"type": "string", "minLength": 1, "maxLength": 48, "pattern": BOARD_ID_PATTERN},
        "name": PLAYER_NAME,
        "order": {"type": "string", "enum": ["desc", "asc"]},
        "operator": {"type": "string", "enum": ["best", "latest", "increment"]},
        "periods": {
            "type": "array",
            "minItems": 1,
            "maxItems": len(PERIOD_KINDS),
            "uniqueItems": True,
            "items": {"type": "string", "enum": PERIOD_KINDS},
        },
        # min_score must not be greater than max_score: JSON Schema cannot compare two fields.
        "min_score": {"type": "integer", "minimum": 0, "maximum": MAX_SCORE},
        "max_score": {"type": "integer", "minimum": 0, "maximum": MAX_SCORE},
        "shards": {"type": "integer", "minimum": 1, "maximum": 16},
    },
    "additionalProperties": False,
}
MAX_METADATA_BYTES = 1024
BOARD_SCORE_BODY = {
    "type": "object",
    "required": ["player_id", "score"],
    "properties": {
        "player_id": PLAYER_ID,
        "player_name": PLAYER_NAME,
        # increment boards take negative deltas; the board's bounds apply to the result
        "score": {"type": "integer", "minimum": -MAX_SCORE, "maximum": MAX_SCORE},
        # at most MAX_METADATA_BYTES as compact JSON (the handler checks the size)
        "metadata": {"type": "object"},
    },
    "additionalProperties": False,
}
MAX_BULK = 500
BULK_BODY = {
    "type": "object",
    "required": ["entries"],
    # Each entry is checked on its own: a bad one gets its own error in the results, the others go on.
    "properties": {
        "entries": {"type": "array", "minItems": 1, "maxItems": MAX_BULK, "items": {"type": "object"}},
    },
    "additionalProperties": False,
}

ROUTES: tuple[Route, ...] = (
    # The original five functions' routes, unchanged; they act on the default board "global".
    Route(
        "POST",
        "/scores",
        SCORE_SUBMIT,
        access=GAME,
        body_schema=SCORE_BODY,
        summary="Submit a score to the default board",
    ),
    Route("GET", "/leaderboard", LEADERBOARD_QUERY, access=PUBLIC, summary="Top N of the default board"),
    Route(
        "GET",
        "/player",
        PLAYER_STATS,
        access=PUBLIC,
        required_query=("player_id",),
        summary="A player's rank and percentile on every period of the default board",
    ),
    Route(
        "POST",
        "/snapshot",
        LEADERBOARD_SNAPSHOT,
        access=ADMIN,
        body_schema=SNAPSHOT_BODY,
        summary="Freeze the current top N of a default-board period",
    ),
    Route("GET", "/snapshots", LEADERBOARD_SNAPSHOT, access=PUBLIC, summary="Snapshots of a period, newest first"),
    Route(
        "POST",
        "/simulate",
        SCORE_SIMULATOR,
        access=ADMIN,
        body_schema=SIMULATE_BODY,
        summary="Seed simulated players (dev stages)",
    ),
    # Many boards.
    Route("POST", "/leaderboards", LEADERBOARD_ADMIN, access=ADMIN, body_schema=BOARD_BODY, summary="Create a board"),
    Route("GET", "/leaderboards", LEADERBOARD_ADMIN, access=PUBLIC, summary="List boards"),
    Route(
        "GET", "/leaderboards/{board}", LEADERBOARD_ADMIN, access=PUBLIC, summary="Show a board and its next resets"
    ),
    Route(
        "DELETE",
        "/leaderboards/{board}",
        LEADERBOARD_ADMIN,
        access=ADMIN,
        summary="Delete a board and its entries (202 while a large board is still being purged)",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/scores",
        SCORE_SUBMIT,
        access=GAME,
        body_schema=BOARD_SCORE_BODY,
        summary="Submit a score: the board's operator on every period it keeps",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/scores/bulk",
        SCORE_SUBMIT,
        access=GAME,
        body_schema=BULK_BODY,
        summary="Submit up to 500 scores; per-entry results in input order",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/top",
        LEADERBOARD_QUERY,
        access=PUBLIC,
        summary="A page of the ranking, with a cursor to the next",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/range",
        LEADERBOARD_QUERY,
        access=PUBLIC,
        required_query=("min_score", "max_score"),
        summary="Entries with scores in a range, best first",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/players/{player_id}",
        PLAYER_STATS,
        access=PUBLIC,
        summary="A player's rank, score, percentile and the entries around them",
    ),
    Route("GET", "/openapi.json", LEADERBOARD_ADMIN, access=PUBLIC, summary="This API's OpenAPI 3 document"),
)


def match_route(method: str, path: str) -> tuple[Route | None, bool, dict[str, str]]:
    """The route for (method, path), whether the path exists under any method, and its path parameters."""
    matches = [(r, params) for r in ROUTES if (params := r.match(path)) is not None]
    for route, params in matches:
        if route.method == method:
            return route, True, params
    return None, bool(matches), {}


def find_route(method: str, path: str) -> tuple[Route | None, bool]:
    """The route for (method, path), and whether the path exists under any method."""
    route, known, _ = match_route(method, path)
    return route, known


# Errors that API Gateway itself answers before a handler runs. The CDK stack turns
# them into gateway responses and the local gateway answers them the same way.
@dataclass(frozen=True)
class GatewayError:
    status: int
    message: str


INVALID_API_KEY = GatewayError(403, "Forbidden: this route needs a valid x-api-key header")
UNKNOWN_ROUTE = GatewayError(404, "Not found: no such route")
METHOD_NOT_ALLOWED = GatewayError(405, "Method not allowed on this route")
THROTTLED = GatewayError(429, "Too many requests: slow down")
