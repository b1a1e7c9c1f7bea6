"""Key encoding for the rank index: one module, so every reader and writer agrees.

rank_key = <ordered score, 16 digits>#<reached-at ms, 13 digits>#<player_id>

The ordered score is MAX_SCORE − score on a higher-is-better (desc) board and the
score itself on a lower-is-better (asc) board. Fixed-width decimal strings compare
like the numbers they encode, so an ASCENDING query of the index returns the best
entry first; among equal scores the player who reached it earlier comes first, and
player_id keeps the key unique.
"""

from __future__ import annotations

from .routes import MAX_SCORE

_SCORE_WIDTH = 16  # len(str(MAX_SCORE))
_TIME_WIDTH = 13  # epoch milliseconds until the year 2286


def _ordered(score: int, descending: bool) -> int:
    return MAX_SCORE - score if descending else score


def rank_key(score: int, reached_at_ms: int, player_id: str, descending: bool = True) -> str:
    return f"{_ordered(score, descending):0{_SCORE_WIDTH}d}#{reached_at_ms:0{_TIME_WIDTH}d}#{player_id}"


def score_from_rank_key(key: str, descending: bool = True) -> int:
    return _ordered(int(key.split("#", 1)[0]), descending)


def score_range(low: int, high: int, descending: bool = True) -> tuple[str, str]:
    """The rank_key interval (for BETWEEN) holding exactly the scores in [low, high]."""
    a, b = sorted((_ordered(low, descending), _ordered(high, descending)))
    # "$" sorts right after "#": every key of ordered score b is below f"{b}$".
    return f"{a:0{_SCORE_WIDTH}d}#", f"{b:0{_SCORE_WIDTH}d}$"


def before(key: str) -> str:
    """The greatest bound that is below `key` and above every string that sorts before it.

    DynamoDB's BETWEEN is inclusive; `BETWEEN lo AND before(key)` is the half-open [lo, key).
    """
    return key[:-1] + chr(ord(key[-1]) - 1) + "\U0010ffff"
