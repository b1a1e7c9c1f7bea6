"""The API's limits and enumerations: the one home of every number and name that the domain, the route table's
JSON Schemas, the handlers' validation, the OpenAPI document and the dashboard (which reads the document) share."""

from __future__ import annotations

MAX_SCORE = 2**53 - 1  # the largest integer a JSON number carries exactly
SCORE_DIGITS = len(str(MAX_SCORE))  # 16: rank keys are this wide; no integer bound is longer

# Ids and names. A player id is letters, digits and _ . : @ -, not only dots ("." and ".." are path segments that
# HTTP clients resolve away, so such a player could never be looked up). Checked with fullmatch.
MAX_ID_LENGTH = 64
PLAYER_ID_PATTERN = r"^[A-Za-z0-9_.:@-]*[A-Za-z0-9_:@-][A-Za-z0-9_.:@-]*$"
MAX_BOARD_ID_LENGTH = 48
BOARD_ID_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,47}$"
GENERATION_PATTERN = r"^(?:0|[a-z2-7]{8})$"  # a board generation (item_keys.py): 0 for boards from before generations
MAX_NAME_LENGTH = 64  # player and board names, shown as given (trimmed)

# Text. Every string of a body is Unicode scalar values: a lone surrogate ("\ud800" in JSON) parses in Python but
# makes strict readers (orjson, jq, serde) refuse every page that would show it.
UNREADABLE_PATTERN = r"[\ud800-\udfff]"
# Names (player, board, reward, tier) are shown to other people: no control characters (C0, DEL, C1, the line and
# paragraph separators), no bidirectional formatting (Unicode's Bidi_Control set, which reorders the text around
# the name), and at least one visible character. The classes are written with \u escapes that Python, ECMAScript
# and Java regular expressions all read, so the same pattern serves the handler, OpenAPI and API Gateway's models.
NAME_CONTROL_CHARS = r"\u0000-\u001f\u007f-\u009f\u2028\u2029"
NAME_BIDI_CHARS = r"\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Invisible characters a name may hold but not consist of: spaces, zero-width characters and joiners (emoji
# sequences need U+200D), fillers (U+115F, U+1160, U+3164, U+FFA0, U+2800), variation selectors, the BOM, and the
# rest of Unicode's Default_Ignorable_Code_Point in the BMP (minus the controls above, refused outright).
NAME_INVISIBLE_CHARS = (
    r"\u0020\u00a0\u00ad\u034f\u115f\u1160\u1680\u17b4\u17b5\u180b-\u180f\u2000-\u200d\u202f\u205f"
    r"\u2060-\u2065\u206a-\u206f\u2800\u3000\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
)
# Beyond the BMP (the handler only: ECMAScript reads these as surrogate pairs): more of Default_Ignorable_Code_Point
# (shorthand format controls, musical symbol formatting, tags and variation selectors supplement).
NAME_INVISIBLE_ASTRAL_CHARS = r"\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
# Linear-time (the allowed invisibles and the first visible character cannot overlap, so nothing backtracks).
NAME_PATTERN = (
    rf"^[{NAME_INVISIBLE_CHARS}]*[^{NAME_CONTROL_CHARS}{NAME_BIDI_CHARS}{NAME_INVISIBLE_CHARS}]"
    rf"[^{NAME_CONTROL_CHARS}{NAME_BIDI_CHARS}]*$"
)
# Numbers in metadata: integers that a double holds exactly (JavaScript's Number.MAX_SAFE_INTEGER), other numbers
# within a double's range (1e400 is refused for every body).
MAX_SAFE_INTEGER = 2**53 - 1

# Boards.
DESC, ASC = "desc", "asc"  # higher is better / lower is better
ORDERS = (DESC, ASC)
BEST, LATEST, INCREMENT = "best", "latest", "increment"
OPERATORS = (BEST, LATEST, INCREMENT)
MAX_SHARDS = 16  # rank index partitions per board period
# Boards POST /leaderboards may store in one deployment (the stack's max_boards prop): every board is a row of
# GET /leaderboards and of the dashboard's picker, and a player's every-board view walks theirs.
DEFAULT_MAX_BOARDS = 200
MAX_MAX_BOARDS = 10_000
MAX_BOARDS_LISTED = 100  # boards in one page of GET /leaderboards

# A tournament's start and end: ISO 8601 in UTC (Z), to the second or finer, in the years period ids name
# (periods.FIRST_YEAR-LAST_YEAR: 2000-2999), so its end plus the retention is a time Python can hold. Dates that
# the pattern admits but the calendar does not (02-30, 02-29 of a common year) are refused by the parser.
FIRST_YEAR, LAST_YEAR = 2000, 2999
TIMESTAMP_PATTERN = (
    r"^2[0-9]{3}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,6})?Z$"
)

