"""GET /player (default board) and GET /leaderboards/{board}/players/{player_id} (around-me)."""

from .. import board_registry, default_board, rankings, routes
from .. import validation as v
from ..http import Call, function_handler


def default_board_player(call: Call):
    return 200, default_board.player_stats(call.query["player_id"])


def around(call: Call):
    board = board_registry.get_board(call.params["board"])
    player = v.player_id(call.params["player_id"])
    return 200, rankings.around(board, call.query["period"], player, call.query["window"])


handler = function_handler(routes.PLAYER_STATS, globals())
