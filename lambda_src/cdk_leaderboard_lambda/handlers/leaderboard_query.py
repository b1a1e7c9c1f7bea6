"""GET /leaderboard (default board), GET /leaderboards/{board}/top and /range, a period's log (.../log), also
of a deleted or earlier generation of the board (?generation=)."""

from ..composition import Handler, Runtime
from ..operations import board_catalog, generations, log_pages, original_api, ranking_reads
from ..web import routes
from ..web.http import Call, function_handler


def default_board_top(call: Call):
    mode = ranking_reads.rank_mode(call.query["rank_mode"])
    runtime = call.runtime
    return 200, original_api.leaderboard(runtime, call.query["period"], call.query["limit"], runtime.clock.now(), mode)


def top(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    q = call.query
    mode = ranking_reads.rank_mode(q["rank_mode"])
    runtime = call.runtime
    return 200, ranking_reads.top(runtime, board, q["period"], q["limit"], q["cursor"], runtime.clock.now(), mode)


def score_range(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    q = call.query
    mode = ranking_reads.rank_mode(q["rank_mode"])
    runtime = call.runtime
    return 200, ranking_reads.score_range(
        runtime, board, q["period"], q["min_score"], q["max_score"], q["limit"], q["cursor"], runtime.clock.now(), mode
    )


def period_log(call: Call):
    runtime = call.runtime
    board = generations.board(runtime, call.params["board"], call.query["generation"])
    return 200, log_pages.page(runtime, board, call.params["period_id"], call.query["limit"], call.query["cursor"])


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""
    return function_handler(routes.LEADERBOARD_QUERY, globals(), runtime)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
