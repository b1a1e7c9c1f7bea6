"""The reusable Leaderboard construct (L3) and its props."""

from .construct import Leaderboard
from .props import LeaderboardProps

__all__ = ["Leaderboard", "LeaderboardProps"]
