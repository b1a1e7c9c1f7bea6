"""Live updates under moto: the WebSocket routes' handler (validation, connection bookkeeping, limits) and the
broadcaster's decisions (who gets a push, once a second, nothing when the top is unchanged)."""

from __future__ import annotations

import json

import pytest

from leaderboard import boards, broadcasting, limits, routes, schema
from leaderboard.data import connections
from leaderboard.handlers import live_connections


def event(route: str, connection_id: str = "conn-1=", body: object = None) -> dict:
    e = {"requestContext": {"routeKey": route, "connectionId": connection_id, "eventType": "MESSAGE"}}
    if body is not None:
        e["body"] = body if isinstance(body, str) else json.dumps(body)
    return e


def call(route: str, body: object = None, connection_id: str = "conn-1=") -> tuple[int, dict | None]:
    answer = live_connections.handler(event(route, connection_id, body))
    return answer["statusCode"], json.loads(answer["body"]) if "body" in answer else None


def items(ddb) -> list[dict]:
    table = next(t for t in ddb.list_tables()["TableNames"] if "Connections" in t)
    return ddb.scan(TableName=table)["Items"]


@pytest.fixture
def connected(ddb):
    assert call(routes.LIVE_CONNECT) == (200, None)
    return ddb


def test_connect_stores_the_connection_with_an_expiry(connected):
    (item,) = items(connected)
    assert item["item"]["S"] == connections.CONNECTION_ITEM
    assert int(item[schema.TTL_ATTRIBUTE]["N"]) > int(item["connected_at"]["N"]) // 1000 + 2 * 3600


def test_subscribe_answers_the_top_and_stores_one_subscription(connected):
    status, top = call("subscribe", {"action": "subscribe", "board": "global", "period": "daily"})
    assert status == 200
    assert top["type"] == "top" and top["board"] == "global" and top["period"] == "daily"
    assert top["period_id"].startswith("daily-") and top["entries"] == []
    subscription = [i for i in items(connected) if "topic" in i]
    assert [i["topic"]["S"] for i in subscription] == ["global#daily"]
    assert connections.subscribers("global#daily") == ["conn-1="]


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ({"action": "subscribe", "board": "nope"}, 404, "no leaderboard nope"),
        ({"action": "subscribe", "board": "Nope!"}, 400, "board must be"),
        ({"action": "subscribe"}, 400, "board must be"),
        ({"action": "subscribe", "board": "global", "period": "monthly"}, 404, "keeps no monthly period"),
        ({"action": "subscribe", "board": "global", "period": 7}, 400, "period must be a string"),
        ({"action": "subscribe", "board": "global", "x": 1}, 400, "unknown field(s): x"),
        ({"action": "hello"}, 400, "unknown action 'hello'"),
        # echoed in an error, a lone surrogate would make the answer unreadable to strict clients
        ('{"action": "\\ud800"}', 400, "message.action holds a lone surrogate"),
        ('{"\\udc00": 1}', 400, "lone surrogate"),
        ([1, 2], 400, "a message is a JSON object"),
        ("{", 400, "not valid JSON"),
        ('{"action": "subscribe", "board": "global", "period": NaN}', 400, "not valid JSON"),
        ({"action": "subscribe", "board": "global", "period": "p" * 1100}, 400, "at most 1024 bytes"),
    ],
)
def test_bad_messages_answer_a_clear_error_and_store_nothing(connected, body, status, says):
    route = body.get("action") if isinstance(body, dict) and body.get("action") in limits.LIVE_ACTIONS else "$default"
    before = items(connected)
    answer_status, answer = call(route, body)
    assert answer_status == status
    assert answer["type"] == "error" and answer["status"] == status and says in answer["error"], answer
    assert items(connected) == before


def test_a_message_without_a_body_is_refused(connected):
    assert call("$default")[1]["error"].startswith("a message is a JSON object")


