"""Hostile input under moto: forged cursors, non-JSON numbers, look-alike ids, foreign digits, far-off periods,
the wrong key on a keyed route. Each is a clear 4xx that stores nothing; admin actions leave an audit line."""

from __future__ import annotations

import base64
import json
import logging
import re
import time
from datetime import UTC, datetime, timedelta

import boto3
import pytest

from cdk_leaderboard_lambda.shared import item_keys
from cdk_leaderboard_lambda.shared.clock import iso
from cdk_leaderboard_lambda.shared.limits import CURSOR_PATTERN
from cdk_leaderboard_lambda.web import http
from local import invocation
from tests.support.lambda_api import call, scan, top
from tests.support.lambda_api import create_board as create
from tests.support.lambda_api import submit as post
from tests.unit.conftest import GAME_API_KEY

ADMIN = "unit-test-admin-key-0123456789"


def _b64(raw: str | bytes) -> str:
    return base64.urlsafe_b64encode(raw if isinstance(raw, bytes) else raw.encode()).decode().rstrip("=")


@pytest.fixture
def board_of_five(ddb):
    create("five")
    for i in range(5):
        assert post("five", f"p{i}", i * 10)[0] == 200
    return "five"


def _old_style(payload) -> str:
    """A cursor as the API used to issue them: unsigned base64 JSON, every field forgeable."""
    return _b64(json.dumps(payload) if not isinstance(payload, str) else payload)


FORGED = {
    # a rank of 10^30 and a time far in the future: once accepted, never expiring, printing made-up ranks
    "forged-rank-future": _old_style({"b": "five#all-time", "k": "0#0#p0", "r": 10**30, "t": 10**15}),
    "huge-number": _old_style('{"b":"five#all-time","k":"x","r":1e400,"t":1}'),
    "deep-nesting": _old_style("[" * 5000 + "]" * 5000),
    "empty": "",
    "oversized-key": _old_style({"b": "five#all-time", "k": "9" * 1100, "r": 1, "t": int(time.time() * 1000)}),
    "garbage": "garbage",
    "nan-rank": _old_style('{"b":"five#all-time","k":"x","r":NaN,"t":1}'),
    "dots-only": "..",
    "tag-without-payload": "." + "A" * 22,
}


def _refusal(cursor: str) -> int:
    """400 for what is not of a cursor's shape (the document's pattern), 422 for what is but was not issued."""
    return 422 if re.fullmatch(CURSOR_PATTERN, cursor) else 400


@pytest.mark.parametrize("cursor", FORGED.values(), ids=FORGED.keys())
def test_a_cursor_the_api_did_not_issue_is_400_or_422_by_its_shape(board_of_five, cursor):
    status, body, _ = top("five", limit="2", cursor=cursor)
    assert status == _refusal(cursor) and "cursor" in body["error"], body


def test_a_well_shaped_cursor_the_api_did_not_issue_is_422(board_of_five):
    """Of the document's pattern (schema-valid), not signed by this API: 422, which the document declares."""
    forged = f"{_b64(json.dumps(['0#0#p0', 1, int(time.time() * 1000)]))}.{'A' * 22}"
    assert re.fullmatch(CURSOR_PATTERN, forged)
    status, body, _ = top("five", limit="2", cursor=forged)
    assert status == 422 and "cursor" in body["error"], body


def test_a_tampered_cursor_is_refused(board_of_five):
    _, page, _ = top("five", limit="2")
    real = page["next_cursor"]
    assert top("five", limit="2", cursor=real)[0] == 200
    payload, tag = real.split(".")
    raw = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    raw[1] = 10**6  # claim a later rank, keep the signature
    for forged in (
        f"{_b64(json.dumps(raw, separators=(',', ':')))}.{tag}",
        f"{payload}.{tag[:-1]}{'A' if tag[-1] != 'A' else 'B'}",
        payload,
    ):
        status, body, _ = top("five", limit="2", cursor=forged)
        assert status == _refusal(forged) and "cursor" in body["error"]


