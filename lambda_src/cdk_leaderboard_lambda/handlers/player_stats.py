"""GET /player (default board), GET /leaderboards/{board}/players/{player_id} (around-me), GET
/leaderboards/{board}/players?ids= (friends) and GET /players/{player_id}/boards."""

from ..composition import Handler, Runtime
from ..operations import board_catalog, original_api, players, ranking_reads
from ..web import routes
from ..web import validation as v
from ..web.http import Call, function_handler


def default_board_player(call: Call):
    return 200, original_api.player_stats(call.runtime, call.query["player_id"], call.runtime.clock.now())


def around(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    player = v.player_id(call.params["player_id"])
    q = call.query
    mode = ranking_reads.rank_mode(q["rank_mode"])
    runtime = call.runtime
    return 200, ranking_reads.around(runtime, board, q["period"], player, q["window"], runtime.clock.now(), mode)


def friends(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    q = call.query
    runtime = call.runtime
    return 200, players.friends(runtime, board, q["period"], v.player_ids(q["ids"]), q["cursor"], runtime.clock.now())


def player_boards(call: Call):
    q = call.query
    runtime = call.runtime
    return 200, players.boards_of(
        runtime, v.player_id(call.params["player_id"]), q["limit"], q["cursor"], runtime.clock.now()
    )


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""
    return function_handler(routes.PLAYER_STATS, globals(), runtime)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
