"""Bad requests the functions refuse themselves (what API Gateway lets through to them: every content type but
application/json skips its body model, and queries and paths are theirs to check), under moto: each is a clear
4xx JSON error naming the problem, no stack trace, and every table as it was. The gateway's own refusals (keys,
methods, unknown routes, body caps, malformed JSON) and one case per route stay over HTTP in
tests/integration/test_bad_input.py."""

from __future__ import annotations

import json
from urllib.parse import parse_qsl

import pytest

from local import invocation
from tests.support.lambda_api import call

JSON = {"Content-Type": "application/json"}
TEXT = {"Content-Type": "text/plain"}
FORGED_CURSOR = "eyJiIjoiYWxsLXRpbWUiLCJrIjoiMCIsInIiOjEsInQiOjF9"
BOARD_SCORES = "/leaderboards/global/scores"


def _j(body) -> bytes:
    return json.dumps(body).encode()


# (id, method, path, raw body, headers, expected status): bodies as the client sent them
CASES = [
    ("truncated-json", "POST", "/scores", b'{"player_id": "a", "score": 1', JSON, 400),
    ("array-body", "POST", "/scores", _j([1, 2]), JSON, 400),
    ("string-body", "POST", "/scores", _j("hi"), JSON, 400),
    ("not-utf8", "POST", "/scores", b"\xff\xfe\x00", JSON, 400),
    ("empty-body", "POST", "/scores", None, {}, 400),
    ("deeply-nested-json", "POST", "/scores", b"[" * 30000 + b"]" * 30000, JSON, 400),
    ("score-string", "POST", "/scores", _j({"player_id": "a", "score": "10"}), JSON, 400),
    ("score-float", "POST", "/scores", _j({"player_id": "a", "score": 1.5}), JSON, 400),
    ("score-bool", "POST", "/scores", _j({"player_id": "a", "score": True}), JSON, 400),
    ("score-null", "POST", "/scores", _j({"player_id": "a", "score": None}), JSON, 400),
    ("score-negative", "POST", "/scores", _j({"player_id": "a", "score": -1}), JSON, 400),
    ("score-too-big", "POST", "/scores", _j({"player_id": "a", "score": 2**53}), JSON, 400),
    ("score-missing", "POST", "/scores", _j({"player_id": "a"}), JSON, 400),
    ("player-id-int", "POST", "/scores", _j({"player_id": 7, "score": 1}), JSON, 400),
    ("player-id-empty", "POST", "/scores", _j({"player_id": "", "score": 1}), JSON, 400),
    ("player-id-too-long", "POST", "/scores", _j({"player_id": "a" * 65, "score": 1}), JSON, 400),
    ("player-id-spaces", "POST", "/scores", _j({"player_id": "a b", "score": 1}), JSON, 400),
    ("name-too-long", "POST", "/scores", _j({"player_id": "a", "score": 1, "player_name": "n" * 65}), JSON, 400),
    ("name-not-string", "POST", "/scores", _j({"player_id": "a", "score": 1, "player_name": 5}), JSON, 400),
    ("unknown-field", "POST", "/scores", _j({"player_id": "a", "score": 1, "admin": True}), JSON, 400),
    ("simulate-too-many", "POST", "/simulate", _j({"players": 1001}), JSON, 400),
    ("snapshot-period-type", "POST", "/snapshot", _j({"period": 3}), JSON, 400),
    ("board-bad-order", "POST", "/leaderboards", _j({"board_id": "b1", "order": "sideways"}), JSON, 400),
    ("board-bad-period", "POST", "/leaderboards", _j({"board_id": "b1", "periods": ["hourly"]}), JSON, 400),
    ("board-no-periods", "POST", "/leaderboards", _j({"board_id": "b1", "periods": []}), JSON, 400),
    ("board-missing-id", "POST", "/leaderboards", _j({"name": "x"}), JSON, 400),
    ("board-exists", "POST", "/leaderboards", _j({"board_id": "global", "name": "x"}), JSON, 409),
    ("board-unknown-scores", "POST", "/leaderboards/nope/scores", _j({"player_id": "a", "score": 1}), JSON, 404),
    ("board-score-float", "POST", BOARD_SCORES, _j({"player_id": "a", "score": 0.5}), JSON, 400),
    (
        "bulk-too-many",
        "POST",
        BOARD_SCORES + "/bulk",
        _j({"entries": [{"player_id": "a", "score": 1}] * 501}),
        JSON,
        400,
    ),
    ("range-not-number", "GET", "/leaderboards/global/range?min_score=a&max_score=5", None, {}, 400),
    ("around-unknown-player", "GET", "/leaderboards/global/players/nobody", None, {}, 404),
    ("leaderboard-limit-text", "GET", "/leaderboard?limit=ten", None, {}, 400),
    ("leaderboard-period", "GET", "/leaderboard?period=yearly", None, {}, 400),
    ("player-empty-query", "GET", "/player?player_id=", None, {}, 400),
    ("player-bad-id", "GET", "/player?player_id=a%20b", None, {}, 400),
    ("player-unknown", "GET", "/player?player_id=nobody", None, {}, 404),
    # the function refuses more than 64 KiB itself (413)
    ("body-65k", "POST", "/scores", b"x" * (65 * 1024), TEXT, 413),
    ("body-2mb", "POST", "/scores", b"x" * (2 * 1024 * 1024), TEXT, 413),
    # API Gateway validates bodies only as application/json: the functions refuse the rest themselves
    *[
        (f"{ctype.split('/')[1]}-{name}", "POST", path, body, {"Content-Type": ctype}, 400)
        for ctype in ("text/plain", "application/x-www-form-urlencoded")
        for name, path, body in (
            ("nan-metadata", BOARD_SCORES, b'{"player_id": "n", "score": 1, "metadata": {"x": NaN}}'),
            ("inf-meta", BOARD_SCORES, b'{"player_id": "n", "score": 1, "metadata": {"x": 1e999}}'),
            ("newline-id", "/scores", b'{"player_id": "sv-nl\\n", "score": 1}'),
            ("dots-id", "/scores", b'{"player_id": "..", "score": 1}'),
            ("score-string", "/scores", b'{"player_id": "a", "score": "10"}'),
            ("unknown-field", "/scores", b'{"player_id": "a", "score": 1, "admin": true}'),
        )
        if (ctype, name) != ("text/plain", "score-string")  # over HTTP: the gateway passes it to the function
    ],
    ("newline-board-id", "POST", "/leaderboards", _j({"board_id": "nl\n"}), JSON, 400),
    # query values
    ("far-future-week", "GET", "/leaderboards/global/top?period=weekly-9999-W52", None, {}, 400),
    ("far-future-snapshots", "GET", "/snapshots?period=daily-9999-12-31", None, {}, 400),
    ("empty-period", "GET", "/leaderboard?period=", None, {}, 400),
    ("arabic-digit-limit", "GET", "/leaderboard?limit=%D9%A3", None, {}, 400),
    ("fullwidth-digit-range", "GET", "/leaderboards/global/range?min_score=%EF%BC%91&max_score=5", None, {}, 400),
    ("empty-cursor", "GET", "/leaderboards/global/top?cursor=", None, {}, 400),
    ("huge-cursor", "GET", "/leaderboards/global/top?cursor=" + "A" * 2048, None, {}, 400),
    # an unsigned cursor as the API used to issue them: {"b": "all-time", "k": "0", "r": 1, "t": 1}
    ("forged-cursor", "GET", "/leaderboards/global/top?cursor=" + FORGED_CURSOR, None, {}, 400),
    ("dots-player-path", "GET", "/leaderboards/global/players/...", None, {}, 400),
]