def test_a_cursor_belongs_to_one_board_period_and_range(board_of_five):
    create("other")
    for i in range(5):
        post("other", f"p{i}", i * 10)
    _, page, _ = top("five", limit="2")
    assert top("other", limit="2", cursor=page["next_cursor"])[0] == 422
    query = {"min_score": "0", "max_score": "40", "limit": "2"}
    _, in_range, _ = call("GET", "/leaderboards/five/range", query=query)
    assert top("five", limit="2", cursor=in_range["next_cursor"])[0] == 422
    other_range = {**query, "max_score": "30", "cursor": in_range["next_cursor"]}
    assert call("GET", "/leaderboards/five/range", query=other_range)[0] == 422


def test_a_cursor_issued_in_the_future_or_too_long_ago_is_422(board_of_five):
    from cdk_leaderboard_lambda.domain import cursors
    from cdk_leaderboard_lambda.operations import board_catalog

    binding = board_catalog.get_board(invocation.runtime(), "five").leaderboard_id(
        "all-time"
    )  # its generation's (item_keys.py)
    now = int(time.time() * 1000)
    future = cursors.issue(invocation.runtime(), binding, "0#0#p0", 1, issued_ms=now + 3_600_000)
    status, body, _ = top("five", cursor=future)
    assert status == 422 and "not valid" in body["error"]
    stale = cursors.issue(
        invocation.runtime(), binding, "0#0#p0", 1, issued_ms=now - invocation.settings().cursor_ttl_seconds * 1000 - 1
    )
    status, body, _ = top("five", cursor=stale)
    assert status == 422 and "expired" in body["error"]


def test_cursors_are_compact_and_url_safe(board_of_five):
    _, page, _ = top("five", limit="1")
    cursor = page["next_cursor"]
    assert len(cursor) < 120 and cursor.replace("-", "").replace("_", "").replace(".", "").isalnum()
    walked, cursor = [e["rank"] for e in page["entries"]], page["next_cursor"]
    while cursor:
        _, page, _ = top("five", limit="1", cursor=cursor)
        walked += [e["rank"] for e in page["entries"]]
        cursor = page.get("next_cursor")
    assert walked == [1, 2, 3, 4, 5]


def test_on_aws_the_secret_comes_from_secrets_manager_once(ddb, monkeypatch, reconfigure):
    """No CURSOR_SECRET: the function reads CURSOR_SECRET_ARN's versions (a ring) once per cold start."""
    from cdk_leaderboard_lambda.domain import cursors

    arn = boto3.client("secretsmanager", region_name="us-east-1").create_secret(
        Name="cursor-signing", SecretString="s3cret-from-secrets-manager-0123456789"
    )["ARN"]
    monkeypatch.delenv("CURSOR_SECRET")
    monkeypatch.setenv("CURSOR_SECRET_ARN", arn)
    reconfigure()
    calls = []
    secrets = invocation.runtime().secrets
    real = secrets.current_and_previous
    monkeypatch.setattr(secrets, "current_and_previous", lambda a: calls.append(a) or real(a))
    token = cursors.issue(invocation.runtime(), "b#all-time", "k", 3)
    assert cursors.read(invocation.runtime(), token, "b#all-time").last_rank == 3
    assert calls == [arn]
    monkeypatch.setenv("CURSOR_SECRET", "a-different-local-secret-0123456789")
    reconfigure()
    with pytest.raises(Exception, match="not valid"):
        cursors.read(invocation.runtime(), token, "b#all-time")  # another deployment's secret: not ours


