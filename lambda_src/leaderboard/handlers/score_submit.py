"""POST /scores (default board) and POST /leaderboards/{board}/scores[/bulk]."""

from .. import board_registry, default_board, idempotency, keys, limits, routes, scoring, submissions
from .. import validation as v
from ..errors import BadRequest
from ..http import Call, function_handler


def default_board_submit(call: Call):
    body = call.body()
    v.only_fields(body, {"player_id", "score", "player_name"})
    player_id = v.player_id(body.get("player_id"))
    score = v.score(body.get("score"))
    name = v.player_name(body.get("player_name"), default=None)  # None: keep the stored name
    return 200, default_board.submit(player_id, name, score)


def _submission(body, operation: str | None) -> scoring.Submission:
    if not isinstance(body, dict):
        raise BadRequest("each entry must be a JSON object")
    v.only_fields(body, {"player_id", "score", "player_name", "metadata"})
    return scoring.Submission(
        player_id=v.player_id(body.get("player_id")),
        player_name=v.player_name(body.get("player_name"), default=None),  # None: keep the stored name
        score=v.signed_score(body.get("score")),
        metadata=v.metadata(body.get("metadata")),
        operation=operation,
    )


def board_score(call: Call):
    board = board_registry.get_board(call.params["board"])
    body = call.body()
    key = v.idempotency_key(call.header("Idempotency-Key"))
    scope = f"{board.board_id}/scores"
    submission = _submission(body, key and keys.operation_id(key, scope))
    return 200, idempotency.once(key, scope, body, lambda: submissions.submit(board, submission))


def bulk(call: Call):
    board = board_registry.get_board(call.params["board"])
    body = call.body()
    v.only_fields(body, {"entries"})
    entries = body.get("entries")
    if not isinstance(entries, list) or not 1 <= len(entries) <= limits.MAX_BULK:
        raise BadRequest(f"entries must be a list of 1 to {limits.MAX_BULK} submissions")
    key = v.idempotency_key(call.header("Idempotency-Key"))
    scope = f"{board.board_id}/bulk"
    parsed = []
    for index, entry in enumerate(entries):
        try:
            parsed.append(_submission(entry, key and keys.operation_id(key, scope, index)))
        except BadRequest as err:
            parsed.append(err)
    return 200, idempotency.once(key, scope, body, lambda: submissions.submit_bulk(board, parsed))


handler = function_handler(routes.SCORE_SUBMIT, globals())
