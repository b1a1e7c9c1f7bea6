"""GET /player?player_id=X"""

from leaderboard import service, validation as v
from leaderboard.http import api_handler


@api_handler
def handler(event):
    return 200, service.player_stats(v.player_id(v.query(event).get("player_id")))