def _score_body(name_json: str, extra: str = "") -> bytes:
    return f'{{"player_id": "text-victim", "score": 3, "player_name": {name_json}{extra}}}'.encode()


# (id, path, raw body, the words the error must hold: which rule)
TEXT_CASES = [
    ("surrogate-name-default", "/scores", _score_body('"\\ud800x"'), "lone surrogate"),
    (
        "surrogate-name-bulk",
        BOARD_SCORES + "/bulk",
        b'{"entries": [' + _score_body('"\\udc00"') + b"]}",
        "lone surrogate",
    ),
    ("surrogate-metadata", BOARD_SCORES, _score_body('"Ok"', ', "metadata": {"n": "\\ud83d"}'), "lone surrogate"),
    ("surrogate-metadata-key", BOARD_SCORES, _score_body('"Ok"', ', "metadata": {"\\udfff": 1}'), "lone surrogate"),
    ("nul-name", "/scores", _score_body('"a\\u0000b"'), "control characters"),
    ("esc-name", BOARD_SCORES, _score_body('"\\u001b[2J\\u001b[31mboss"'), "control characters"),
    ("c1-name", BOARD_SCORES, _score_body('"a\\u009bb"'), "control characters"),
    ("rtl-override-name", BOARD_SCORES, _score_body('"abc\\u202etxt.exe"'), "bidirectional"),
    ("rtl-isolate-name", "/scores", _score_body('"\\u2067abc\\u2069"'), "bidirectional"),
    ("zero-width-name", BOARD_SCORES, _score_body('"\\u200b\\u200c\\u200d\\u2060\\ufeff"'), "visible"),
    ("hangul-filler-name", "/scores", _score_body('"\\u3164\\u3164"'), "visible"),
    ("choseong-filler-name", BOARD_SCORES, _score_body('"\\u115f"'), "visible"),
    ("halfwidth-filler-name", BOARD_SCORES, _score_body('"\\uffa0 \\u2800"'), "visible"),
    (
        "huge-int-metadata",
        BOARD_SCORES,
        _score_body('"Ok"', ', "metadata": {"n": ' + "9" * 500 + "}"),
        "metadata numbers",
    ),
    ("2^53-metadata", BOARD_SCORES, _score_body('"Ok"', ', "metadata": {"n": [9007199254740992]}'), "metadata numbers"),
    ("big-float-metadata", BOARD_SCORES, _score_body('"Ok"', ', "metadata": {"n": 1' + "0" * 400 + ".5}"), "JSON"),
    ("bidi-board-name", "/leaderboards", b'{"board_id": "txt", "name": "\\u202eevil"}', "bidirectional"),
    (
        "invisible-tier-name",
        "/leaderboards",
        b'{"board_id": "txt", "tiers": [{"name": "\\u3164", "min_percentile": 1}]}',
        "visible",
    ),
    (
        "control-reward-name",
        "/leaderboards",
        b'{"board_id": "txt", "rewards": [{"reward": "a\\u0007", "ranks": [1, 1]}]}',
        "control characters",
    ),
    (
        "ends-in-9999",
        "/leaderboards",
        b'{"board_id": "txt", "starts_at": "2026-01-01T00:00:00Z", "ends_at": "9999-06-01T00:00:00Z"}',
        "2000-2999",
    ),
    (
        "starts-in-0999",
        "/leaderboards",
        b'{"board_id": "txt", "starts_at": "0999-06-01T00:00:00Z", "ends_at": "2027-01-01T00:00:00Z"}',
        "2000-2999",
    ),
    (
        "zero-time",
        "/leaderboards",
        b'{"board_id": "txt", "starts_at": "0000-00-00T00:00:00Z", "ends_at": "2027-01-01T00:00:00Z"}',
        "ISO 8601",
    ),
]


