"""The shapes of ids, names, periods, cursors and query parameters (JSON Schema draft 4 fragments, with the limits
of limits.py), which the bodies, the routes' query parameters and the OpenAPI document share."""

from __future__ import annotations

from ...domain import periods
from ...shared import limits
from ...shared.frozen import Frozen, freeze
from ...shared.limits import MAX_SCORE

PLAYER_ID = freeze(
    {
        "type": "string",
        "minLength": 1,
        "maxLength": limits.MAX_ID_LENGTH,
        "pattern": limits.PLAYER_ID_PATTERN,
    }
)
BOARD_ID = freeze(
    {
        "type": "string",
        "minLength": 1,
        "maxLength": limits.MAX_BOARD_ID_LENGTH,
        "pattern": limits.BOARD_ID_PATTERN,
    }
)
# A name is shown as given, trimmed: no control or bidirectional formatting characters, and something visible
# besides whitespace, zero-width and filler characters (limits.NAME_PATTERN; the handler also checks surrogates).
PLAYER_NAME = freeze(
    {
        "type": "string",
        "minLength": 1,
        "maxLength": limits.MAX_NAME_LENGTH,
        "pattern": limits.NAME_PATTERN,
        "description": "shown as given (trimmed): Unicode scalar values only (no lone surrogates), no control "
        "characters (U+0000-U+001F, U+007F-U+009F, U+2028, U+2029), no bidirectional formatting (U+061C, U+200E, "
        "U+200F, U+202A-U+202E, U+2066-U+2069), and at least one visible character once whitespace, zero-width and "
        "filler characters (U+200B-U+200D, U+2060, U+FEFF, U+115F, U+1160, U+3164, U+FFA0, U+2800, ...) are left out",
    }
)
ERASURE_ID = freeze({"type": "string", "pattern": limits.ERASURE_ID_PATTERN})
DEFAULT_BOARD_KINDS = (periods.ALL_TIME, periods.DAILY, periods.WEEKLY)
SCORE = freeze({"type": "integer", "minimum": 0, "maximum": MAX_SCORE})


def _limit(high: int, default: int, low: int = 1) -> Frozen:
    return freeze({"type": "integer", "minimum": low, "maximum": high, "default": default})


def _period(kinds: tuple[str, ...], description: str) -> Frozen:
    return freeze({"type": "string", "pattern": periods.pattern(kinds), "description": description})


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
PENDING_ID = freeze({"type": "string", "pattern": limits.PENDING_ID_PATTERN})
RUN_ID = freeze({"type": "string", "pattern": limits.RUN_ID_PATTERN, "description": "run_id of the run start's answer"})
GENERATION = freeze(
    {
        "type": "string",
        "pattern": limits.GENERATION_PATTERN,
        "description": "a board generation (each creation of a board id is one): GET /leaderboards/{board} names the "
        "current one, the 404 of a deleted board its archived ones (0: a board created before generations, or built "
        "in or declared); default: the current one",
    }
)
PATH_PARAMS = freeze(
    {
        "board": BOARD_ID,
        "player_id": PLAYER_ID,
        "erasure_id": ERASURE_ID,
        "period_id": BOARD_PERIOD,
        "pending_id": PENDING_ID,
        "run_id": RUN_ID,
    }
)


def cursor_of(pages: str) -> Frozen:
    """A page cursor parameter: the shape cursors.read checks first (400), then its tag and age (422)."""
    return freeze(
        {
            "type": "string",
            "maxLength": limits.MAX_CURSOR_CHARS,
            "pattern": limits.CURSOR_PATTERN,
            "description": f"next_cursor of the previous page of {pages}; opaque and signed: <payload>.<tag>, "
            "base64url without padding, the tag 16 bytes (22 characters). A value not of this shape is a 400; one "
            "of this shape that this API did not issue for the same pages, or one older than the cursor lifetime, "
            "is a 422 (start again from the first page).",
        }
    )


CURSOR = cursor_of("the same board, period (and score range)")
IDEMPOTENCY_KEY = freeze(
    {
        "type": "string",
        "pattern": rf"^[!-~]{{1,{limits.MAX_IDEMPOTENCY_KEY_LENGTH}}}$",
        "description": f"1-{limits.MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters",
    }
)

FRIEND_IDS = freeze(
    {
        "type": "string",
        "minLength": 1,
        "maxLength": limits.MAX_FRIEND_IDS_CHARS,
        "pattern": limits.PLAYER_IDS_PATTERN,
        "x-max-ids": limits.MAX_FRIEND_IDS,  # the count the pattern allows, as a number clients can read
        "description": f"1-{limits.MAX_FRIEND_IDS} comma-separated player ids (each as player_id); more is a 400. "
        "Ids not on the board (including any longer than a player id can be) are left out of the answer.",
    }
)
RANK_MODE = freeze(
    {
        "type": "string",
        "enum": list(limits.RANK_MODES),
        "default": limits.UNIQUE,
        "description": "how ties are ranked: unique (default; equal scores ranked by who reached the score first: "
        "1, 2, 3, 4) or competition (equal scores share a rank: 1, 2, 2, 4), at the same bounded cost. dense "
        "(1, 2, 2, 3) is not offered and answers 400: it needs the number of distinct scores ahead, which the rank "
        "counters do not keep (they count entries per key range, and the distinct scores of shards cannot be added "
        "up), so it could only be computed at a cost that grows with the board.",
    }
)
PAGE_QUERY = freeze(
    {
        "period": BOARD_PERIOD,
        "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE),
        "cursor": CURSOR,
        "rank_mode": RANK_MODE,
    }
)
