"""POST /scores (default board) and POST /leaderboards/{board}/scores[/bulk]."""

from .. import idempotency, keys, scoring, service
from .. import validation as v
from ..errors import BadRequest
from ..http import dispatch, header
from ..routes import MAX_BULK


def default_board(event, params):
    body = v.json_body(event)
    v.only_fields(body, {"player_id", "score", "player_name"})
    player_id = v.player_id(body.get("player_id"))
    score = v.score(body.get("score"))
    name = v.player_name(body.get("player_name"), default=None)  # None: keep the stored name
    return 200, service.submit_default(player_id, name, score)


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


def board_score(event, params):
    board = service.get_board(params["board"])
    body = v.json_body(event)
    key = v.idempotency_key(header(event, "Idempotency-Key"))
    scope = f"{board.board_id}/scores"
    submission = _submission(body, key and keys.operation_id(key, scope))
    return 200, idempotency.once(key, scope, body, lambda: service.submit(board, submission))


def bulk(event, params):
    board = service.get_board(params["board"])
    body = v.json_body(event)
    v.only_fields(body, {"entries"})
    entries = body.get("entries")
    if not isinstance(entries, list) or not 1 <= len(entries) <= MAX_BULK:
        raise BadRequest(f"entries must be a list of 1 to {MAX_BULK} submissions")
    key = v.idempotency_key(header(event, "Idempotency-Key"))
    scope = f"{board.board_id}/bulk"
    submissions = []
    for index, entry in enumerate(entries):
        try:
            submissions.append(_submission(entry, key and keys.operation_id(key, scope, index)))
        except BadRequest as err:
            submissions.append(err)
    return 200, idempotency.once(key, scope, body, lambda: service.submit_bulk(board, submissions))


handler = dispatch(
    {
        ("POST", "/scores"): default_board,
        ("POST", "/leaderboards/{board}/scores"): board_score,
        ("POST", "/leaderboards/{board}/scores/bulk"): bulk,
    }
)
