"""Boards: POST/GET /leaderboards, GET/DELETE /leaderboards/{board}; GET /openapi.json."""

from .. import openapi, service
from .. import validation as v
from ..http import audit, dispatch


def create(event, params):
    board = service.create_board(v.json_body(event))
    audit(event, "board.create", board["board_id"])
    return 201, board


def list_boards(event, params):
    return 200, service.list_boards()


def show(event, params):
    return 200, service.board_view(service.get_board(params["board"]))


def delete(event, params):
    done, result = service.delete_board(params["board"])
    audit(event, "board.delete", result)
    return (200 if done else 202), result


def document(event, params):
    return 200, openapi.document()


handler = dispatch(
    {
        ("POST", "/leaderboards"): create,
        ("GET", "/leaderboards"): list_boards,
        ("GET", "/leaderboards/{board}"): show,
        ("DELETE", "/leaderboards/{board}"): delete,
        ("GET", "/openapi.json"): document,
    }
)
