"""The hash-chained log through the handlers (moto, the settable clock): every accepted change of an entry appends
one record from the stream (the rank-counter function's batches), a retried batch appends nothing twice, concurrent
appenders leave a gap-free chain, erasure deletes the player's key, and GET .../periods/{period_id}/log pages.

The records are checked against the spec by hand (hashlib, hmac, json): not with the code's own helpers."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from datetime import UTC, datetime

import pytest

from cdk_leaderboard_lambda.composition import Runtime
from cdk_leaderboard_lambda.data.chain import MemoryChain
from cdk_leaderboard_lambda.data.stream_changes import entry_changes
from cdk_leaderboard_lambda.operations import chain_appending
from cdk_leaderboard_lambda.shared.attribute_values import to_item
from local import invocation
from tests.support.lambda_api import call, create_board, submit

T0 = datetime(2026, 12, 2, 3, 0, 0, tzinfo=UTC)


def log(board: str, period: str = "all-time", **query) -> list[dict]:
    """Every record of the period's log, a page at a time (each page checked against the OpenAPI document)."""
    found, cursor = [], None
    while True:
        reply = call(
            "GET",
            f"/leaderboards/{board}/periods/{period}/log",
            query={**query, **({"cursor": cursor} if cursor else {})},
        )
        assert reply.status == 200, reply.body
        found += reply.body["records"]
        cursor = reply.body.get("next_cursor")
        if cursor is None:
            return found


