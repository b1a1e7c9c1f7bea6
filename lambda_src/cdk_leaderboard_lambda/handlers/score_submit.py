"""POST /scores (default board), POST /leaderboards/{board}/scores[/bulk] (the game key), player tokens, runs and
POST /leaderboards/{board}/runs/{run_id}/score (a run token); what only the player's token may read: their
receipts and their held scores; live subscribe tokens (live_access.py: this function holds the token key; the Event
API's Lambda authorizer that checks them is a function of its own, live_authorizer.py)."""

from ..composition import Handler, Runtime
from ..domain import score_writes, tokens
from ..domain.board_validation import board_id
from ..operations import (
    board_catalog,
    idempotency,
    live_access,
    original_api,
    quarantine,
    receipts,
    runs,
    submissions,
    token_floors,
)
from ..shared import item_keys, limits
from ..shared.errors import BadRequest, Forbidden, NotFound, Unauthorized
from ..web import routes
from ..web import validation as v
from ..web.http import Call, function_handler


def default_board_submit(call: Call):
    body = call.body()
    v.only_fields(body, routes.SCORE_BODY.fields)
    player_id = v.player_id(body.get("player_id"))
    score = v.score(body.get("score"))
    name = v.player_name(body.get("player_name"), default=None)  # None: keep the stored name
    return 200, original_api.submit(call.runtime, player_id, name, score, call.runtime.clock.now())


def _submission(body, operation: str | None) -> score_writes.Submission:
    if not isinstance(body, dict):
        raise BadRequest("each entry must be a JSON object")
    v.only_fields(body, routes.BOARD_SCORE_BODY.fields)  # each entry of a bulk, too
    return score_writes.Submission(
        player_id=v.player_id(body.get("player_id")),
        player_name=v.player_name(body.get("player_name"), default=None),  # None: keep the stored name
        score=v.signed_score(body.get("score")),
        metadata=v.metadata(body.get("metadata")),
        operation=operation,
    )


def _one_credential(call: Call, other: str, use: str) -> None:
    """The game key and a run token are mutually exclusive: each score route takes one, and a request that carries
    the other as well is refused before any work (which one it meant is not for the API to guess)."""
    if call.header(other) is not None:
        raise BadRequest(f"give the game key (x-api-key) or a run token (Authorization), not both: {use}")


def _scored(call: Call, scope: str, submit) -> tuple[int, dict]:
    """What both score routes do once their caller is known: the body checked, the Idempotency-Key's record (in
    `scope`) answered or written, `submit(submission, evidence)` run once; 202 when a rule held the score back."""
    body = call.body()
    key = v.idempotency_key(call.header("Idempotency-Key"))
    submission = _submission(body, key and item_keys.operation_id(key, scope))
    evidence = v.json_object(body.get("evidence"), "evidence", limits.MAX_EVIDENCE_BYTES, limits.MAX_EVIDENCE_KEYS)
    answer = idempotency.once(
        call.runtime.idempotency, key, scope, body, lambda: submit(submission, evidence), call.lambda_context
    )
    return (202 if answer.get("status") == "pending" else 200), answer  # 202: held back for review


def _verified(call: Call, token: str, audience: str) -> dict:
    """The claims of a bearer token for `audience`, checked with the runtime's token keys and clock, and not issued
    before an erasure of its player answered."""
    rt = call.runtime
    claims = tokens.verify(rt.token_keys, rt.settings.token_issuer, token, audience, now=rt.clock.now().timestamp())
    token_floors.refuse_issued_before(rt, claims)
    return claims


def _player_claims(call: Call, player_id: str, board: str | None = None) -> dict:
    rt = call.runtime
    claims = tokens.player_claims(
        rt.token_keys,
        rt.settings.token_issuer,
        call.header("Authorization"),
        player_id,
        board,
        now=rt.clock.now().timestamp(),
    )
    token_floors.refuse_issued_before(rt, claims)
    return claims


def board_score(call: Call):
    _one_credential(call, "Authorization", "a run's score goes to POST /leaderboards/{board}/runs/{run_id}/score")
    board = board_catalog.get_board(call.runtime, call.params["board"])
    rt = call.runtime
    return _scored(
        call,
        f"{board.board_id}/scores",
        lambda s, evidence: submissions.submit(rt, board, s, rt.clock.now(), evidence=evidence),
    )


