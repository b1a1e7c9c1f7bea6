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
MAX_NAME_LENGTH = 64  # player and board names, shown as given (trimmed)

# Boards.
DESC, ASC = "desc", "asc"  # higher is better / lower is better
ORDERS = (DESC, ASC)
BEST, LATEST, INCREMENT = "best", "latest", "increment"
OPERATORS = (BEST, LATEST, INCREMENT)
MAX_SHARDS = 16  # rank index partitions per board period

# Requests.
MAX_BODY_BYTES = 64 * 1024
MAX_METADATA_BYTES = 1024  # an entry's metadata, as compact JSON
MAX_BULK = 500  # submissions in one bulk request
MAX_PAGE = 100  # entries in one page of a ranking (and in a snapshot)
DEFAULT_TOP = 10  # GET /leaderboard
DEFAULT_PAGE = 25  # GET /leaderboards/{board}/top and /range
MAX_WINDOW = 50  # players each side of a player
DEFAULT_WINDOW = 5
DEFAULT_SNAPSHOT = 10  # entries a snapshot freezes, and snapshots a listing shows
MAX_SNAPSHOTS_LISTED = 50
MAX_SIMULATED_PLAYERS = 1000  # one POST /simulate
DEFAULT_SIMULATED_PLAYERS = 25
MAX_IDEMPOTENCY_KEY_LENGTH = 128
MAX_CURSOR_CHARS = 512  # a rank key is at most ~100 characters: an issued cursor is well under this
CURSOR_PATTERN = r"^[A-Za-z0-9_-]{1,400}\.[A-Za-z0-9_-]{22}$"  # what cursors.issue() produces