# Closing a period: its summary (kept after the entries expire), its rewards and tiers, the event it sends.
CLOSING_TOP = 100  # entries a closing summary (and its snapshot) keeps
MAX_REWARDS = 10  # rewards a board declares; each names a rank range within the closing top
MAX_TIERS = 10  # tiers a board declares, each from a minimum percentile (0-100)
MAX_PERIODS_LISTED = 50  # closed periods GET /leaderboards/{board}/periods lists (newest first)
CLOSE_EVERY_MINUTES = 5  # the scheduled closing runs this often: a period closes at most this long after its end
EVENT_SOURCE = "leaderboard"
PERIOD_CLOSED_DETAIL_TYPE = "Leaderboard Period Closed"
SCORE_PENDING_DETAIL_TYPE = "Leaderboard Score Pending"  # a quarantined submission waits for review
MAX_EVIDENCE_BYTES = 2048  # a submission's evidence (for a quarantine's review), as compact JSON
PENDING_ID_PATTERN = r"^[0-9]{13}-[A-Za-z0-9_-]{8}$"  # submission time (ms), then random: the queue's order
# A period's status: upcoming (not started), open, ended (awaiting its closing), closed (its summary stored).
UPCOMING, OPEN, ENDED, CLOSED = "upcoming", "open", "ended", "closed"
PERIOD_STATUSES = (UPCOMING, OPEN, ENDED, CLOSED)

# How ties are shown. unique: every entry its own rank, ties broken by who reached the score first (1, 2, 3, 4);
# competition: equal scores share the best of their ranks (1, 2, 2, 4); dense: (1, 2, 2, 3), which needs the
# number of DISTINCT scores ahead: the rank counters count entries, not distinct scores (and distinct counts of
# shards cannot be added up), so dense is refused rather than computed at a cost that grows with the board.
UNIQUE, COMPETITION, DENSE = "unique", "competition", "dense"
RANK_MODES = (UNIQUE, COMPETITION)
UNSUPPORTED_RANK_MODES = (DENSE,)

# Requests.
MAX_BODY_BYTES = 64 * 1024
MAX_METADATA_BYTES = 1024  # an entry's metadata, as compact JSON
# metadata and evidence are served back as given: bounded in structure as well as size, so that readers with the
# lowest common nesting limits (.NET's 64, serde_json's 128) read every answer that holds them (the object is level
# 1, each object or array in it one more; keys counted over every object in it).
MAX_JSON_DEPTH = 16
MAX_METADATA_KEYS = 64
MAX_EVIDENCE_KEYS = 128
MAX_BULK = 500  # submissions in one bulk request
MAX_PAGE = 100  # entries in one page of a ranking (and in a snapshot)
DEFAULT_TOP = 10  # GET /leaderboard
DEFAULT_PAGE = 25  # GET /leaderboards/{board}/top and /range
MAX_LOG_PAGE = 100  # records in one page of a period's log (GET .../periods/{period_id}/log; also its default)
MAX_WINDOW = 50  # players each side of a player
DEFAULT_WINDOW = 5
DEFAULT_SNAPSHOT = 10  # entries a snapshot freezes, and snapshots a listing shows
MAX_SNAPSHOTS_LISTED = 50
MAX_SIMULATED_PLAYERS = 1000  # one POST /simulate
DEFAULT_SIMULATED_PLAYERS = 25
MAX_IDEMPOTENCY_KEY_LENGTH = 128
MAX_CURSOR_CHARS = 512  # a rank key is at most ~100 characters: an issued cursor is well under this
CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,400}\.[A-Za-z0-9_-]{22}$"  # what cursors.issue() produces

# Players.
MAX_FRIEND_IDS = 100  # player ids in one GET /leaderboards/{board}/players (one BatchGetItem)
MAX_FRIEND_IDS_CHARS = MAX_FRIEND_IDS * (MAX_ID_LENGTH + 1)  # the ids query parameter, comma separated
# PLAYER_ID_PATTERN's language, written so that a regex engine matches it in linear time (dots, then one other)
_ONE_ID = r"\.*[A-Za-z0-9_:@-][A-Za-z0-9_.:@-]*"
# 1 to MAX_FRIEND_IDS player ids, comma separated (an id longer than MAX_ID_LENGTH is on no board: left out)
PLAYER_IDS_PATTERN = rf"^{_ONE_ID}(?:,{_ONE_ID}){{0,{MAX_FRIEND_IDS - 1}}}$"
# Request budgets of the players' views: DynamoDB requests one call may make (docs/API.md; players.py spends them).
# Friends: the board's config, 1 BatchGetItem, then per shard 1 read of its counter bands and, per player ranked,
# at most 2 reads (their band's buckets, their bucket's keys); sized so that a call stays well under 2 s locally.
FRIENDS_AT_WORST = 5  # players a page ranks at least, on any board (each in its own band and bucket everywhere)
FRIENDS_BUDGET = 2 + MAX_SHARDS * (1 + 2 * FRIENDS_AT_WORST)  # 178
# Every board of a player: Queries of their partition, board configs, 3 reads per shard of each entry ranked.
PLAYER_BOARDS_BUDGET = 200
MAX_SUBMISSIONS_PER_MINUTE = 10_000  # the highest per-player limit a board may declare
# Who may submit to a board: game servers only (the game key), or also players' own devices with a run token.
SERVER_SUBMISSIONS, CLIENT_SUBMISSIONS = "server", "client"
SUBMISSION_MODES = (SERVER_SUBMISSIONS, CLIENT_SUBMISSIONS)
# Player and run tokens (tokens.py): lifetimes in seconds.
MIN_PLAYER_TOKEN_SECONDS = 60
DEFAULT_PLAYER_TOKEN_SECONDS = 3600
MAX_PLAYER_TOKEN_SECONDS = 24 * 3600
RUN_SECONDS = 3600  # a run's token (and the run) expire this long after the run starts
RUN_ID_PATTERN = r"^[A-Za-z0-9_-]{22}$"  # what runs.start() gives a run (secrets.token_urlsafe(16))
# Open runs (unused, not over) a player may hold on a board at once: starting one more ends the oldest (runs.py).
DEFAULT_OPEN_RUNS = 1
MAX_OPEN_RUNS = 10
# The per-player limit of a board with relative rules (max_improvement, max_over_leader) that declares none: each
# accepted score is a step of the rule's factor, so steps per minute bound the climb (docs/FAKE_SCORES.md).
RELATIVE_RULES_PER_MINUTE = 6
MAX_TOKEN_BOARDS = 25  # boards one player token may be limited to
MAX_TOKEN_CHARS = 2048  # an issued token is well under this
TOKEN_PATTERN = r"^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$"  # a JWS in compact form
ERASURE_ID_PATTERN = r"^[A-Za-z0-9_-]{16}$"  # secrets.token_urlsafe(12)