# --- strict JSON ---------------------------------------------------------------------------


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_json_numbers_are_refused_in_every_body(ddb, number):
    create("meta")
    raw = f'{{"player_id": "p1", "score": 1, "metadata": {{"x": {number}}}}}'
    status, body, _ = call("POST", "/leaderboards/meta/scores", body=raw)
    assert status == 400 and "JSON" in body["error"]
    bulk = f'{{"entries": [{{"player_id": "p1", "score": 1, "metadata": {{"x": {number}}}}}]}}'
    status, _, _ = call("POST", "/leaderboards/meta/scores/bulk", body=bulk)
    assert status == 400
    status, _, _ = call("POST", "/snapshot", body=f'{{"limit": {number}}}')
    assert status == 400
    assert [i for i in scan(ddb, invocation.settings().scores_table) if i["player_id"]["S"] == "p1"] == []
    status, page, _ = top("meta")
    assert status == 200 and page["entries"] == []


@pytest.mark.parametrize(
    ("path", "raw", "member"),
    [
        ("/scores", '{"player_id":"d1","score":1,"score":900000}', "score"),
        ("/leaderboards/dup/scores", '{"player_id":"d1","score":1,"score":900000}', "score"),
        ("/leaderboards/dup/scores", '{"player_id":"d2","player_id":"d1","score":5}', "player_id"),
        ("/leaderboards/dup/scores", '{"player_id":"d1","score":5,"metadata":{"a":1,"a":2}}', "a"),
        ("/leaderboards/dup/scores/bulk", '{"entries":[{"player_id":"d1","score":1,"score":900000}]}', "score"),
    ],
)
def test_a_member_named_twice_is_400_naming_it_and_writes_nothing(ddb, path, raw, member):
    """Python keeps the last of duplicate members, another reader of the same body (a validator, an audit) may keep
    the first: the body is refused, whichever one a route would have read."""
    create("dup")
    status, body, _ = call("POST", path, body=raw)
    assert status == 400 and f'"{member}" appears twice' in body["error"], body
    assert [i for i in scan(ddb, invocation.settings().scores_table) if i["player_id"]["S"].startswith("d")] == []
    for board in ("dup", "global"):
        assert top(board)[1]["entries"] == []


def test_strict_json_names_the_duplicate_member_at_any_depth():
    from cdk_leaderboard_lambda.web import validation

    assert validation.strict_json('{"a": {"b": 1}, "c": [{"b": 2}]}') == {"a": {"b": 1}, "c": [{"b": 2}]}
    for text, name in (('{"a": 1, "a": 1}', "a"), ('{"x": [{"k": 1, "k": 2}]}', "k"), ('{"": 1, "": 2}', "")):
        with pytest.raises(validation.DuplicateMember) as raised:
            validation.strict_json(text)
        assert raised.value.name == name


def test_a_response_is_always_valid_json(ddb):
    def broken(event, context):
        return 200, {"x": float("nan")}

    result = http.api_handler(broken, invocation.runtime())({"httpMethod": "GET", "resource": "/nowhere"})
    assert result["statusCode"] == 500
    json.loads(result["body"], parse_constant=lambda c: pytest.fail(f"{c} in a response"))


# --- ids, digits and periods ---------------------------------------------------------------


@pytest.mark.parametrize("player_id", ["sv-nl\n", "a\n", ".", "..", "...", "a b", "x" * 65])
def test_player_ids_are_matched_in_full_and_not_only_dots(ddb, player_id):
    create("ids")
    for path in ("/scores", "/leaderboards/ids/scores"):
        status, body, _ = call("POST", path, body={"player_id": player_id, "score": 1})
        assert status == 400 and "player_id" in body["error"], (path, player_id)
    status, _, _ = call("GET", "/player", query={"player_id": player_id})
    assert status == 400
    assert [i for i in scan(ddb, invocation.settings().scores_table) if not i["player_id"]["S"].startswith("#")] == []


def test_ids_with_dots_among_other_characters_are_fine(ddb):
    status, _, _ = call("POST", "/scores", body={"player_id": "a.b..c", "score": 1})
    assert status == 200


@pytest.mark.parametrize("board_id", ["race\n", "race\n\n", "Race", "-race"])
def test_board_ids_are_matched_in_full(ddb, board_id):
    status, body, _ = create(board_id)
    assert status == 400 and "board_id" in body["error"]
    assert scan(ddb, invocation.settings().scores_table) == []