def test_at_most_ten_subscriptions_per_connection_and_resubscribing_is_free(connected):
    for day in range(1, limits.MAX_SUBSCRIPTIONS_PER_CONNECTION + 1):
        status, _ = call("subscribe", {"action": "subscribe", "board": "global", "period": f"daily-2026-01-{day:02d}"})
        assert status == 200
    status, answer = call("subscribe", {"action": "subscribe", "board": "global", "period": "daily-2026-02-01"})
    assert status == 429 and "at most 10" in answer["error"]
    assert call("subscribe", {"action": "subscribe", "board": "global", "period": "daily-2026-01-01"})[0] == 200
    assert len([i for i in items(connected) if "topic" in i]) == 10
    # unsubscribing makes room again
    assert call("unsubscribe", {"action": "unsubscribe", "board": "global", "period": "daily-2026-01-01"}) == (
        200,
        {"type": "unsubscribed", "board": "global", "period": "daily-2026-01-01"},
    )
    assert call("subscribe", {"action": "subscribe", "board": "global", "period": "daily-2026-02-01"})[0] == 200


def test_a_subscribe_from_a_connection_never_connected_stores_nothing(ddb):
    status, answer = call("subscribe", {"action": "subscribe", "board": "global"}, connection_id="ghost=")
    assert status == 429 and items(ddb) == []


def test_disconnect_removes_the_connection_and_its_subscriptions(connected):
    call("subscribe", {"action": "subscribe", "board": "global"})
    call("subscribe", {"action": "subscribe", "board": "global", "period": "weekly"})
    assert len(items(connected)) == 3
    assert call(routes.LIVE_DISCONNECT) == (200, None)
    assert items(connected) == []
    assert connections.subscribers("global#all-time") == []


def test_unsubscribe_of_a_deleted_board_still_works(connected):
    status, answer = call("unsubscribe", {"action": "unsubscribe", "board": "gone-board", "period": "weekly"})
    assert (status, answer) == (200, {"type": "unsubscribed", "board": "gone-board", "period": "weekly"})
    status, answer = call("unsubscribe", {"action": "unsubscribe", "board": "gone-board", "period": "yearly"})
    assert status == 404


def test_a_change_of_a_board_period_nobody_follows_reads_nothing_but_the_index(connected, monkeypatch):
    reads = []
    monkeypatch.setattr(broadcasting.live, "read_top", lambda *a, **k: reads.append(a))
    record = {"dynamodb": {"Keys": {"player_id": {"S": "p-1"}, "leaderboard_id": {"S": "all-time"}}}}
    stats = broadcasting.apply([record])
    assert stats.board_periods == 1 and stats.pushes == 0 and reads == []


def test_the_topics_of_a_change_are_its_period_and_its_kind_while_current():
    from datetime import UTC, datetime

    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    config = boards.DEFAULT_BOARD
    assert broadcasting._topics(config, "daily-2026-11-30", now) == ["global#daily-2026-11-30", "global#daily"]
    assert broadcasting._topics(config, "daily-2026-11-29", now) == ["global#daily-2026-11-29"]
    assert broadcasting._topics(config, "all-time", now) == ["global#all-time"]


def test_a_top_read_reflects_the_table_only_when_it_shows_the_changed_entries():
    config = boards.DEFAULT_BOARD
    top = [{"player_id": f"p{i}", "score": 100 - i} for i in range(limits.LIVE_TOP)]
    shown = {e["player_id"]: e["score"] for e in top}
    assert broadcasting._reflects(config, top, shown, {"p0": {"score": 100}}, set())
    assert not broadcasting._reflects(config, top, shown, {"p0": {"score": 150}}, set())  # index still old
    assert not broadcasting._reflects(config, top, shown, {"new": {"score": 200}}, set())  # not shown yet
    assert broadcasting._reflects(config, top, shown, {"low": {"score": 1}}, set())  # below the top: fine
    assert not broadcasting._reflects(config, top, shown, {}, {"p3"})  # deleted but still shown
    assert not broadcasting._reflects(config, top[:3], dict(list(shown.items())[:3]), {"low": {"score": 1}}, set())


def test_pushes_are_claimed_once_per_state_read(connected):
    assert connections.claim_send("global#all-time", None, 1000, "a", 2_000_000_000)
    assert not connections.claim_send("global#all-time", None, 1500, "b", 2_000_000_000)  # someone pushed
    assert connections.claim_send("global#all-time", 1000, 2000, "b", 2_000_000_000)
    assert not connections.claim_send("global#all-time", 1000, 2500, "c", 2_000_000_000)  # stale read
    assert connections.last_sent("global#all-time")["digest"] == "b"
