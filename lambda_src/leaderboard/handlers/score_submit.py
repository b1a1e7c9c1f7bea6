"""POST /scores (default board) and POST /leaderboards/{board}/scores[/bulk]."""

from .. import idempotency, service
from .. import validation as v
from ..errors import ApiError, BadRequest
from ..http import dispatch, header
from ..routes import MAX_BULK


def default_board(event, params):
    body = v.json_body(event)
    v.only_fields(body, {"player_id", "score", "player_name"})
    player_id = v.player_id(body.get("player_id"))
    score = v.score(body.get("score"))
    name = v.player_name(body.get("player_name"), default=None)  # None: keep the stored name
    return 200, service.submit_default(player_id, name, score)


def _submission(board, body, with_rank=True):
    if not isinstance(body, dict):
        raise BadRequest("each entry must be a JSON object")
    v.only_fields(body, {"player_id", "score", "player_name", "metadata"})
    player_id = v.player_id(body.get("player_id"))
    score = v.signed_score(body.get("score"))
    name = v.player_name(body.get("player_name"), default=None)  # None: keep the stored name
    metadata = v.metadata(body.get("metadata"))
    return lambda: service.submit(board, player_id, name, score, metadata, with_rank=with_rank)


def board_score(event, params):
    board = service.get_board(params["board"])
    body = v.json_body(event)
    work = _submission(board, body)
    key = v.idempotency_key(header(event, "Idempotency-Key"))
    return 200, idempotency.once(key, f"{board.board_id}/scores", body, work)


def bulk(event, params):
    board = service.get_board(params["board"])
    body = v.json_body(event)
    v.only_fields(body, {"entries"})
    entries = body.get("entries")
    if not isinstance(entries, list) or not 1 <= len(entries) <= MAX_BULK:
        raise BadRequest(f"entries must be a list of 1 to {MAX_BULK} submissions")

    def work():
        results = []
        for index, entry in enumerate(entries):
            try:
                # Ranks would cost a COUNT per entry and period: bulk results leave them out.
                results.append({"index": index, "status": 200, "result": _submission(board, entry, with_rank=False)()})
            except ApiError as err:
                results.append({"index": index, "status": err.status, "error": err.message})
        ok = sum(r["status"] == 200 for r in results)
        return {"board_id": board.board_id, "accepted": ok, "rejected": len(results) - ok, "results": results}

    key = v.idempotency_key(header(event, "Idempotency-Key"))
    return 200, idempotency.once(key, f"{board.board_id}/bulk", body, work)


handler = dispatch(
    {
        ("POST", "/scores"): default_board,
        ("POST", "/leaderboards/{board}/scores"): board_score,
        ("POST", "/leaderboards/{board}/scores/bulk"): bulk,
    }
)