@pytest.mark.parametrize("value", ["٣", "３", "५", " 5", "5 ", "+5", "5\n", "", "1_0"])
def test_numeric_query_values_are_ascii_digits_only(ddb, value):
    status, body, _ = call("GET", "/leaderboard", query={"limit": value})
    assert status == 400 and "limit" in body["error"]
    query = {"min_score": value, "max_score": "10"}
    status, body, _ = call("GET", "/leaderboards/global/range", query=query)
    assert status == 400 and "min_score" in body["error"]


@pytest.mark.parametrize(
    "period", ["daily-9999-12-31", "weekly-9999-W52", "monthly-9999-12", "daily-2026-02-30", "weekly-2025-W53", ""]
)
def test_far_off_or_impossible_periods_are_400(ddb, period):
    status, body, _ = call("GET", "/leaderboard", query={"period": period})
    assert status == 400 and "period" in body["error"]
    status, body, _ = call("GET", "/snapshots", query={"period": period})
    assert status == 400
    status, body, _ = top("global", period=period)
    assert status == 400


# --- keys and the audit trail --------------------------------------------------------------


def test_admin_routes_refuse_other_keys_when_the_admin_key_is_known(ddb, monkeypatch, reconfigure):
    """The classes are told apart by the value API Gateway checked (identity.apiKey), whatever the key's id."""
    monkeypatch.setenv("ADMIN_API_KEY", ADMIN)
    reconfigure()
    status, body, _ = create("mine", key_id="gamekey001", api_key=GAME_API_KEY)
    assert status == 403 and "admin key" in body["error"]
    assert scan(ddb, invocation.settings().scores_table) == []
    status, _, _ = call("POST", "/simulate", body={"players": 1}, key_id="gamekey001", api_key=GAME_API_KEY)
    assert status == 403
    assert create("mine", key_id="adminkey01", api_key=ADMIN)[0] == 201
    body = {"player_id": "p", "score": 1}
    status, body, _ = call("POST", "/scores", body=body, key_id="adminkey01", api_key=ADMIN)
    assert status == 403 and "game key" in body["error"]
    body = {"player_id": "p", "score": 1}
    assert call("POST", "/scores", body=body, key_id="any-id", api_key=GAME_API_KEY)[0] == 200
    assert call("GET", "/leaderboard")[0] == 200  # public: no key at all


def test_without_the_admin_key_the_runtime_leaves_admin_routes_to_the_gateway(ddb):
    assert create("anyone", key_id="whatever", api_key="whatever-value")[0] == 201


def test_admin_actions_are_logged_with_the_key_id(ddb, caplog):
    caplog.set_level(logging.INFO, logger="leaderboard.audit")
    create("audited", key_id="adminkey01")
    call("POST", "/snapshot", body={"limit": 3}, key_id="adminkey01")
    call("POST", "/simulate", body={"players": 2}, key_id="adminkey01")
    call("DELETE", "/leaderboards/audited", key_id="adminkey01")
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "leaderboard.audit"]
    assert [line["action"] for line in lines] == ["board.create", "snapshot.take", "simulator.run", "board.delete"]
    assert all(line["api_key_id"] == "adminkey01" and line["time"].endswith("Z") for line in lines)
    assert lines[0]["target"] == "audited" and lines[1]["target"].startswith("all-time#")
    assert lines[2]["target"]["players"] == 2 and lines[3]["target"]["board_id"] == "audited"


# --- text every client can read, numbers a double holds ----------------------------------------