def run_score(call: Call):
    _one_credential(call, "x-api-key", "a game server's score goes to POST /leaderboards/{board}/scores")
    # The run token is verified before anything is read (API Gateway has checked the header is there, no more).
    token = tokens.bearer(call.header("Authorization"))
    if token is None:
        raise Unauthorized("this route needs `Authorization: Bearer <run token>`")
    run = _verified(call, token, tokens.RUN_AUDIENCE)
    if run.get("run") != call.params["run_id"]:
        raise Forbidden("this run token is for another run than the path's: submit to its own run_id")
    board = board_catalog.get_board(call.runtime, call.params["board"])

    rt = call.runtime

    def submit(s: score_writes.Submission, evidence):
        now = rt.clock.now()  # the run's use and the score's write at the same time
        apply = lambda started: submissions.submit(rt, board, s, now, run=started, evidence=evidence)  # noqa: E731
        return runs.submit(rt.runs, board, run, s.player_id, apply, now)

    return _scored(call, f"{board.board_id}/runs/{run.get('run')}", submit)


def issue_token(call: Call):
    player_id = v.player_id(call.params["player_id"])
    body = call.body()
    v.only_fields(body, routes.TOKEN_BODY.fields)
    boards = body.get("boards")
    if boards is not None and (
        not isinstance(boards, list)
        or not 1 <= len(boards) <= limits.MAX_TOKEN_BOARDS
        or len(set(map(str, boards))) != len(boards)
    ):
        raise BadRequest(f"boards must be a list of 1 to {limits.MAX_TOKEN_BOARDS} distinct board ids")
    boards = None if boards is None else [board_id(b) for b in boards]
    ttl = v.bounded_int(
        body.get("ttl_seconds"),
        "ttl_seconds",
        limits.MIN_PLAYER_TOKEN_SECONDS,
        limits.MAX_PLAYER_TOKEN_SECONDS,
        limits.DEFAULT_PLAYER_TOKEN_SECONDS,
    )
    return 201, runs.player_token(call.runtime, player_id, boards, ttl, call.runtime.clock.now())


def start_run(call: Call):
    token = tokens.bearer(call.header("Authorization"))
    if token is None:
        raise Unauthorized("this route needs `Authorization: Bearer <player token>`")
    claims = _verified(call, token, tokens.PLAYER_AUDIENCE)
    board = board_catalog.get_board(call.runtime, call.params["board"])
    return 201, runs.start(call.runtime, board, claims, call.runtime.clock.now())


def bulk(call: Call):
    board = board_catalog.get_board(call.runtime, call.params["board"])
    body = call.body()
    v.only_fields(body, routes.BULK_BODY.fields)
    entries = body.get("entries")
    if not isinstance(entries, list) or not 1 <= len(entries) <= limits.MAX_BULK:
        raise BadRequest(f"entries must be a list of 1 to {limits.MAX_BULK} submissions")
    key = v.idempotency_key(call.header("Idempotency-Key"))
    scope = f"{board.board_id}/bulk"
    parsed: list[score_writes.Submission | BadRequest] = []
    for index, entry in enumerate(entries):
        try:
            parsed.append(_submission(entry, key and item_keys.operation_id(key, scope, index)))
        except BadRequest as err:
            parsed.append(err)
    rt = call.runtime
    return 200, idempotency.once(
        rt.idempotency,
        key,
        scope,
        body,
        lambda: submissions.submit_bulk(rt, board, parsed, rt.clock.now()),
        call.lambda_context,
    )


def player_receipt(call: Call):
    player = v.player_id(call.params["player_id"])
    _player_claims(call, player, board_id(call.params["board"]))  # before any read
    board = board_catalog.get_board(call.runtime, call.params["board"])
    return 200, receipts.receipt(call.runtime, board, call.query["period"], player)


def player_pending(call: Call):
    player = v.player_id(call.params["player_id"])
    claims = _player_claims(call, player)
    return 200, {
        "player_id": player,
        "pending": quarantine.everywhere(call.runtime.pending, player, claims.get("boards")),
    }


def live_token(call: Call):
    if not call.runtime.settings.live_tokens:
        raise NotFound("live updates are off in this deployment: poll the board")
    config = board_catalog.get_board(call.runtime, call.params["board"])
    client = live_access.client_of(call.runtime, call.event, call.header("Authorization"))
    return 200, live_access.issue(call.runtime, config, client)


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""
    return function_handler(routes.SCORE_SUBMIT, globals(), runtime)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
