"""THE route table: the one source of truth for the API's shape.

The CDK stack builds API Gateway from it, the local gateway dispatches with it,
and the tests walk it. Pure data: importable without boto3 or aws-cdk-lib.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Function:
    """One Lambda function: its deployed name suffix and its Python entry point."""

    name: str
    handler: str  # "module.attribute", relative to lambda_src/
    description: str
    timeout_seconds: int = 10


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    function: Function
    needs_key: bool  # write routes need an API key through a usage plan
    required_query: tuple[str, ...] = field(default=())
    body_schema: dict | None = None  # JSON Schema (draft 4) that API Gateway validates


SCORE_SUBMIT = Function("score-submit", "handlers.score_submit.handler", "POST /scores: high-score-wins on every period")
LEADERBOARD_QUERY = Function("leaderboard-query", "handlers.leaderboard_query.handler", "GET /leaderboard: top N of a period")
PLAYER_STATS = Function("player-stats", "handlers.player_stats.handler", "GET /player: rank and percentile on every board")
LEADERBOARD_SNAPSHOT = Function(
    "leaderboard-snapshot", "handlers.leaderboard_snapshot.handler", "POST /snapshot, GET /snapshots: append-only history"
)
SCORE_SIMULATOR = Function(
    "score-simulator", "handlers.score_simulator.handler", "POST /simulate: seeds realistic demo data", timeout_seconds=60
)

FUNCTIONS: tuple[Function, ...] = (SCORE_SUBMIT, LEADERBOARD_QUERY, PLAYER_STATS, LEADERBOARD_SNAPSHOT, SCORE_SIMULATOR)

MAX_SCORE = 2**53 - 1  # the largest integer a JSON number carries exactly

SCORE_BODY = {
    "type": "object",
    "required": ["player_id", "score"],
    "properties": {
        "player_id": {"type": "string", "minLength": 1, "maxLength": 64},
        "player_name": {"type": "string", "maxLength": 64},
        "score": {"type": "integer", "minimum": 0, "maximum": MAX_SCORE},
    },
}
SNAPSHOT_BODY = {
    "type": "object",
    "properties": {
        "period": {"type": "string"},
        "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    },
}
SIMULATE_BODY = {
    "type": "object",
    "properties": {"players": {"type": "integer", "minimum": 1, "maximum": 1000}},
}

ROUTES: tuple[Route, ...] = (
    Route("POST", "/scores", SCORE_SUBMIT, needs_key=True, body_schema=SCORE_BODY),
    Route("GET", "/leaderboard", LEADERBOARD_QUERY, needs_key=False),
    Route("GET", "/player", PLAYER_STATS, needs_key=False, required_query=("player_id",)),
    Route("POST", "/snapshot", LEADERBOARD_SNAPSHOT, needs_key=True, body_schema=SNAPSHOT_BODY),
    Route("GET", "/snapshots", LEADERBOARD_SNAPSHOT, needs_key=False),
    Route("POST", "/simulate", SCORE_SIMULATOR, needs_key=True, body_schema=SIMULATE_BODY),
)


def find_route(method: str, path: str) -> tuple[Route | None, bool]:
    """The route for (method, path), and whether the path exists under any method."""
    on_path = [r for r in ROUTES if r.path == path]
    return next((r for r in on_path if r.method == method), None), bool(on_path)


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