# (id, the name as JSON text, the rule the 400 must name)
BAD_NAMES = [
    ("lone-surrogate", '"\\ud800x"', "surrogate"),
    ("lone-low-surrogate", '"x\\udc00"', "surrogate"),
    ("nul", '"a\\u0000b"', "control"),
    ("esc-sequence", '"\\u001b[31mred"', "control"),
    ("c1-control", '"a\\u0085b"', "control"),
    ("line-separator", '"a\\u2028b"', "control"),
    ("rtl-override", '"abc\\u202egnp.exe"', "bidirectional"),
    ("rtl-isolate", '"\\u2067abc"', "bidirectional"),
    ("rlm", '"a\\u200fb"', "bidirectional"),
    ("zero-width-only", '"\\u200b\\u200c\\u200d"', "visible"),
    ("hangul-filler", '"\\u3164"', "visible"),
    ("choseong-filler", '"\\u115f\\u1160"', "visible"),
    ("halfwidth-filler", '"\\uffa0"', "visible"),
    ("word-joiner-bom", '" \\u2060\\ufeff "', "visible"),
    ("braille-blank", '"\\u2800"', "visible"),
    ("tags-only", '"\\udb40\\udc41\\udb40\\udc42"', "visible"),
]


def _entry_items(ddb, player_id: str) -> list:
    return [i for i in scan(ddb, invocation.settings().scores_table) if i["player_id"]["S"] == player_id]


@pytest.mark.parametrize("name, rule", [c[1:] for c in BAD_NAMES], ids=[c[0] for c in BAD_NAMES])
def test_unreadable_or_invisible_player_names_are_400_naming_the_rule(ddb, name, rule):
    create("names")
    single = f'{{"player_id": "p1", "score": 1, "player_name": {name}}}'
    for path in ("/scores", "/leaderboards/names/scores"):
        status, body, _ = call("POST", path, body=single)
        assert status == 400 and rule in body["error"], (path, body)
    bulk = f'{{"entries": [{{"player_id": "p1", "score": 1, "player_name": {name}}}]}}'
    status, body, _ = call("POST", "/leaderboards/names/scores/bulk", body=bulk)
    # a lone surrogate makes the whole body unreadable; the other rules refuse the one entry
    error = body["error"] if status == 400 else body["results"][0]["error"]
    assert (status == 400 or body["results"][0]["status"] == 400) and rule in error, body
    assert _entry_items(ddb, "p1") == []


@pytest.mark.parametrize("name, rule", [c[1:] for c in BAD_NAMES], ids=[c[0] for c in BAD_NAMES])
def test_board_reward_and_tier_names_follow_the_same_rules(ddb, name, rule):
    for field in (
        '"name": NAME',
        '"tiers": [{"name": NAME, "min_percentile": 50}]',
        '"rewards": [{"reward": NAME, "ranks": [1, 1]}]',
    ):
        raw = '{"board_id": "named", ' + field.replace("NAME", name) + "}"
        status, body, _ = call("POST", "/leaderboards", body=raw)
        assert status == 400 and rule in body["error"], (field, body)
    assert call("GET", "/leaderboards/named", check_contract=False).status == 404


@pytest.mark.parametrize(
    "name", ["Ann", "Zoë", "李小龙", "👨\u200d👩\u200d👧", "\u200bx", "عليّ", "a b", "🇸🇪"], ids=repr
)
def test_names_in_any_script_and_emoji_sequences_are_fine(ddb, name):
    create("fine")
    status, body, _ = submit_named("fine", name)
    assert status == 200 and body["player_name"] == name.strip()
    assert call("GET", "/leaderboards/fine/players/p1").body["player_name"] == name.strip()  # stored as served


def submit_named(board: str, name: str):
    return post(board, "p1", 1, player_name=name)


def test_a_lone_surrogate_anywhere_in_a_body_is_400_saying_where(ddb):
    create("meta")
    for raw, where in [
        ('{"player_id": "p1", "score": 1, "metadata": {"note": "\\ud83d"}}', "metadata.note"),
        ('{"player_id": "p1", "score": 1, "metadata": {"\\udfff": 1}}', "metadata"),
        ('{"player_id": "p1", "score": 1, "metadata": {"list": ["ok", "\\ud800"]}}', "metadata.list[1]"),
    ]:
        status, body, _ = call("POST", "/leaderboards/meta/scores", body=raw)
        assert status == 400 and "surrogate" in body["error"] and where in body["error"], body
    status, body, _ = call("POST", "/leaderboards", body='{"board_id": "s", "name": "\\udead"}')
    assert status == 400 and "surrogate" in body["error"]
    assert _entry_items(ddb, "p1") == []
    # a surrogate PAIR is one character (an emoji): fine
    status, body, _ = call(
        "POST", "/leaderboards/meta/scores", body='{"player_id": "p1", "score": 1, "player_name": "\\ud83d\\ude00"}'
    )
    assert status == 200 and body["player_name"] == "😀"