# Live updates (AppSync Events).
LIVE_TOP = 25  # entries a published top holds
LIVE_MIN_INTERVAL_SECONDS = 1.0  # at most one publish per board period this often
# Live subscribe tokens (live_access.py): GET /leaderboards/{board}/scores hands one out; it lets its holder
# make LIVE_TOKEN_OPERATIONS connects and subscribes (each counted by the AppSync authorizer) within
# LIVE_TOKEN_SECONDS. The kill switch (`make live-off`) is read at most every LIVE_SWITCH_CACHE_SECONDS.
LIVE_TOKEN_SECONDS = 300
LIVE_TOKEN_OPERATIONS = 4  # one connect and up to three subscribes (the dashboard makes one of each)
LIVE_SWITCH_CACHE_SECONDS = 10.0
# Tokens handed out per board per minute, whoever asks (429 past it: the client polls, and asks again later): the
# ceiling on new live subscriptions a board takes, however many addresses an abuser has.
LIVE_TOKENS_PER_BOARD_MINUTE = 600
# Tokens one client (live_access.client_of: its player, the edge's viewer address, or its connecting address) gets of
# a board per LIVE_TOKEN_SECONDS window, counted before the board's ceiling: so one client holds a few unspent tokens
# at most (twice this across a window's boundary) and cannot take the ceiling from everyone else.
LIVE_TOKENS_PER_CLIENT = 4
# The Event API's authorizer: a refusal is cached this long (AuthorizerResultTtlInSeconds; an admission is never
# cached, ttlOverride 0). A token's life: a string refused once is never worth admitting within it (live_access.py).
LIVE_AUTHORIZER_CACHE_SECONDS = LIVE_TOKEN_SECONDS
# The shape of a live token (an HS256 JWS: a JSON header and payload, base64url, each starting `eyJ`, and a 32-byte
# signature, 43 characters): the Event API's IdentityValidationExpression, so AppSync refuses any other string
# before it calls the authorizer function.
LIVE_TOKEN_PATTERN = r"^eyJ[A-Za-z0-9_-]{1,400}\.eyJ[A-Za-z0-9_-]{1,1200}\.[A-Za-z0-9_-]{43}$"

# Idempotent requests (Idempotency-Key).
IDEMPOTENCY_KEEP_SECONDS = 24 * 3600  # how long a retry with the same Idempotency-Key gets the first result

# The live updates' subscribe-only AppSync API key (live_key.py). AppSync takes an expiry 1 to 365 days ahead and
# deletes a key 60 days after it lapsed: no date is written anywhere; a scheduled run of the period-closer function
# (its own EventBridge rule and payload) moves the expiry to LIVE_KEY_VALID_DAYS ahead every LIVE_KEY_RENEW_HOURS.
# A renewal that keeps failing leaves LIVE_KEY_VALID_DAYS minus a few hours before clients are refused; the
# LiveKeyNotRenewed alarm fires after LIVE_KEY_ALARM_HOURS without a successful renewal.
LIVE_KEY_VALID_DAYS = 90
LIVE_KEY_RENEW_HOURS = 6
LIVE_KEY_ALARM_HOURS = 24
LIVE_KEY_MIN_DAYS, LIVE_KEY_MAX_DAYS = 1, 365  # AppSync's window (ApiKeyValidityOutOfBoundsException outside it)
RENEW_LIVE_KEY_TASK = "renew-live-key"  # the schedule's payload {"task": ...} that asks the closer for a renewal