def canonical(value: dict) -> bytes:
    """RFC 8785 for what a record holds (ASCII keys, strings, integers, null): sorted keys, no spaces."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def assert_chained(records: list[dict]) -> None:
    assert [r["seq"] for r in records] == list(range(1, len(records) + 1))
    previous = "0" * 64
    for r in records:
        assert set(r) == {"seq", "at", "kind", "score", "player", "prev_hash", "hash"}
        assert r["prev_hash"] == previous
        assert r["hash"] == hashlib.sha256(canonical({k: v for k, v in r.items() if k != "hash"})).hexdigest()
        previous = r["hash"]


def key_of(player_id: str) -> bytes:
    return invocation.runtime().chain.player_keys([player_id], int(invocation.seconds()))[player_id]


def commitment(player_id: str, board: str, period: str = "all-time") -> str:
    from cdk_leaderboard_lambda.operations import board_catalog

    evidence = board_catalog.get_board(
        invocation.runtime(), board
    ).evidence_id  # the board id with its generation (item_keys.py)
    message = f"{evidence}\n{period}\n{player_id}".encode()
    return hmac.new(key_of(player_id), message, hashlib.sha256).hexdigest()


def test_every_kind_of_accepted_change_appends_one_record(ddb, clock, settle):
    clock.set(T0)
    assert create_board("cup", periods=["all-time"]).status == 201
    assert submit("cup", "ada", 10).status == 200
    clock.advance(1)
    assert submit("cup", "bo", 20).status == 200
    clock.advance(1)
    assert submit("cup", "ada", 15).status == 200
    assert submit("cup", "ada", 12).status == 200  # no better: no change, no record
    settle()
    assert call("PUT", "/leaderboards/cup/players/ada/hidden").status == 200
    settle()
    clock.advance(1)
    assert call("DELETE", "/leaderboards/cup/players/ada/hidden").status == 200
    settle()
    assert call("DELETE", "/leaderboards/cup/players/bo").status == 200
    settle()
    records = log("cup")
    assert_chained(records)
    ada, bo = commitment("ada", "cup"), commitment("bo", "cup")
    assert [(r["kind"], r["score"], r["player"]) for r in records] == [
        ("score", 10, ada),
        ("score", 20, bo),
        ("score", 15, ada),
        ("hide", 15, ada),
        ("show", 15, ada),
        ("remove", 20, bo),
    ]
    # score records carry the time the entry reached its score; the others the time the log took the change in
    assert [r["at"] for r in records[:3]] == [
        "2026-12-02T03:00:00.000Z",
        "2026-12-02T03:00:01.000Z",
        "2026-12-02T03:00:02.000Z",
    ]
    assert records[4]["at"] == "2026-12-02T03:00:03.000Z"
    settle()  # nothing new in the stream: nothing appended
    assert len(log("cup")) == 6


def test_a_player_hidden_before_their_first_score_is_logged_hidden(ddb, clock, settle):
    """Their entry is made hidden: without a hide record a replay of the log would count them, and a closing summary
    (which leaves them out) could never be signed against it. The hide comes first: before, the score
    came first, and a replay up to it counted the hidden player for one record."""
    clock.set(T0)
    assert create_board("veiled", periods=["all-time"]).status == 201
    assert call("PUT", "/leaderboards/veiled/players/ada/hidden").status == 200
    assert submit("veiled", "ada", 10).status == 200
    assert submit("veiled", "bo", 5).status == 200
    settle()
    records = log("veiled")
    assert_chained(records)
    ada, bo = commitment("ada", "veiled"), commitment("bo", "veiled")
    assert [(r["kind"], r["score"], r["player"]) for r in records] == [
        ("hide", 10, ada),
        ("score", 10, ada),
        ("score", 5, bo),
    ]


def test_each_period_of_a_board_has_its_own_chain_and_commitment(ddb, clock, settle):
    clock.set(T0)
    assert create_board("lap", periods=["all-time", "daily"]).status == 201
    assert submit("lap", "ada", 7).status == 200
    settle()
    daily, forever = log("lap", "daily-2026-12-02"), log("lap", "all-time")
    assert len(daily) == len(forever) == 1
    assert daily[0]["player"] == commitment("ada", "lap", "daily-2026-12-02") != forever[0]["player"]
    assert log("lap", "daily") == daily  # an alias: the current period
    assert log("lap", "daily-2026-12-01") == []


def test_an_approved_quarantined_score_is_an_approve_record_at_its_submission_time(ddb, clock, settle):
    clock.set(T0)
    rules = {"max_score": {"value": 1000, "action": "quarantine"}}
    assert create_board("q", periods=["all-time"], rules=rules).status == 201
    held = submit("q", "cy", 5000)
    assert held.status == 202, held.body
    settle()
    assert log("q") == []  # held back: no change of the standings
    clock.advance(60)
    approved = call("POST", f"/leaderboards/q/pending/{held.body['pending_id']}/approve")
    assert approved.status == 200, approved.body
    settle()
    (record,) = log("q")
    assert (record["kind"], record["score"], record["at"]) == ("approve", 5000, "2026-12-02T03:00:00.000Z")
    assert record["player"] == commitment("cy", "q")


def test_a_hidden_players_first_approval_is_logged_hidden_from_its_first_record(ddb, clock, settle):
    """No prefix of the log counts a hidden player: replayed to any record, the standings leave them out."""
    clock.set(T0)
    rules = {"max_score": {"value": 1000, "action": "quarantine"}}
    assert create_board("qh", periods=["all-time"], rules=rules).status == 201
    assert call("PUT", "/leaderboards/qh/players/cy/hidden").status == 200
    held = submit("qh", "cy", 5000)
    assert held.status == 202, held.body
    clock.advance(60)
    assert call("POST", f"/leaderboards/qh/pending/{held.body['pending_id']}/approve").status == 200
    settle()
    records = log("qh")
    assert_chained(records)
    assert [(r["kind"], r["score"], r["player"]) for r in records] == [
        ("hide", 5000, commitment("cy", "qh")),
        ("approve", 5000, commitment("cy", "qh")),
    ]


def test_erasure_appends_erase_records_and_deletes_the_player_s_key(ddb, clock, settle):
    from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS

    clock.set(T0)
    assert create_board("era", periods=["all-time", "weekly"]).status == 201
    assert submit("era", "erin", 30).status == 200
    assert submit("era", "bo", 20).status == 200
    settle()
    erin = commitment("erin", "era")
    assert call("DELETE", "/players/erin").status == 202
    clock.advance(FENCE_SECONDS)
    assert call("DELETE", "/players/erin").status == 200
    settle()
    for period in ("all-time", "weekly-2026-W49"):
        records = log("era", period)
        assert_chained(records)
        assert [r["kind"] for r in records] == ["score", "score", "erase"]
        assert records[2]["score"] == 30 and records[2]["player"] == records[0]["player"]
    assert log("era")[0]["player"] == erin
    # the key is gone: no item names erin, and a new key would give another commitment
    items = invocation.runtime().dynamodb.scan(TableName=invocation.settings().scores_table)["Items"]
    assert [i for i in items if "erin" in json.dumps(i)] == []
    assert invocation.runtime().chain.player_keys(["erin"], int(invocation.seconds())) == {}  # for a while, none


def stream_record(event_id: str, player: str, partition: str, old: dict | None, new: dict | None) -> dict:
    """A scores-table stream record as Lambda delivers it."""
    keys = {"player_id": player, "leaderboard_id": partition}
    change: dict = {"Keys": to_item(keys)}
    if old is not None:
        change["OldImage"] = to_item({**keys, **old})
    if new is not None:
        change["NewImage"] = to_item({**keys, **new})
    name = "INSERT" if old is None else "REMOVE" if new is None else "MODIFY"
    return {"eventID": event_id, "eventName": name, "dynamodb": change}


def entry(score: int, reached_ms: int, **more) -> dict:
    return {"score": score, "reached_at": reached_ms, "rank_key": f"{score:016d}#{reached_ms:013d}#x", **more}


@pytest.fixture
def in_memory(clock):
    """The test's runtime with the log's store in memory."""
    current = invocation.runtime()
    with invocation.serving(Runtime.build(current.settings, clock, current.dynamodb, chain=MemoryChain())) as r:
        yield r


def test_a_retried_or_bisected_batch_appends_nothing_twice(in_memory):
    batch = [stream_record(f"e{i}", f"p{i}", "race#all-time", None, entry(100 + i, 1000 + i)) for i in range(5)]
    first = chain_appending.append(in_memory, entry_changes(batch))
    assert (first.appended, first.skipped) == (5, 0)
    again = chain_appending.append(in_memory, entry_changes(batch))  # Lambda retries the whole batch
    assert (again.appended, again.skipped) == (0, 5)
    halves = (
        chain_appending.append(in_memory, entry_changes(batch[:2])),
        chain_appending.append(
            in_memory, entry_changes(batch[2:] + [stream_record("e9", "p9", "race#all-time", None, entry(1, 1))])
        ),
    )
    assert [h.appended for h in halves] == [0, 1]
    records, _ = in_memory.chain.page("race", "all-time", 0, 100)
    assert [r["score"] for r in records] == [100, 101, 102, 103, 104, 1]
    assert_chained(records)


def test_what_is_not_a_change_of_the_standings_appends_nothing(in_memory):
    ttl = {"type": "Service", "principalId": "dynamodb.amazonaws.com"}
    batch = [
        stream_record("a", "p", "race#all-time", entry(5, 1), entry(5, 1, player_name="New name")),  # a rename
        {**stream_record("b", "p", "race#all-time", entry(5, 1), None), "userIdentity": ttl},  # a period expiring
        stream_record("c", "p", "race#all-time", {"erasing": 9}, {"erasing": 12}),  # a fence raised again
        stream_record("d", "p", "race#all-time", {"erasing": 9}, None),  # a fence lifted
        stream_record("e", "#buckets#race#all-time", "0", None, {"count": 3}),  # not an entry
    ]
    assert chain_appending.append(in_memory, entry_changes(batch)).changes == 0
    assert in_memory.chain.log_head("race", "all-time") is None


def test_concurrent_batches_give_a_gap_free_chain_with_one_record_per_change(in_memory):
    """Eight consumers (shards x parallelization factor) at once on one board period, each batch delivered twice
    (a retry racing the first attempt): 8 x 10 changes, 80 records, seq 1..80, linked."""
    batches = [
        [stream_record(f"b{b}-{i}", f"p{b}-{i}", "race#all-time", None, entry(i, 1000 * b + i)) for i in range(10)]
        for b in range(8)
    ]
    threads = [
        threading.Thread(target=chain_appending.append, args=(in_memory, entry_changes(batch)))
        for batch in batches + batches
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records, more = in_memory.chain.page("race", "all-time", 0, 100)
    assert not more and len(records) == 80
    assert_chained(records)
    assert len({r["player"] for r in records}) == 80


def test_the_log_route_pages_and_refuses_what_it_cannot_answer(ddb, clock, settle):
    clock.set(T0)
    assert create_board("pg", periods=["all-time"]).status == 201
    for n in range(7):
        assert submit("pg", f"p{n}", n).status == 200
    settle()
    first = call("GET", "/leaderboards/pg/periods/all-time/log", query={"limit": "3"})
    assert first.status == 200 and [r["seq"] for r in first.body["records"]] == [1, 2, 3]
    assert "no-store" in first.headers["Cache-Control"]
    assert [r["seq"] for r in log("pg", limit="3")] == list(range(1, 8))
    last = call("GET", "/leaderboards/pg/periods/all-time/log", query={"limit": "7"})
    assert len(last.body["records"]) == 7 and "next_cursor" not in last.body
    other = call("GET", "/leaderboards/pg/periods/daily-2026-12-02/log", query={"cursor": first.body["next_cursor"]})
    assert other.status in (422, 404)  # another period's cursor (this board keeps no daily periods: 404)
    for query in ({"limit": "0"}, {"limit": "101"}, {"cursor": "nope"}):
        reply = call("GET", "/leaderboards/pg/periods/all-time/log", query=query, check_contract=False)
        assert reply.status == 400 and "error" in reply.body, (query, reply.body)
    assert call("GET", "/leaderboards/ghost/periods/all-time/log", check_contract=False).status == 404