@pytest.mark.parametrize("number", [str(2**53), str(-(2**53)), "1" + "0" * 499, str(2**64), "-" + "9" * 40])
def test_metadata_integers_beyond_a_double_are_400(ddb, number):
    create("meta")
    for raw in (
        f'{{"player_id": "p1", "score": 1, "metadata": {{"x": {number}}}}}',
        f'{{"player_id": "p1", "score": 1, "metadata": {{"deep": [{{"x": {number}}}]}}}}',
    ):
        status, body, _ = call("POST", "/leaderboards/meta/scores", body=raw)
        assert status == 400 and "metadata numbers" in body["error"], body
    bulk = f'{{"entries": [{{"player_id": "p1", "score": 1, "metadata": {{"x": {number}}}}}]}}'
    status, body, _ = call("POST", "/leaderboards/meta/scores/bulk", body=bulk)
    assert status == 200 and body["results"][0]["status"] == 400
    assert _entry_items(ddb, "p1") == []


def test_metadata_numbers_a_double_holds_are_kept(ddb):
    create("meta")
    meta = {"max": 2**53 - 1, "min": -(2**53 - 1), "big": 1.7e308, "tiny": 5e-324, "flag": True}
    assert post("meta", "p1", 1, metadata=meta)[0] == 200
    assert top("meta").body["entries"][0]["metadata"] == meta


# --- dates: the years periods name, and a period's status ----------------------------------------


@pytest.mark.parametrize(
    "starts_at, ends_at",
    [
        ("2026-12-01T18:00:00Z", "9999-12-31T00:00:00Z"),  # accepted, then every submission was a 500
        ("0999-06-01T00:00:00Z", "2026-12-01T00:00:00Z"),  # stored as "999-06-01...", which its parser refused
        ("0000-00-00T00:00:00Z", "2026-12-01T00:00:00Z"),  # no time at all
        ("1999-12-31T23:59:59Z", "2026-12-01T00:00:00Z"),
        ("2026-12-01T00:00:00Z", "3000-01-01T00:00:00Z"),
        ("2026-02-30T00:00:00Z", "2026-12-01T00:00:00Z"),
        ("2026-13-01T00:00:00Z", "2026-12-01T00:00:00Z"),
        ("2026-12-01T24:00:00Z", "2026-12-02T00:00:00Z"),
        ("2026-12-01T23:59:60Z", "2026-12-02T00:00:00Z"),
    ],
)
def test_tournament_times_outside_2000_to_2999_or_not_real_are_refused(ddb, starts_at, ends_at):
    status, body, _ = create("cup", starts_at=starts_at, ends_at=ends_at)
    # 2026-02-30 is of the document's pattern (422: a rule it says in words); the others are not (400)
    assert (
        status == (422 if starts_at == "2026-02-30T00:00:00Z" else 400)
        and "ISO 8601 UTC time" in body["error"]
        and "2000-2999" in body["error"]
    ), body
    assert call("GET", "/leaderboards/cup", check_contract=False).status == 404


def test_the_last_years_still_take_scores(ddb):
    """The latest end the API accepts plus the retention is a time Python holds: no OverflowError."""
    assert create("long", starts_at="2000-01-01T00:00:00Z", ends_at="2999-12-31T23:59:59.999Z")[0] == 201
    assert post("long", "p1", 5)[0] == 200


def test_a_board_stored_before_the_limit_takes_scores_without_a_500(ddb):
    """A board created with ends_at in 9999 before this release: its entries are kept (no TTL), not a 500."""
    from cdk_leaderboard_lambda.domain import periods

    assert periods.expires_at(periods.tournament(datetime(9999, 12, 31, tzinfo=UTC)), 30) is None


