"""cdk-leaderboard: the Leaderboard construct (L3), its props and its board declarations.

from cdk_leaderboard import Board, Leaderboard

Leaderboard(self, "Leaderboard", boards=[Board(board_id="speedrun", order="asc")])
"""

from .construct import Leaderboard
from .props import Board, LeaderboardProps, Live, Monitoring, Throttles, Waf

__version__ = "0.1.0"
__all__ = ["Board", "Leaderboard", "LeaderboardProps", "Live", "Monitoring", "Throttles", "Waf", "__version__"]
