"""Boards: POST/GET /leaderboards, GET/DELETE /leaderboards/{board}, a board's periods and their closing;
DELETE /leaderboards/{board}/players/{player_id} and hiding a player there (.../hidden);
DELETE /players/{player_id} and GET /erasures/{erasure_id}; GET /openapi.json and GET /.well-known/jwks.json."""

from ..composition import Handler, Runtime
from ..operations import board_catalog, closing, generations, live, moderation, player_removal, quarantine, receipts
from ..web import openapi, routes
from ..web import validation as v
from ..web.http import Call, audit, function_handler


def create(call: Call):
    board = board_catalog.create_board(call.runtime, call.body(), call.runtime.clock.now())
    audit(call.event, "board.create", board["board_id"], call.runtime.clock.now())
    return 201, board


def list_boards(call: Call):
    return 200, board_catalog.list_boards(call.runtime, call.query["limit"], call.query["cursor"])


def show(call: Call):
    config = board_catalog.shown(call.runtime, call.params["board"])
    view = board_catalog.board_view(config, call.runtime.clock.now())
    following = live.discovery(call.runtime, config)
    if following is not None:
        view["live"] = following
    return 200, view


def update(call: Call):
    body = call.body()
    v.only_fields(body, routes.BOARD_UPDATE_BODY.fields)
    board = board_catalog.update_board(call.runtime, call.params["board"], body)
    audit(
        call.event, "board.update", {"board_id": board["board_id"], "changed": sorted(body)}, call.runtime.clock.now()
    )
    return 200, board


def list_pending(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    q = call.query
    page = quarantine.listing(call.runtime, board, q["limit"], q["cursor"], q["player_id"])
    return 200, {**page, **board_catalog.rules_view(board)}  # the thresholds at work: the admin's only


def approve_pending(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    result = quarantine.approve(call.runtime, board, v.pending_id(call.params["pending_id"]))
    audit(call.event, "pending.approve", f"{board.board_id}/{result['pending_id']}", call.runtime.clock.now())
    return 200, result


def reject_pending(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    result = quarantine.reject(call.runtime.pending, board, v.pending_id(call.params["pending_id"]))
    audit(call.event, "pending.reject", f"{board.board_id}/{result['pending_id']}", call.runtime.clock.now())
    return 200, result


def delete(call: Call):
    done, result = board_catalog.delete_board(call.runtime, call.params["board"])
    audit(call.event, "board.delete", result, call.runtime.clock.now())
    return (200 if done else 202), result


def remove_player(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    result = player_removal.remove_from_board(
        call.runtime.entries, board, v.player_id(call.params["player_id"]), call.runtime.clock.now()
    )
    audit(call.event, "player.remove", result, call.runtime.clock.now())
    return 200, result


def hide_player(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    result = moderation.hide(call.runtime, board, v.player_id(call.params["player_id"]))
    audit(call.event, "player.hide", result, call.runtime.clock.now())
    return 200, result


def list_hidden(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    return 200, moderation.listing(call.runtime, board, call.query["limit"], call.query["cursor"])


def show_player(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    result = moderation.show(call.runtime, board, v.player_id(call.params["player_id"]))
    audit(call.event, "player.show", result, call.runtime.clock.now())
    return 200, result


def erase_player(call: Call):
    done, status = player_removal.erase(call.runtime, v.player_id(call.params["player_id"]), call.runtime.clock.now())
    audit(
        call.event,
        "player.erase",
        {"erasure_id": status["erasure_id"], "status": status["status"]},
        call.runtime.clock.now(),
    )  # not who
    return (200 if done else 202), status


def erasure_status(call: Call):
    return 200, player_removal.status_view(call.runtime.erasures, v.erasure_id(call.params["erasure_id"]))


def list_periods(call: Call):
    return 200, generations.listing(call.runtime, call.params["board"], call.query["generation"])


def show_period(call: Call):
    return 200, generations.period(
        call.runtime, call.params["board"], call.query["generation"], call.params["period_id"]
    )


def close_period(call: Call):
    summary = closing.close(
        call.runtime, board_catalog.get_board(call.runtime, call.params["board"]), call.params["period_id"]
    )
    audit(call.event, "period.close", f"{summary['board_id']}/{summary['period_id']}", call.runtime.clock.now())
    return 200, summary


def document(call: Call):
    return 200, openapi.document()


def jwks(call: Call):  # here, where the key is read anyway (summaries): no public read function may read it
    return 200, receipts.jwks(call.runtime)


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""
    return function_handler(routes.LEADERBOARD_ADMIN, globals(), runtime)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
