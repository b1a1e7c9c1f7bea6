"""GET /leaderboard?period=all-time|daily|weekly&limit=N"""

from leaderboard import service, validation as v
from leaderboard.http import api_handler


@api_handler
def handler(event):
    q = v.query(event)
    limit = v.bounded_int(q.get("limit"), "limit", 1, 100, default=10)
    return 200, service.leaderboard(q.get("period"), limit)