@pytest.mark.parametrize(
    "period, status",
    [("daily-2000-01-01", "ended"), ("weekly-2001-W01", "ended"), ("daily-2999-12-31", "upcoming"), ("daily", "open")],
)
def test_a_period_is_open_only_while_now_is_inside_it(ddb, period, status):
    create("days", periods=["all-time", "daily", "weekly"])
    reply = call("GET", f"/leaderboards/days/periods/{period}")
    assert reply.status == 200 and reply.body["status"] == status, reply.body


def test_a_tournament_before_its_start_and_after_its_end_is_not_open(ddb):
    now = datetime.now(UTC)
    for board, start, end, status in [
        ("soon", now + timedelta(hours=1), now + timedelta(hours=2), "upcoming"),
        ("running", now - timedelta(hours=1), now + timedelta(hours=1), "open"),
        ("over", now - timedelta(hours=2), now - timedelta(hours=1), "ended"),  # not closed yet
    ]:
        assert create(board, starts_at=iso(start), ends_at=iso(end))[0] == 201
        assert call("GET", f"/leaderboards/{board}/periods/tournament").body["status"] == status
        assert [p["status"] for p in call("GET", f"/leaderboards/{board}/periods").body["periods"]] == [status]


# --- the per-player limit counts only what is taken ------------------------------------------


def _submissions_counted(ddb, player_id: str) -> int:
    items = [
        i
        for i in scan(ddb, invocation.settings().scores_table)
        if i["player_id"]["S"] == item_keys.rate_partition(invocation.runtime().digest_key.value(), player_id)
    ]
    return sum(int(i["submissions"]["N"]) for i in items)


def test_refused_submissions_do_not_use_up_the_per_player_limit(ddb):
    create("capped", periods=["all-time"], max_score=100, max_submissions_per_minute=5)
    for _ in range(5):
        assert post("capped", "ada", 1000)[0] == 422  # over the board's max_score
    assert _submissions_counted(ddb, "ada") == 0
    assert post("capped", "ada", 10)[0] == 200
    assert _submissions_counted(ddb, "ada") == 1
    bulk = call("POST", "/leaderboards/capped/scores/bulk", body={"entries": [{"player_id": "ada", "score": 1000}] * 6})
    assert [r["status"] for r in bulk.body["results"]] == [422] * 6
    assert _submissions_counted(ddb, "ada") == 1


def test_a_submission_refused_after_reading_is_given_back(ddb):
    """An increment that would leave the bounds is refused once the stored total is read: counted, then uncounted."""
    create("sum", periods=["all-time"], operator="increment", max_score=10, max_submissions_per_minute=3)
    assert post("sum", "ada", 8)[0] == 200
    for _ in range(3):
        assert post("sum", "ada", 5)[0] == 422  # 13 > 10: the board's bounds
    assert _submissions_counted(ddb, "ada") == 1
    bulk = call("POST", "/leaderboards/sum/scores/bulk", body={"entries": [{"player_id": "ada", "score": 5}]})
    assert bulk.body["results"][0]["status"] == 422
    assert _submissions_counted(ddb, "ada") == 1
    assert post("sum", "ada", 2)[0] == 200 and _submissions_counted(ddb, "ada") == 2


def test_a_whole_bulk_outside_a_tournament_is_409_and_counts_nothing(ddb):
    now = datetime.now(UTC)
    start, end = iso(now + timedelta(hours=1)), iso(now + timedelta(hours=2))
    create("later", starts_at=start, ends_at=end, max_submissions_per_minute=2)
    for _ in range(3):
        assert post("later", "ada", 1)[0] == 409
    bulk = {"entries": [{"player_id": "ada", "score": 1}]}
    assert call("POST", "/leaderboards/later/scores/bulk", body=bulk).status == 409
    assert _submissions_counted(ddb, "ada") == 0
