"""THE route table: the one source of truth for the API's shape.

Each route says its method and path, the function that serves it and the handler function in that function's
module (`operation`), who may call it, the query parameters it takes and the JSON Schema of its body (with the
limits of limits.py), and what it answers. The CDK stack builds API Gateway from it, the handlers dispatch with it
(http.function_handler), the local gateway dispatches with it, the OpenAPI document is generated from it, and the
tests walk it. Pure data: importable without boto3 or aws-cdk-lib.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import limits, periods
from .limits import MAX_SCORE


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
class Caching:
    """What a shared cache (the edge: CloudFront on AWS, Nginx's proxy cache locally) may do with a route's answers.

    A success is kept `max_age` seconds (0: `no-store`, never kept), and served up to `stale_seconds` past that while
    one request refreshes it; an answer whose field `settled_when[0]` has the value `settled_when[1]` (a closed
    period) can no longer change and is kept `settled_max_age` seconds. http.cache_control turns it into the header.
    """

    max_age: int = 0
    settled_max_age: int = 0
    settled_when: tuple[str, str] | None = None
    stale_seconds: int = 2

    @property
    def cacheable(self) -> bool:
        return self.max_age > 0


NO_STORE = Caching()
# Live rankings: a new score shows at the edge within max_age + stale_seconds (+ one origin round trip).
LIVE = Caching(max_age=5)
# What cannot change once written: the OpenAPI document (until a deploy), a closed period's summary. Bounded
# anyway, because an erasure rewrites snapshots and summaries: the edge shows it within this time.
SETTLED_SECONDS = 300
SETTLED = Caching(max_age=SETTLED_SECONDS)
# A closed period is settled; an open one is live (GET .../periods/{period_id} answers both).
PERIOD = Caching(max_age=LIVE.max_age, settled_max_age=SETTLED_SECONDS, settled_when=("status", "closed"))
# The snapshot history only grows (POST /snapshot, the period closer): a new snapshot shows within a minute.
SNAPSHOTS = Caching(max_age=60)


@dataclass(frozen=True)
class Route:
    method: str
    path: str  # may hold {name} segments, e.g. /leaderboards/{board}
    function: Function
    operation: str  # the function's handler module serves this route with the function of this name
    access: str  # PUBLIC, GAME or ADMIN
    response: tuple[int, str]  # success status, and the name of its schema in the OpenAPI document
    query: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> JSON Schema (with "default")
    required_query: tuple[str, ...] = field(default=())
    body_schema: dict | None = None  # JSON Schema (draft 4) that API Gateway validates
    idempotent: bool = False  # takes an Idempotency-Key header
    summary: str = ""
    description: str = ""  # rules the schemas cannot say
    cache: Caching = NO_STORE  # how long the edge may keep its answers; keyed routes are never cached

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
        for expected, actual in zip(template, parts, strict=True):
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

# Not behind the API: an EventBridge schedule runs it every few minutes to close the periods that have ended.
PERIOD_CLOSER = Function(
    "period-closer",
    "leaderboard.handlers.period_closer.handler",
    "Closes ended periods: summary, final snapshot, event",
    timeout_seconds=300,
)

# Not behind an API: Lambda feeds it the scores table's stream, a second consumer next to rank-counter.
LIVE_BROADCASTER = Function(
    "live-broadcaster",
    "leaderboard.handlers.live_broadcaster.handler",
    "Publishes each changed top 25 to its AppSync Events channel, at most once a second per board period",
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
    PERIOD_CLOSER,
    LIVE_BROADCASTER,
)


# --- the shapes of ids, names, periods and bodies --------------------------------------------------

PLAYER_ID = {
    "type": "string",
    "minLength": 1,
    "maxLength": limits.MAX_ID_LENGTH,
    "pattern": limits.PLAYER_ID_PATTERN,
}
BOARD_ID = {
    "type": "string",
    "minLength": 1,
    "maxLength": limits.MAX_BOARD_ID_LENGTH,
    "pattern": limits.BOARD_ID_PATTERN,
}
# A name is shown as given, trimmed: no control or bidirectional formatting characters, and something visible
# besides whitespace, zero-width and filler characters (limits.NAME_PATTERN; the handler also checks surrogates).
PLAYER_NAME = {
    "type": "string",
    "minLength": 1,
    "maxLength": limits.MAX_NAME_LENGTH,
    "pattern": limits.NAME_PATTERN,
    "description": "shown as given (trimmed): Unicode scalar values only (no lone surrogates), no control characters "
    "(U+0000-U+001F, U+007F-U+009F, U+2028, U+2029), no bidirectional formatting (U+061C, U+200E, U+200F, "
    "U+202A-U+202E, U+2066-U+2069), and at least one visible character once whitespace, zero-width and filler "
    "characters (U+200B-U+200D, U+2060, U+FEFF, U+115F, U+1160, U+3164, U+FFA0, U+2800, ...) are left out",
}
ERASURE_ID = {"type": "string", "pattern": limits.ERASURE_ID_PATTERN}
# period_id: added below, once periods are described
PATH_PARAMS = {"board": BOARD_ID, "player_id": PLAYER_ID, "erasure_id": ERASURE_ID}
DEFAULT_BOARD_KINDS = (periods.ALL_TIME, periods.DAILY, periods.WEEKLY)
SCORE = {"type": "integer", "minimum": 0, "maximum": MAX_SCORE}


def _limit(high: int, default: int, low: int = 1) -> dict:
    return {"type": "integer", "minimum": low, "maximum": high, "default": default}


def _period(kinds: tuple[str, ...], description: str) -> dict:
    return {"type": "string", "pattern": periods.pattern(kinds), "description": description}


DEFAULT_PERIOD = _period(
    DEFAULT_BOARD_KINDS,
    "all-time (default), daily, weekly, or a past or future id: daily-YYYY-MM-DD, weekly-YYYY-Www (years 2000-2999)",
)
BOARD_PERIOD = _period(
    (*periods.KINDS, periods.TOURNAMENT),
    "all-time, daily, weekly, monthly or an id of one (years 2000-2999), or tournament on a tournament board. A "
    "period of a kind the board does not keep (GET /leaderboards/{board} lists them) is a 404. Default: all-time, "
    "or the board's first period if it does not keep all-time.",
)
PATH_PARAMS["period_id"] = BOARD_PERIOD
CURSOR = {
    "type": "string",
    "maxLength": limits.MAX_CURSOR_CHARS,
    "pattern": limits.CURSOR_PATTERN,
    "description": "next_cursor of the previous page of the same board, period (and score range); opaque and "
    "signed: any other value, or one older than the cursor lifetime, is a 400.",
}
IDEMPOTENCY_KEY = {
    "type": "string",
    "pattern": rf"^[!-~]{{1,{limits.MAX_IDEMPOTENCY_KEY_LENGTH}}}$",
    "description": f"1-{limits.MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters",
}

# Request body models (JSON Schema draft 4, which API Gateway validates for application/json). They state
# every rule the handlers enforce that JSON Schema can say; the handlers check them all again themselves.
SCORE_BODY = {
    "type": "object",
    "required": ["player_id", "score"],
    "properties": {"player_id": PLAYER_ID, "player_name": PLAYER_NAME, "score": SCORE},
    "additionalProperties": False,
}
SNAPSHOT_BODY = {
    "type": "object",
    "properties": {
        "period": {"type": "string", "pattern": periods.pattern(DEFAULT_BOARD_KINDS)},
        "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_SNAPSHOT),
    },
    "additionalProperties": False,
}
SIMULATE_BODY = {
    "type": "object",
    "properties": {"players": _limit(limits.MAX_SIMULATED_PLAYERS, limits.DEFAULT_SIMULATED_PLAYERS)},
    "additionalProperties": False,
}
TOURNAMENT_TIME = {
    "type": "string",
    "format": "date-time",
    "pattern": limits.TIMESTAMP_PATTERN,
    "description": f"ISO 8601 UTC with Z, to the second or finer (2026-12-01T18:00:00Z): a real date and time of the "
    f"years {limits.FIRST_YEAR}-{limits.LAST_YEAR}, the years period ids name (0000-00-00T00:00:00Z is no time)",
}
BOARD_BODY = {
    "type": "object",
    "required": ["board_id"],
    "properties": {
        "board_id": BOARD_ID,
        "name": PLAYER_NAME,
        "order": {"type": "string", "enum": list(limits.ORDERS)},
        "operator": {"type": "string", "enum": list(limits.OPERATORS)},
        "periods": {
            "type": "array",
            "minItems": 1,
            "maxItems": len(periods.KINDS),
            "uniqueItems": True,
            "items": {"type": "string", "enum": list(periods.KINDS)},
        },
        # min_score must not be greater than max_score: JSON Schema cannot compare two fields.
        "min_score": SCORE,
        "max_score": SCORE,
        "shards": {"type": "integer", "minimum": 1, "maximum": limits.MAX_SHARDS},
        "max_submissions_per_minute": {"type": "integer", "minimum": 1, "maximum": limits.MAX_SUBMISSIONS_PER_MINUTE},
        # A tournament: both instead of periods (the dependencies below), ends_at after starts_at (JSON Schema
        # cannot compare them).
        "starts_at": TOURNAMENT_TIME,
        "ends_at": TOURNAMENT_TIME,
        "rewards": {
            "type": "array",
            "maxItems": limits.MAX_REWARDS,
            "items": {
                "type": "object",
                "required": ["reward", "ranks"],
                "properties": {
                    "reward": PLAYER_NAME,
                    # first <= last: JSON Schema cannot compare the two
                    "ranks": {
                        "type": "array",
                        "minItems": 2,
                        "maxItems": 2,
                        "items": {"type": "integer", "minimum": 1, "maximum": limits.CLOSING_TOP},
                    },
                },
                "additionalProperties": False,
            },
        },
        "tiers": {
            "type": "array",
            "maxItems": limits.MAX_TIERS,
            "items": {
                "type": "object",
                "required": ["name", "min_percentile"],
                "properties": {
                    "name": PLAYER_NAME,
                    "min_percentile": {"type": "integer", "minimum": 0, "maximum": 100},
                },
                "additionalProperties": False,
            },
        },
    },
    # starts_at and ends_at come together, and never with periods: a board keeps periods or is a tournament.
    "dependencies": {
        "starts_at": {"required": ["ends_at"], "not": {"required": ["periods"]}},
        "ends_at": {"required": ["starts_at"]},
    },
    "additionalProperties": False,
}
BOARD_SCORE_BODY = {
    "type": "object",
    "required": ["player_id", "score"],
    "properties": {
        "player_id": PLAYER_ID,
        "player_name": PLAYER_NAME,
        # increment boards take negative deltas; the board's bounds apply to the result
        "score": {"type": "integer", "minimum": -MAX_SCORE, "maximum": MAX_SCORE},
        # at most MAX_METADATA_BYTES as compact JSON (the handler checks the size and the numbers)
        "metadata": {
            "type": "object",
            "description": f"any JSON object of at most {limits.MAX_METADATA_BYTES:,} bytes as compact JSON, served "
            "back as given: its text Unicode scalar values only (no lone surrogates), its integers from "
            f"-{limits.MAX_SAFE_INTEGER} to {limits.MAX_SAFE_INTEGER} (exact in a double), its other numbers within a "
            "double's range",
        },
    },
    "additionalProperties": False,
}
BULK_BODY = {
    "type": "object",
    "required": ["entries"],
    # Each entry is checked on its own: a bad one gets its own error in the results, the others go on.
    "properties": {
        "entries": {"type": "array", "minItems": 1, "maxItems": limits.MAX_BULK, "items": {"type": "object"}},
    },
    "additionalProperties": False,
}
FRIEND_IDS = {
    "type": "string",
    "minLength": 1,
    "maxLength": limits.MAX_FRIEND_IDS_CHARS,
    "pattern": limits.PLAYER_IDS_PATTERN,
    "x-max-ids": limits.MAX_FRIEND_IDS,  # the count the pattern allows, as a number clients can read
    "description": f"1-{limits.MAX_FRIEND_IDS} comma-separated player ids (each as player_id); more is a 400. "
    "Ids not on the board (including any longer than a player id can be) are left out of the answer.",
}
RANK_MODE = {
    "type": "string",
    "enum": list(limits.RANK_MODES),
    "default": limits.UNIQUE,
    "description": "how ties are ranked: unique (default; equal scores ranked by who reached the score first: "
    "1, 2, 3, 4) or competition (equal scores share a rank: 1, 2, 2, 4), at the same bounded cost. dense "
    "(1, 2, 2, 3) is not offered and answers 400: it needs the number of distinct scores ahead, which the rank "
    "counters do not keep (they count entries per key range, and the distinct scores of shards cannot be added "
    "up), so it could only be computed at a cost that grows with the board.",
}
PAGE_QUERY = {
    "period": BOARD_PERIOD,
    "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE),
    "cursor": CURSOR,
    "rank_mode": RANK_MODE,
}

ROUTES: tuple[Route, ...] = (
    # The original five functions' routes, unchanged; they act on the default board "global".
    Route(
        "POST",
        "/scores",
        SCORE_SUBMIT,
        "default_board_submit",
        access=GAME,
        response=(200, "DefaultSubmit"),
        body_schema=SCORE_BODY,
        summary="Submit a score to the default board",
    ),
    Route(
        "GET",
        "/leaderboard",
        LEADERBOARD_QUERY,
        "default_board_top",
        access=PUBLIC,
        response=(200, "Leaderboard"),
        cache=LIVE,
        query={"period": DEFAULT_PERIOD, "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_TOP), "rank_mode": RANK_MODE},
        summary="Top N of the default board",
    ),
    Route(
        "GET",
        "/player",
        PLAYER_STATS,
        "default_board_player",
        access=PUBLIC,
        response=(200, "PlayerStats"),
        cache=LIVE,
        query={"player_id": PLAYER_ID},
        required_query=("player_id",),
        summary="A player's rank and percentile on every period of the default board",
    ),
    Route(
        "POST",
        "/snapshot",
        LEADERBOARD_SNAPSHOT,
        "take",
        access=ADMIN,
        response=(201, "Snapshot"),
        body_schema=SNAPSHOT_BODY,
        summary="Freeze the current top N of a default-board period",
    ),
    Route(
        "GET",
        "/snapshots",
        LEADERBOARD_SNAPSHOT,
        "listing",
        access=PUBLIC,
        response=(200, "SnapshotList"),
        cache=SNAPSHOTS,
        query={"period": DEFAULT_PERIOD, "limit": _limit(limits.MAX_SNAPSHOTS_LISTED, limits.DEFAULT_SNAPSHOT)},
        summary="Snapshots of a period, newest first",
    ),
    Route(
        "POST",
        "/simulate",
        SCORE_SIMULATOR,
        "simulate",
        access=ADMIN,
        response=(200, "Simulated"),
        body_schema=SIMULATE_BODY,
        summary="Seed simulated players (dev stages)",
        description="403 on stages where the simulator is off.",
    ),
    # Many boards.
    Route(
        "POST",
        "/leaderboards",
        LEADERBOARD_ADMIN,
        "create",
        access=ADMIN,
        response=(201, "Board"),
        body_schema=BOARD_BODY,
        summary="Create a board",
        description="409 when the deployment holds its max_boards (a stack prop, 200 by default) already. "
        "min_score must not be greater than max_score. A tournament gives starts_at and ends_at (ISO 8601 "
        "UTC, ends_at after starts_at) instead of periods: it keeps one period, tournament, and takes scores only "
        "from starts_at until ends_at (409 outside, nothing written).",
    ),
    Route(
        "GET",
        "/leaderboards",
        LEADERBOARD_ADMIN,
        "list_boards",
        access=PUBLIC,
        response=(200, "BoardList"),
        cache=LIVE,
        query={"limit": _limit(limits.MAX_BOARDS_LISTED, limits.MAX_BOARDS_LISTED), "cursor": CURSOR},
        summary="List boards (paged)",
        description="Built-in and declared boards first, then created ones in board-id order; next_cursor while "
        "more follow. At most two DynamoDB Queries per call.",
    ),
    Route(
        "GET",
        "/leaderboards/{board}",
        LEADERBOARD_ADMIN,
        "show",
        access=PUBLIC,
        response=(200, "Board"),
        cache=LIVE,
        summary="Show a board and its next resets",
    ),
    Route(
        "DELETE",
        "/leaderboards/{board}",
        LEADERBOARD_ADMIN,
        "delete",
        access=ADMIN,
        response=(200, "Deletion"),
        summary="Delete a board and its entries (202 while a large board is still being purged)",
        description="Boards built in or declared in the stack cannot be deleted (400).",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/scores",
        SCORE_SUBMIT,
        "board_score",
        access=GAME,
        response=(200, "BoardSubmit"),
        body_schema=BOARD_SCORE_BODY,
        idempotent=True,
        summary="Submit a score: the board's operator on every period it keeps",
        description="The score must also lie in the board's [min_score, max_score] (and, on increment boards, the "
        f"resulting total); metadata is at most {limits.MAX_METADATA_BYTES:,} bytes as compact JSON. On a "
        "tournament, a submission before starts_at or from ends_at on is a 409 and writes nothing.",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/scores/bulk",
        SCORE_SUBMIT,
        "bulk",
        access=GAME,
        response=(200, "Bulk"),
        body_schema=BULK_BODY,
        idempotent=True,
        summary=f"Submit up to {limits.MAX_BULK} scores; per-entry results in input order",
        description="Each entry is a POST /leaderboards/{board}/scores body, checked on its own: its status and "
        "error are in results. On a tournament outside its window the whole bulk is a 409 and writes nothing.",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/top",
        LEADERBOARD_QUERY,
        "top",
        access=PUBLIC,
        response=(200, "Page"),
        cache=LIVE,
        query=PAGE_QUERY,
        summary="A page of the ranking, with a cursor to the next",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/range",
        LEADERBOARD_QUERY,
        "score_range",
        access=PUBLIC,
        response=(200, "Page"),
        cache=LIVE,
        query={
            "period": BOARD_PERIOD,
            "min_score": {**SCORE, "description": "not greater than max_score"},
            "max_score": SCORE,
            "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE),
            "cursor": CURSOR,
            "rank_mode": RANK_MODE,
        },
        required_query=("min_score", "max_score"),
        summary="Entries with scores in a range, best first",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/players/{player_id}",
        PLAYER_STATS,
        "around",
        access=PUBLIC,
        response=(200, "Around"),
        cache=LIVE,
        query={
            "period": BOARD_PERIOD,
            "window": _limit(limits.MAX_WINDOW, limits.DEFAULT_WINDOW, low=0),
            "rank_mode": RANK_MODE,
        },
        summary="A player's rank, score, percentile and the entries around them",
    ),
    # Players across boards.
    Route(
        "GET",
        "/leaderboards/{board}/players",
        PLAYER_STATS,
        "friends",
        access=PUBLIC,
        response=(200, "Friends"),
        cache=LIVE,
        query={"period": BOARD_PERIOD, "ids": FRIEND_IDS, "cursor": CURSOR},
        required_query=("ids",),
        summary=f"Up to {limits.MAX_FRIEND_IDS} players (friends) ranked on a board",
        description="The players of ids that are on the board's period, in rank order with their board-wide ranks; "
        f"the others are left out. At most {limits.FRIENDS_BUDGET} DynamoDB requests per call: the board's "
        "config, one BatchGetItem of the entries, then per shard of the board one read of its segment counters "
        "and, per player, at most one read of the bucket counters of their segment and one key read of their "
        "bucket (shared by players in the same ones). The players that do not fit follow in later pages: "
        f"next_cursor, with the same ids (at least {limits.FRIENDS_AT_WORST} per page; all of them on a board "
        "whose players share buckets). It never grows with the board's size or history.",
    ),
    Route(
        "GET",
        "/players/{player_id}/boards",
        PLAYER_STATS,
        "player_boards",
        access=PUBLIC,
        response=(200, "PlayerBoards"),
        cache=LIVE,
        query={"limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE), "cursor": CURSOR},
        summary="Every board and current period a player is on, with rank and percentile (paged)",
        description="In table order, board by board; 404 for a player on no board (never seen, removed or "
        f"erased), as the player's other reads. At most {limits.PLAYER_BOARDS_BUDGET} DynamoDB requests per call: "
        "Queries of the player's "
        "own partition (100 items each), one GetItem per board not cached, and per entry ranked 3 reads per "
        "shard of its board; a page ends at limit entries or before the next entry would pass the budget (at "
        "least one entry per page), and next_cursor continues. It never grows with the boards that exist.",
    ),
    Route(
        "DELETE",
        "/leaderboards/{board}/players/{player_id}",
        LEADERBOARD_ADMIN,
        "remove_player",
        access=ADMIN,
        response=(200, "PlayerRemoval"),
        summary="Delete a player's entries on every period of a board",
        description="Deleting a player who has no entry on the board deletes nothing (200, deleted_entries 0). "
        "Ranks and totals follow within the rank counters' usual delay.",
    ),
    Route(
        "PUT",
        "/leaderboards/{board}/players/{player_id}/hidden",
        LEADERBOARD_ADMIN,
        "hide_player",
        access=ADMIN,
        response=(200, "Moderation"),
        summary="Hide a player on a board (moderation): gone from every list, rank and total others see",
        description="On every period of the board, now and later, until shown again. A lookup of the player by id "
        "still answers, marked hidden, with the rank they would have. Idempotent. Counters stay exact: a hidden "
        "entry leaves the rank index and the counters are recounted, within their usual delay.",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/hidden",
        LEADERBOARD_ADMIN,
        "list_hidden",
        access=ADMIN,  # moderation decisions are not public
        response=(200, "HiddenPlayers"),
        query={
            "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE),
            "cursor": {
                **CURSOR,
                "description": "next_cursor of the previous page of the same board's hidden players; opaque and "
                "signed: any other value, or one older than the cursor lifetime, is a 400.",
            },
        },
        summary="The players hidden on a board, in player-id order, a page at a time",
        description="Cost: one Query of the board's hidden-player items, whatever the page size. hidden_at is when "
        "the player was last hidden. A cursor stays valid while players are hidden or shown meanwhile: the next page "
        "starts after the last player id listed.",
    ),
    Route(
        "DELETE",
        "/leaderboards/{board}/players/{player_id}/hidden",
        LEADERBOARD_ADMIN,
        "show_player",
        access=ADMIN,
        response=(200, "Moderation"),
        summary="Show a hidden player again, in their place",
        description="Their entries return where their scores and times put them. Idempotent.",
    ),
    Route(
        "DELETE",
        "/players/{player_id}",
        LEADERBOARD_ADMIN,
        "erase_player",
        access=ADMIN,
        response=(200, "Erasure"),
        summary="Erase a player: every board, period, idempotency record, and their place in snapshots",
        description="Entries and counters go at once; idempotency records (the last 24 h) and the snapshot history "
        "are searched in steps: while some remain the answer is 202 with a status_url, and DELETE again goes on. "
        "Snapshots keep the erased player's rank and score under a placeholder id and name. The audit record keeps "
        "the erasure's id and times, not the player.",
    ),
    Route(
        "GET",
        "/erasures/{erasure_id}",
        LEADERBOARD_ADMIN,
        "erasure_status",
        access=PUBLIC,  # like every read: the id is an unguessable token and the record names no player
        response=(200, "Erasure"),
        cache=NO_STORE,  # a status polled while an erasure runs: always fresh
        summary="The status of an erasure",
        description="Its id, status and times only: never the player.",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/periods",
        LEADERBOARD_ADMIN,
        "list_periods",
        access=PUBLIC,
        response=(200, "PeriodList"),
        cache=LIVE,
        summary="The board's periods: the current ones, then the closed ones, newest first",
        description=f"At most {limits.MAX_PERIODS_LISTED} closed periods. A period is open until its closing has "
        f"run: at most {limits.CLOSE_EVERY_MINUTES} minutes after its end (the schedule's interval).",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/periods/{period_id}",
        LEADERBOARD_ADMIN,
        "show_period",
        access=PUBLIC,
        response=(200, "Period"),
        cache=PERIOD,
        summary="One period; once closed, its closing summary (top, total, tier cut-offs, reward winners)",
        description="A closing summary is kept after the period's entries expire.",
    ),
    Route(
        "POST",
        "/leaderboards/{board}/periods/{period_id}/close",
        LEADERBOARD_ADMIN,
        "close_period",
        access=ADMIN,
        response=(200, "Period"),
        summary="Close an ended period now (what the schedule does on its own); idempotent",
        description=f"Stores the closing summary (the top {limits.CLOSING_TOP}, the total, each tier's score cut-off, "
        "the reward winners), appends the final top to the snapshot history and sends the event "
        f"(source {limits.EVENT_SOURCE}, detail-type {limits.PERIOD_CLOSED_DETAIL_TYPE}). A period closed already "
        "returns the same summary; a period still open (or all-time) is a 409.",
    ),
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
