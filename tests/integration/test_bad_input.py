"""Bad requests get a clear 4xx JSON error and change nothing in the tables."""

from __future__ import annotations

import pytest
import requests

from cdk_leaderboard_lambda.web import routes

from .stack_config import ADMIN_KEY, API_KEY

KEY = {"x-api-key": API_KEY}  # the game key
ADMIN = {"x-api-key": ADMIN_KEY}
JSON = {"Content-Type": "application/json"}
TEXT = {"Content-Type": "text/plain"}
FORGED_CURSOR = "eyJiIjoiYWxsLXRpbWUiLCJrIjoiMCIsInIiOjEsInQiOjF9"


def _chunks(total: int):
    """A body sent with Transfer-Encoding: chunked (no Content-Length to check up front)."""
    for _ in range(total // 8192):
        yield b"x" * 8192


# Over HTTP: what API Gateway (the local gateway models it) refuses before any function runs (keys, methods, unknown
# routes, body caps, malformed JSON, its body models as application/json), and one refusal by the function per
# route. The functions' own validation case by case: tests/unit/test_bad_requests.py (under moto, milliseconds).
# (id, method, path, request kwargs, expected status)
CASES = [
    # the gateway: malformed JSON and its body models (application/json only)
    ("bad-json", "POST", "/scores", {"data": b"{not json", "headers": {**KEY, **JSON}}, 400),
    (
        "json-nan-metadata",
        "POST",
        "/leaderboards/global/scores",
        {"data": b'{"player_id": "n", "score": 1, "metadata": {"x": NaN}}', "headers": {**KEY, **JSON}},
        400,
    ),
    # the function coerces "5" (only the model refuses it), answers a bulk per entry, and 404s an unkept period
    ("simulate-string", "POST", "/simulate", {"json": {"players": "5"}, "headers": ADMIN}, 400),
    (
        "bulk-not-objects",
        "POST",
        "/leaderboards/global/scores/bulk",
        {"json": {"entries": [1, 2]}, "headers": KEY},
        400,
    ),
    ("snapshot-period", "POST", "/snapshot", {"json": {"period": "monthly"}, "headers": ADMIN}, 400),
    # huge bodies: the handler refuses more than 64 KiB (413, unit); as application/json API Gateway's body
    # model sees them first (400); past API Gateway's own 10 MB cap the gateway answers 413 itself
    ("body-chunked-128k", "POST", "/scores", {"data": _chunks(128 * 1024), "headers": {**KEY, **TEXT}}, 413),
    ("body-65k-json", "POST", "/scores", {"data": b"x" * (65 * 1024), "headers": {**KEY, **JSON}}, 400),
    ("body-65k-no-key", "POST", "/scores", {"data": b"x" * (65 * 1024), "headers": JSON}, 403),
    ("body-11mb", "POST", "/scores", {"data": b"x" * (11 * 1024 * 1024), "headers": {**KEY, **TEXT}}, 413),
    # keys
    ("scores-no-key", "POST", "/scores", {"json": {"player_id": "a", "score": 1}}, 403),
    (
        "scores-wrong-key",
        "POST",
        "/scores",
        {"json": {"player_id": "a", "score": 1}, "headers": {"x-api-key": "nope"}},
        403,
    ),
    ("snapshot-no-key", "POST", "/snapshot", {"json": {}}, 403),
    ("simulate-no-key", "POST", "/simulate", {"json": {"players": 5}}, 403),
    ("simulate-key-in-query", "POST", f"/simulate?x-api-key={API_KEY}", {"json": {"players": 5}}, 403),
    ("delete-board-no-key", "DELETE", "/leaderboards/global", {}, 403),
    # routes and methods
    ("unknown-route", "GET", "/nope", {}, 404),
    ("unknown-post", "POST", "/admin", {"json": {}, "headers": KEY}, 404),
    ("unknown-nested", "GET", "/scores/extra", {}, 404),
    ("root", "GET", "/", {}, 404),
    ("unknown-board-subpath", "GET", "/leaderboards/global/everything", {}, 404),
    ("get-scores", "GET", "/scores", {}, 405),
    ("delete-scores", "DELETE", "/scores", {"headers": KEY}, 405),
    ("put-leaderboard", "PUT", "/leaderboard", {"json": {}}, 405),
    ("post-player", "POST", "/player?player_id=a", {"json": {}, "headers": KEY}, 405),
    ("put-board", "PUT", "/leaderboards/global", {"json": {}, "headers": KEY}, 405),
    ("trace-method", "TRACE", "/leaderboard", {}, 405),
    ("made-up-method", "BREW", "/leaderboard", {}, 405),
    # the other key: the function refuses it (403, naming the class needed: test_keys.py; each route: unit)
    ("game-key-creates-board", "POST", "/leaderboards", {"json": {"board_id": "g1"}, "headers": KEY}, 403),
    ("admin-key-submits", "POST", "/scores", {"json": {"player_id": "a", "score": 1}, "headers": ADMIN}, 403),
    # other content types reach the function, which refuses what the model would have
    (
        "plain-score-string",
        "POST",
        "/scores",
        {"data": b'{"player_id": "a", "score": "10"}', "headers": {**KEY, "Content-Type": "text/plain"}},
        400,
    ),
    # one refusal by the function per route
    ("simulate-zero", "POST", "/simulate", {"json": {"players": 0}, "headers": ADMIN}, 400),
    ("snapshot-limit", "POST", "/snapshot", {"json": {"limit": 0}, "headers": ADMIN}, 400),
    ("board-bad-id", "POST", "/leaderboards", {"json": {"board_id": "Bad Id!", "name": "x"}, "headers": ADMIN}, 400),
    ("board-unknown", "GET", "/leaderboards/nope", {}, 404),
    (
        "board-score-float",
        "POST",
        "/leaderboards/global/scores",
        {"json": {"player_id": "a", "score": 0.5}, "headers": KEY},
        400,
    ),
    ("bulk-empty", "POST", "/leaderboards/global/scores/bulk", {"json": {"entries": []}, "headers": KEY}, 400),
    ("range-missing-max", "GET", "/leaderboards/global/range?min_score=1", {}, 400),
    ("top-bad-cursor", "GET", "/leaderboards/global/top?cursor=garbage", {}, 400),
    ("leaderboard-limit-zero", "GET", "/leaderboard?limit=0", {}, 400),
    ("far-future-day", "GET", "/leaderboard?period=daily-9999-12-31", {}, 400),
    ("snapshots-limit", "GET", "/snapshots?limit=51", {}, 400),
    ("player-missing-query", "GET", "/player", {}, 400),
]


@pytest.fixture(scope="module")
def seeded(stack, api):
    """A few rows already in both tables, so 'nothing changed' means something."""
    stack.reset_tables()
    for pid, score in [("a", 5), ("b", 7)]:
        assert api.post("/scores", {"player_id": pid, "score": score}).status_code == 200
    assert api.post("/snapshot", {}).status_code == 201
    stack.settle()  # so that the refused requests below need not settle before their first look at the tables


@pytest.mark.parametrize("method, path, kwargs, status", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_rejected_with_a_clear_error_and_no_write(api, seeded, table_state, method, path, kwargs, status):
    before = table_state(settle=False)  # settled: by the seeding, then by each refused request's check below
    resp = requests.request(method, api.url + path, timeout=60, **kwargs)
    assert resp.status_code == status, resp.text
    assert resp.headers["Content-Type"].startswith("application/json")
    error = resp.json()["error"]
    assert isinstance(error, str) and len(error) > 5
    assert "Traceback" not in resp.text
    assert table_state() == before


def test_the_stack_still_answers_after_the_bad_requests(api, seeded):
    """Oversized bodies close their connection; the next requests are served normally."""
    assert api.get("/leaderboard").json()["entries"][0]["player_id"] == "b"


# --- text every client can read, numbers a double holds, dates ---------------------------------
# Each body is sent as raw JSON text, so "\\ud800" reaches the API as the JSON escape a careless client writes.

BOARD_SCORES = "/leaderboards/global/scores"


def _score_body(name_json: str, extra: str = "") -> bytes:
    return f'{{"player_id": "text-victim", "score": 3, "player_name": {name_json}{extra}}}'.encode()


# (id, path, raw body, key, the words the error must hold: which rule): one a name's pattern refuses, one a date's
# (as application/json, API Gateway's model quotes its pattern); every case under moto: tests/unit/test_bad_requests.py
TEXT_CASES = [
    ("surrogate-name-board", BOARD_SCORES, _score_body('"\\ud800x"'), KEY, "lone surrogate", 400),
    ("surrogate-board-name", "/leaderboards", b'{"board_id": "txt", "name": "\\ud800"}', ADMIN, "lone surrogate", 400),
    (
        "february-30",
        "/leaderboards",
        b'{"board_id": "txt", "starts_at": "2027-02-30T00:00:00Z", "ends_at": "2027-03-01T00:00:00Z"}',
        ADMIN,
        "ISO 8601",
        422,  # of the document's pattern, not a day of the calendar: a rule in words
    ),
]


@pytest.mark.parametrize(
    "path, raw, headers, rule, status", [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES]
)
def test_text_numbers_and_dates_no_client_can_read_are_refused_naming_the_rule(
    api, seeded, table_state, path, raw, headers, rule, status
):
    """As application/json, API Gateway's body model may refuse it first (names and times have a pattern there:
    its message quotes the pattern); any other content type reaches the function, whose message names the rule.
    Either way: 400 (422 for what has the document's shape) and nothing written."""
    before = table_state()
    for content_type in ("application/json", "text/plain"):
        resp = requests.post(api.url + path, data=raw, headers={**headers, "Content-Type": content_type}, timeout=60)
        assert resp.status_code == status, resp.text
        error = resp.json()["error"]
        assert rule in error or (content_type == "application/json" and "does not match" in error), resp.text
    assert table_state() == before
    # the reads a strict client makes afterwards: the player and the board as they were
    assert api.get("/leaderboards/global/players/text-victim").status_code == 404
    assert api.get("/leaderboards/txt").status_code == 404


def test_bulk_entries_with_hostile_names_are_refused_one_by_one_and_nothing_is_written(api, seeded, table_state):
    names = ['"a\\u0000"', '"\\u202eevil"', '"\\u200b"', '"\\u3164"', '"x"']
    body = (
        '{"entries": ['
        + ", ".join(
            f'{{"player_id": "bulk-victim-{i}", "score": 1, "player_name": {n}}}' for i, n in enumerate(names[:4])
        )
        + ', {"player_id": "bulk-ok", "score": 1, "metadata": {"n": '
        + "1" * 30
        + "}}]}"
    )
    before = table_state()
    resp = requests.post(api.url + BOARD_SCORES + "/bulk", data=body.encode(), headers={**KEY, **JSON}, timeout=60)
    assert resp.status_code == 200, resp.text
    results = resp.json()["results"]
    assert [r["status"] for r in results] == [400] * 5
    rules = ["control characters", "bidirectional", "visible", "visible", "metadata numbers"]
    assert all(rule in r["error"] for rule, r in zip(rules, results, strict=True)), results
    assert table_state() == before


# Names in any script, past and future periods' status, and refused submissions leaving the per-player counter
# unchanged: tests/unit/test_hostile_input.py (under moto; nothing in them needs a real engine).


@pytest.mark.parametrize(
    "raw",
    [
        b'{"player_id":"d1","score":1,"score":900000}',  # the model sees the last one (valid), the function refuses
        b'{"player_id":"d1","score":900000,"score":"x"}',  # the model sees the last one (invalid): its own 400
    ],
)
def test_a_member_named_twice_is_400_and_changes_nothing(api, stack, seeded, table_state, raw):
    """Strict JSON: a body naming a member twice is refused, whichever of the two a reader would keep. The local
    gateway checks its body model on the last one, as API Gateway lets duplicates through, and the function
    refuses the rest naming the member (on AWS too): one invocation for the first body, none for the second."""
    before, top = table_state(settle=False), api.get("/leaderboards/global/top").json()["entries"]
    invoked = stack.gateway.invocations[routes.SCORE_SUBMIT.name]
    resp = requests.post(api.url + "/leaderboards/global/scores", data=raw, headers={**KEY, **JSON}, timeout=60)
    assert resp.status_code == 400, resp.text
    by_function = raw.endswith(b"900000}")
    if by_function:
        assert '"score" appears twice' in resp.json()["error"], resp.text
    assert stack.gateway.invocations[routes.SCORE_SUBMIT.name] == invoked + by_function
    assert table_state() == before
    assert api.get("/leaderboards/global/top").json()["entries"] == top
