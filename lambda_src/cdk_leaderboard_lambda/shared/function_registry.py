"""The function registry: every Lambda function of the stack, its deployed name suffix, its entry point and its
timeout. The construct builds the functions from it, the route table names them, and operations that must outlast a
function's run read its timeout (player_removal.py): a leaf module, so that none of them imports the route table for
it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Function:
    """One Lambda function: its deployed name suffix and its Python entry point."""

    name: str
    handler: str  # "module.attribute", relative to lambda_src/
    description: str
    timeout_seconds: int = 10


SCORE_SUBMIT = Function(
    "score-submit",
    "cdk_leaderboard_lambda.handlers.score_submit.handler",
    "POST /scores: high-score-wins on every period; player tokens and runs",
)
LEADERBOARD_QUERY = Function(
    "leaderboard-query",
    "cdk_leaderboard_lambda.handlers.leaderboard_query.handler",
    "GET /leaderboard: top N of a period",
)
PLAYER_STATS = Function(
    "player-stats",
    "cdk_leaderboard_lambda.handlers.player_stats.handler",
    "GET /player: rank and percentile on every board",
)
LEADERBOARD_SNAPSHOT = Function(
    "leaderboard-snapshot",
    "cdk_leaderboard_lambda.handlers.leaderboard_snapshot.handler",
    "POST /snapshot, GET /snapshots: append-only history",
)
SCORE_SIMULATOR = Function(
    "score-simulator",
    "cdk_leaderboard_lambda.handlers.score_simulator.handler",
    "POST /simulate: seeds realistic demo data",
    timeout_seconds=60,
)

LEADERBOARD_ADMIN = Function(
    "leaderboard-admin",
    "cdk_leaderboard_lambda.handlers.leaderboard_admin.handler",
    "Boards: create, list, show, delete; the OpenAPI document",
    timeout_seconds=60,
)

# Not behind the API: Lambda feeds it the scores table's stream (an event source mapping).
RANK_COUNTER = Function(
    "rank-counter",
    "cdk_leaderboard_lambda.handlers.rank_counter.handler",
    "Keeps the rank counters in step with the scores table's stream",
    timeout_seconds=60,
)

# Not behind the API: an EventBridge schedule runs it every few minutes to close the periods that have ended.
PERIOD_CLOSER = Function(
    "period-closer",
    "cdk_leaderboard_lambda.handlers.period_closer.handler",
    "Closes ended periods: summary, final snapshot, event",
    timeout_seconds=300,
)

# Not behind an API: Lambda feeds it the scores table's stream, a second consumer next to rank-counter.
LIVE_BROADCASTER = Function(
    "live-broadcaster",
    "cdk_leaderboard_lambda.handlers.live_broadcaster.handler",
    "Publishes each changed top 25 to its AppSync Events channel, at most once a second per board period",
    timeout_seconds=60,
)

# Not behind the REST API: the AppSync Event API's Lambda authorizer (connect and subscribe with a live token). Small
# and of its own, so that a string on a live connect never invokes a function that serves the REST API.
LIVE_AUTHORIZER = Function(
    "live-authorizer",
    "cdk_leaderboard_lambda.handlers.live_authorizer.handler",
    "Checks and counts live subscribe tokens on the Event API's connects and subscribes",
    timeout_seconds=5,
)

FUNCTIONS: tuple[Function, ...] = (
    SCORE_SUBMIT,
    LEADERBOARD_QUERY,
    PLAYER_STATS,
    LEADERBOARD_SNAPSHOT,
    SCORE_SIMULATOR,
    LEADERBOARD_ADMIN,
    RANK_COUNTER,
    PERIOD_CLOSER,
    LIVE_BROADCASTER,
    LIVE_AUTHORIZER,
)
