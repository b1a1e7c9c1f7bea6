"""Boards: POST/GET /leaderboards, GET/DELETE /leaderboards/{board}, a board's periods and their closing;
GET /openapi.json."""

from .. import board_registry, closing, openapi, routes
from ..http import Call, audit, function_handler


def create(call: Call):
    board = board_registry.create_board(call.body())
    audit(call.event, "board.create", board["board_id"])
    return 201, board


def list_boards(call: Call):
    return 200, board_registry.list_boards()


def show(call: Call):
    return 200, board_registry.board_view(board_registry.get_board(call.params["board"]))


def delete(call: Call):
    done, result = board_registry.delete_board(call.params["board"])
    audit(call.event, "board.delete", result)
    return (200 if done else 202), result


def list_periods(call: Call):
    return 200, closing.listing(board_registry.get_board(call.params["board"]))


def show_period(call: Call):
    return 200, closing.detail(board_registry.get_board(call.params["board"]), call.params["period_id"])


def close_period(call: Call):
    summary = closing.close(board_registry.get_board(call.params["board"]), call.params["period_id"])
    audit(call.event, "period.close", f"{summary['board_id']}/{summary['period_id']}")
    return 200, summary


def document(call: Call):
    return 200, openapi.document()


handler = function_handler(routes.LEADERBOARD_ADMIN, globals())
