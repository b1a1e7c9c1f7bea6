"""Key encoding for the rank index: one module, so every reader and writer agrees.

rank_key = <inverted score, 16 digits>#<reached-at ms, 13 digits>#<player_id>

Fixed-width decimal strings compare like the numbers they encode, so an ASCENDING
query of the index returns the best score first; among equal scores the player who
reached it earlier comes first, then player_id keeps the key unique.
"""

from __future__ import annotations

from routes import MAX_SCORE

_SCORE_WIDTH = 16  # len(str(MAX_SCORE))
_TIME_WIDTH = 13  # epoch milliseconds until the year 2286


def rank_key(score: int, reached_at_ms: int, player_id: str) -> str:
    return f"{MAX_SCORE - score:0{_SCORE_WIDTH}d}#{reached_at_ms:0{_TIME_WIDTH}d}#{player_id}"


def score_from_rank_key(key: str) -> int:
    return MAX_SCORE - int(key.split("#", 1)[0])
