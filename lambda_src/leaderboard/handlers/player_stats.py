"""GET /player (default board) and GET /leaderboards/{board}/players/{player_id} (around-me)."""

from .. import service
from .. import validation as v
from ..http import dispatch


def default_board(event, params):
    return 200, service.player_stats(v.player_id(v.query(event).get("player_id")))


def around(event, params):
    board = service.get_board(params["board"])
    q = v.query(event)
    window = v.bounded_int(q.get("window"), "window", 0, 50, default=5)
    return 200, service.around(board, q.get("period"), v.player_id(params["player_id"]), window)


handler = dispatch(
    {
        ("GET", "/player"): default_board,
        ("GET", "/leaderboards/{board}/players/{player_id}"): around,
    }
)