@pytest.fixture(scope="module")
def seeded(module_ddb):
    """A few rows in the tables, so 'nothing changed' means something: one set for the module, as every test here
    compares all the tables before and after its own requests (a test that wrote would fail itself)."""
    for pid, score in [("a", 5), ("b", 7)]:
        assert call("POST", "/scores", body={"player_id": pid, "score": score}).status == 200
    assert call("POST", "/snapshot", body={}).status == 201
    return module_ddb


def _tables(ddb) -> dict[str, list[str]]:
    return {
        name: sorted(json.dumps(i, sort_keys=True) for i in ddb.scan(TableName=name)["Items"])
        for name in ddb.list_tables()["TableNames"]
    }


def _call(method: str, target: str, raw: bytes | None, headers: dict):
    path, _, query = target.partition("?")
    return call(method, path, body=raw, query=dict(parse_qsl(query, keep_blank_values=True)), headers=headers)


@pytest.mark.parametrize("method, path, raw, headers, status", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_with_a_clear_error_and_no_write(seeded, method, path, raw, headers, status):
    before = _tables(seeded)
    reply = _call(method, path, raw, headers)
    assert reply.status == status, reply.body
    assert reply.headers["Content-Type"].startswith("application/json")
    error = reply.body["error"]
    assert isinstance(error, str) and len(error) > 5 and "Traceback" not in error
    assert _tables(seeded) == before


@pytest.mark.parametrize("path, raw, rule", [c[1:] for c in TEXT_CASES], ids=[c[0] for c in TEXT_CASES])
def test_text_numbers_and_dates_no_client_can_read_are_400_naming_the_rule(seeded, path, raw, rule):
    """Whatever the content type, the function's message names the rule (over HTTP, as application/json, API
    Gateway's body model may refuse it first, quoting its pattern: tests/integration/test_bad_input.py)."""
    before = _tables(seeded)
    for content_type in ("application/json", "text/plain"):
        reply = _call("POST", path, raw, {"Content-Type": content_type})
        assert reply.status == 400, reply.body
        assert rule in reply.body["error"], reply.body
    assert _tables(seeded) == before


def test_each_key_opens_only_its_own_routes_when_the_key_classes_are_known(seeded, monkeypatch, reconfigure):
    """The other key on a keyed route is 403 from the function (API Gateway admits both keys of the usage plans);
    POST /leaderboards, /simulate and /scores: tests/unit/test_hostile_input.py."""
    monkeypatch.setenv("ADMIN_API_KEY", "unit-test-admin-key-0123456789")
    reconfigure()
    before = _tables(seeded)
    game = invocation.settings().game_api_key
    assert call("DELETE", "/leaderboards/global", key_id="gamekey001", api_key=game).status == 403
    assert call("POST", "/snapshot", body={}, key_id="gamekey001", api_key=game).status == 403
    assert _tables(seeded) == before
