"""GET /leaderboard (default board), GET /leaderboards/{board}/top and /range."""

from .. import service
from .. import validation as v
from ..http import dispatch
from ..routes import MAX_SCORE


def default_board(event, params):
    q = v.query(event)
    limit = v.bounded_int(q.get("limit"), "limit", 1, 100, default=10)
    return 200, service.leaderboard(q.get("period"), limit)


def top(event, params):
    board = service.get_board(params["board"])
    q = v.query(event)
    limit = v.bounded_int(q.get("limit"), "limit", 1, 100, default=25)
    return 200, service.top(board, q.get("period"), limit, q.get("cursor"))


def score_range(event, params):
    board = service.get_board(params["board"])
    q = v.query(event)
    low = v.bounded_int(q.get("min_score"), "min_score", 0, MAX_SCORE, default=None, required=True)
    high = v.bounded_int(q.get("max_score"), "max_score", 0, MAX_SCORE, default=None, required=True)
    limit = v.bounded_int(q.get("limit"), "limit", 1, 100, default=25)
    return 200, service.score_range(board, q.get("period"), low, high, limit, q.get("cursor"))


handler = dispatch(
    {
        ("GET", "/leaderboard"): default_board,
        ("GET", "/leaderboards/{board}/top"): top,
        ("GET", "/leaderboards/{board}/range"): score_range,
    }
)
