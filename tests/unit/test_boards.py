"""Many boards under moto: operators, orders, bounds, idempotency, bulk, pages, around-me, ranges."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from botocore.awsrequest import AWSResponse

from cdk_leaderboard_lambda.data import dynamo
from cdk_leaderboard_lambda.domain import boards
from cdk_leaderboard_lambda.domain.score_writes import Submission
from cdk_leaderboard_lambda.operations import board_catalog, submissions
from cdk_leaderboard_lambda.web.routes import ROUTES
from local import invocation
from tests.support.lambda_api import call, scan


def create(board_id, **fields):
    return call("POST", "/leaderboards", body={"board_id": board_id, **fields})[:2]


def post(board, player, score, headers=None, **extra):
    return call(
        "POST", f"/leaderboards/{board}/scores", body={"player_id": player, "score": score, **extra}, headers=headers
    )[:2]


def top(board, **query):
    return call("GET", f"/leaderboards/{board}/top", query={k: str(v) for k, v in query.items()})[:2]


def around(board, player, **query):
    return call("GET", f"/leaderboards/{board}/players/{player}", query={k: str(v) for k, v in query.items()})[:2]


def ids(page):
    return [e["player_id"] for e in page["entries"]]


def test_create_show_list_and_conflict(ddb):
    status, board = create("race", name="Race", order="asc", periods=["all-time", "monthly"])
    assert status == 201
    assert board["order"] == "asc" and board["operator"] == "best"
    assert [p["period"] for p in board["periods"]] == ["all-time", "monthly"]
    monthly = board["periods"][1]
    assert monthly["current"].startswith("monthly-") and monthly["next_reset"].endswith("T00:00:00Z")
    assert create("race")[0] == 409
    assert create("global")[0] == 409
    status, listing = call("GET", "/leaderboards")[:2]
    # global is built in; the dev stage declares speedrun in cdk.json.
    assert [b["board_id"] for b in listing["leaderboards"]] == ["global", "speedrun", "race"]
    status, shown = call("GET", "/leaderboards/race")[:2]
    assert status == 200 and shown["name"] == "Race"
    assert call("GET", "/leaderboards/nope")[:2][0] == 404


@pytest.mark.parametrize(
    "fields, fragment",
    [
        ({"board_id": "Bad Id"}, "board_id"),
        ({"board_id": "x", "order": "up"}, "order"),
        ({"board_id": "x", "operator": "max"}, "operator"),
        ({"board_id": "x", "periods": []}, "periods"),
        ({"board_id": "x", "periods": ["hourly"]}, "periods"),
        ({"board_id": "x", "periods": ["daily", "daily"]}, "periods"),
        ({"board_id": "x", "min_score": -1}, "min_score"),
        ({"board_id": "x", "colour": "red"}, "unknown field"),
    ],
)
def test_bad_board_definitions_are_400_and_store_nothing(ddb, fields, fragment):
    status, body = call("POST", "/leaderboards", body=fields)[:2]
    assert status == 400 and fragment in body["error"]
    assert scan(ddb, invocation.settings().scores_table) == []


def test_min_score_above_max_score_is_422_and_stores_nothing(ddb):
    """Both of the document's shape; the rule between them is in words (JSON Schema cannot compare two fields)."""
    status, body = call("POST", "/leaderboards", body={"board_id": "x", "min_score": 10, "max_score": 5})[:2]
    assert status == 422 and "min_score" in body["error"]
    assert scan(ddb, invocation.settings().scores_table) == []


def test_best_on_desc_and_asc_boards(ddb):
    create("high", periods=["all-time", "daily"])
    create("fast", order="asc")
    post("high", "a", 10)
    _, r = post("high", "a", 5)
    assert [(p["score"], p["changed"], p["rank"]) for p in r["periods"]] == [(10, False, 1), (10, False, 1)]
    post("fast", "a", 30)
    _, r = post("fast", "a", 20)
    assert r["periods"][0]["score"] == 20 and r["periods"][0]["changed"]
    _, r = post("fast", "a", 25)
    assert r["periods"][0]["score"] == 20 and not r["periods"][0]["changed"]
    post("fast", "b", 10)
    post("fast", "c", 40)
    _, page = top("fast")
    assert ids(page) == ["b", "a", "c"]
    assert [e["score"] for e in page["entries"]] == [10, 20, 40]


def test_latest_overwrites_even_with_a_worse_score(ddb):
    create("mood", operator="latest")
    post("mood", "a", 50)
    _, r = post("mood", "a", 7)
    assert r["periods"][0]["score"] == 7 and r["periods"][0]["changed"]
    _, r = post("mood", "a", 7)
    assert not r["periods"][0]["changed"]


def test_increment_adds_allows_negative_and_stays_in_bounds(ddb):
    create("coins", operator="increment", periods=["all-time", "daily"], max_score=100)
    post("coins", "a", 40)
    _, r = post("coins", "a", 35)
    assert [p["score"] for p in r["periods"]] == [75, 75]
    _, r = post("coins", "a", -25)
    assert [p["score"] for p in r["periods"]] == [50, 50]
    status, body = post("coins", "a", 60)  # would be 110 > max_score: the board's bounds, not the document's
    assert status == 422 and "nothing stored" in body["error"]
    status, body = post("coins", "a", -60)  # would be -10 < min_score
    assert status == 422
    _, me = around("coins", "a")
    assert me["score"] == 50


def test_scores_out_of_bounds_are_refused_and_stored_nowhere(ddb):
    create("capped", min_score=10, max_score=1000)
    for score in (9, 1001, -5):
        status, body = post("capped", "cheater", score)
        assert status == 422 and "between 10 and 1000" in body["error"]  # the board's own bounds
    assert [i for i in scan(ddb, invocation.settings().scores_table) if i["player_id"]["S"] == "cheater"] == []


def test_idempotency_key_makes_a_retry_a_no_op(ddb):
    create("coins", operator="increment")
    first = post("coins", "a", 10, headers={"Idempotency-Key": "abc-1"})
    again = post("coins", "a", 10, headers={"Idempotency-Key": "abc-1"})
    assert first == again and first[1]["periods"][0]["score"] == 10
    _, r = post("coins", "a", 10, headers={"Idempotency-Key": "abc-2"})
    assert r["periods"][0]["score"] == 20
    status, body = post("coins", "a", 99, headers={"Idempotency-Key": "abc-1"})
    assert status == 422 and "different request" in body["error"]
    status, _ = post("coins", "a", 1, headers={"Idempotency-Key": "bad key with spaces"})
    assert status == 400
    _, me = around("coins", "a")
    assert me["score"] == 20


def test_bulk_keeps_input_order_and_isolates_bad_entries(ddb):
    create("bulk")
    entries = [
        {"player_id": "a", "score": 5},
        {"player_id": "b", "score": "ten"},
        {"player_id": "c", "score": 7, "metadata": {"level": 3}},
        "not an object",
        {"player_id": "", "score": 1},
    ]
    status, body = call("POST", "/leaderboards/bulk/scores/bulk", body={"entries": entries})[:2]
    assert status == 200 and body["accepted"] == 2 and body["rejected"] == 3
    assert [r["index"] for r in body["results"]] == [0, 1, 2, 3, 4]
    assert [r["status"] for r in body["results"]] == [200, 400, 200, 400, 400]
    assert "integer" in body["results"][1]["error"]
    _, page = top("bulk")
    assert ids(page) == ["c", "a"] and page["entries"][0]["metadata"] == {"level": 3}
    for bad in ({"entries": []}, {"entries": [{}] * 501}, {"entries": "x"}):
        status, _ = call("POST", "/leaderboards/bulk/scores/bulk", body=bad)[:2]
        assert status == 400


def bulk(board, entries, headers=None):
    return call("POST", f"/leaderboards/{board}/scores/bulk", body={"entries": entries}, headers=headers)[:2]


def fail_transaction(client, n: int):
    """From now on, the n-th TransactWriteItems call fails as a throttled request does once boto3 has given up."""
    seen = []

    def before_call(model, **kwargs):
        if model.name == "TransactWriteItems":
            seen.append(1)
            if len(seen) == n:
                error = {"Code": "ProvisionedThroughputExceededException", "Message": "Rate exceeded"}
                return AWSResponse("https://dynamodb.test", 400, {}, None), {"Error": error}
        return None

    client.meta.events.register("before-call.dynamodb.TransactWriteItems", before_call, unique_id="fail-nth")
    return lambda: client.meta.events.unregister("before-call.dynamodb.TransactWriteItems", unique_id="fail-nth")


def test_a_bulk_retried_after_failing_part_way_applies_every_entry_exactly_once(ddb):
    """A bulk's chunks are separate transactions; when one fails (throttled past boto3's retries) the client
    retries with its Idempotency-Key, and entries written before the failure are not applied a second time."""
    create("clicks", operator="increment", periods=["all-time", "daily", "weekly"])
    entries = [{"player_id": f"p{i % 40:02d}", "score": 1} for i in range(120)]  # every player three times
    # 19 players a chunk (three periods): chunks 1-3 commit (the third starts the second entries), the 4th fails
    restore = fail_transaction(invocation.runtime().dynamodb, 4)
    try:
        status, body, _ = call(
            "POST",
            "/leaderboards/clicks/scores/bulk",
            body={"entries": entries},
            headers={"Idempotency-Key": "batch-7"},
        )
    finally:
        restore()
    assert status == 500 and body == {"error": "internal error"}
    assert sorted(e["score"] for e in top("clicks", limit=100)[1]["entries"])[-1] == 2  # part-way: some have 2
    status, body = bulk("clicks", entries, headers={"Idempotency-Key": "batch-7"})
    assert status == 200 and body["accepted"] == 120
    for period in ("all-time", "daily", "weekly"):
        _, page = top("clicks", period=period, limit=100)
        assert [e["score"] for e in page["entries"]] == [3] * 40, period


def test_cursor_pages_walk_the_whole_ranking_once(ddb):
    create("big", periods=["all-time", "daily"])
    for i in range(23):
        post("big", f"p{i:02d}", i)
    seen, ranks, cursor, pages = [], [], None, 0
    while True:
        query = {"limit": 5, **({"cursor": cursor} if cursor else {})}
        _, page = top("big", **query)
        pages += 1
        seen += ids(page)
        ranks += [e["rank"] for e in page["entries"]]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    assert pages == 5
    assert seen == [f"p{i:02d}" for i in range(22, -1, -1)]
    assert ranks == list(range(1, 24))
    status, body = top("big", cursor="garbage")
    assert status == 400 and "cursor" in body["error"]
    _, first = top("big", limit=5)
    status, _ = call("GET", "/leaderboards/big/top", query={"period": "daily", "cursor": first["next_cursor"]})[:2]
    assert status == 422  # a cursor belongs to one board period


def test_around_me_at_the_top_bottom_and_middle(ddb):
    create("ring", periods=["all-time"])
    for i in range(10):
        post("ring", f"p{i}", i * 10, metadata={"skin": f"s{i}"})
    _, best = around("ring", "p9", window=3)
    assert best["rank"] == 1 and best["above"] == [] and [e["player_id"] for e in best["below"]] == ["p8", "p7", "p6"]
    assert best["metadata"] == {"skin": "s9"} and best["total_players"] == 10 and best["percentile"] == 90.0
    _, worst = around("ring", "p0", window=3)
    assert worst["rank"] == 10 and worst["below"] == []
    assert [(e["rank"], e["player_id"]) for e in worst["above"]] == [(7, "p3"), (8, "p2"), (9, "p1")]
    _, mid = around("ring", "p5", window=2)
    assert [e["rank"] for e in mid["above"]] == [3, 4] and [e["rank"] for e in mid["below"]] == [6, 7]
    assert around("ring", "ghost")[0] == 404
    assert around("ring", "p1", window=51)[0] == 400


def test_ranks_agree_with_top_order_including_ties(ddb):
    create("ties")
    t0 = datetime(2026, 11, 30, 12, tzinfo=UTC)
    config = board_catalog.get_board(invocation.runtime(), "ties")
    for i, (player, score) in enumerate([("zed", 50), ("amy", 50), ("bob", 70), ("cat", 50)]):
        submissions.submit(invocation.runtime(), config, Submission(player, player, score), t0 + timedelta(seconds=i))
    _, page = top("ties")
    assert ids(page) == ["bob", "zed", "amy", "cat"]  # equal scores: first to reach them first
    for entry in page["entries"]:
        assert around("ties", entry["player_id"])[1]["rank"] == entry["rank"]


def test_score_range_best_first_with_ranks(ddb):
    for order in ("desc", "asc"):
        create(f"r-{order}", order=order)
        for i in range(10):
            post(f"r-{order}", f"p{i}", i * 10)
        status, page = call(
            "GET", f"/leaderboards/{f'r-{order}'}/range", query={"min_score": "20", "max_score": "50", "limit": "3"}
        )[:2]
        assert status == 200
        expected = [50, 40, 30, 20] if order == "desc" else [20, 30, 40, 50]
        assert [e["score"] for e in page["entries"]] == expected[:3]
        first_rank = 5 if order == "desc" else 3
        assert [e["rank"] for e in page["entries"]] == [first_rank, first_rank + 1, first_rank + 2]
        _, rest = call(
            "GET",
            f"/leaderboards/{f'r-{order}'}/range",
            query={"min_score": "20", "max_score": "50", "cursor": page["next_cursor"]},
        )[:2]
        assert [e["score"] for e in rest["entries"]] == expected[3:] and "next_cursor" not in rest
    status, body = call("GET", "/leaderboards/r-asc/range", query={"min_score": "50", "max_score": "20"})[:2]
    assert status == 422 and "min_score" in body["error"]  # both of the document's shape: the rule is in words


def test_past_periods_are_readable_by_id(ddb):
    create("weekly", periods=["daily", "weekly"])
    config = board_catalog.get_board(invocation.runtime(), "weekly")
    yesterday = datetime.now(UTC) - timedelta(days=1)
    submissions.submit(invocation.runtime(), config, Submission("old", "Old", 5), yesterday)
    post("weekly", "new", 9)
    day_id = f"daily-{yesterday.date().isoformat()}"
    _, page = top("weekly", period=day_id)
    assert ids(page) == ["old"] and page["period_id"] == day_id
    _, today = top("weekly", period="daily")
    assert ids(today) == ["new"]
    assert top("weekly", period="all-time")[0] == 404  # not a period this board keeps


def test_delete_removes_board_and_entries(ddb):
    create("gone", periods=["all-time", "daily"])
    for i in range(30):
        post("gone", f"p{i}", i)
    status, result = call("DELETE", "/leaderboards/gone")[:2]
    assert status == 200 and result["deleted_entries"] == 60
    left = [i for i in scan(ddb, invocation.settings().scores_table) if "gone" in i["leaderboard_id"]["S"]]
    assert [i["player_id"]["S"] for i in left] == ["#archives"]  # only the deleted generation's archive record
    assert top("gone")[0] == 404
    assert call("DELETE", "/leaderboards/gone")[:2][0] == 404
    assert call("DELETE", "/leaderboards/global")[:2][0] == 400


def test_large_board_deletes_in_steps(ddb):
    create("huge")
    config = board_catalog.get_board(invocation.runtime(), "huge")
    for i in range(12):
        submissions.submit(invocation.runtime(), config, Submission(f"p{i}", "x", i), invocation.now())
    done, result = board_catalog.delete_board(invocation.runtime(), "huge", budget=5)
    assert not done and result["status"] == "deleting"
    assert top("huge")[0] == 404  # gone for readers at once
    assert create("huge")[0] == 409  # the id is not reusable mid-purge
    while not done:
        done, result = board_catalog.delete_board(invocation.runtime(), "huge", budget=5)
    assert create("huge")[0] == 201


def test_declared_boards_exist_without_being_created(ddb, monkeypatch, reconfigure):
    monkeypatch.setenv("DECLARED_BOARDS", json.dumps([{"board_id": "lap", "order": "asc"}]))
    reconfigure()
    _, listing = call("GET", "/leaderboards")[:2]
    assert [b["board_id"] for b in listing["leaderboards"]] == ["global", "lap"]
    post("lap", "a", 99)
    post("lap", "b", 12)
    assert ids(top("lap")[1]) == ["b", "a"]
    assert create("lap")[0] == 409
    assert call("DELETE", "/leaderboards/lap")[:2][0] == 400


def test_default_board_is_reachable_through_the_new_routes(ddb):
    call("POST", "/scores", body={"player_id": "a", "score": 3})
    _, page = top("global")
    assert ids(page) == ["a"] and page["leaderboard_id"] == "all-time"
    assert boards.DEFAULT_BOARD.leaderboard_id("daily-2026-11-30") == "daily-2026-11-30"


def test_openapi_document_covers_every_route(ddb):
    status, doc = call("GET", "/openapi.json")[:2]
    assert status == 200 and doc["openapi"].startswith("3.")
    documented = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    assert documented == {(r.method, r.path) for r in ROUTES}
    for route in ROUTES:
        op = doc["paths"][route.path][route.method.lower()]
        assert ("security" in op) == route.authenticated


def count_requests(client):
    """DynamoDB requests made through `client` while the returned list is being filled: [operation, ...]."""
    made: list[str] = []
    client.meta.events.register("before-call.dynamodb.*", lambda model, **kw: made.append(model.name))
    return made


def test_a_page_walk_numbers_on_and_each_page_is_one_query_whatever_the_history(ddb):
    """A cursor continues after the last entry shown and numbers on from its rank. Each page is ONE Query of the
    index, however often the board's scores changed: a public read costs the same on a churned board."""
    create("live", operator="latest")
    for i in range(20):
        post("live", f"p{i:02d}", 100 + i)
    for churn in range(300):  # heavy churn: every player changes score 15 times
        post("live", f"p{churn % 20:02d}", 1000 + churn)
    for i in range(20):
        post("live", f"p{i:02d}", 100 + i)
    _, first = top("live", limit=5)  # reads the board's config once; it is cached after
    made = count_requests(invocation.runtime().dynamodb)
    walked, ranks, cursor = ids(first), [e["rank"] for e in first["entries"]], first["next_cursor"]
    while cursor:
        made.clear()
        _, page = top("live", limit=5, cursor=cursor)
        assert made == ["Query"]
        walked += ids(page)
        ranks += [e["rank"] for e in page["entries"]]
        cursor = page.get("next_cursor")
    assert walked == [f"p{i:02d}" for i in range(19, -1, -1)]
    assert ranks == list(range(1, 21))


def test_a_page_walk_shows_each_page_as_the_ranking_stands_when_it_is_read(ddb):
    """Keyset pages: a player who moves from an unread page onto a read one is not shown again, one who moves
    the other way is shown twice; ranks stay consecutive across pages."""
    create("moving")
    for i in range(10):
        post("moving", f"p{i}", 100 + i)
    _, first = top("moving", limit=5)
    assert ids(first) == ["p9", "p8", "p7", "p6", "p5"]
    post("moving", "p0", 500)  # from the unread page to the top
    _, second = top("moving", limit=5, cursor=first["next_cursor"])
    assert ids(second) == ["p4", "p3", "p2", "p1"]
    assert [e["rank"] for e in second["entries"]] == [6, 7, 8, 9]


def test_an_old_cursor_expires(ddb, monkeypatch, reconfigure):
    create("short")
    for i in range(3):
        post("short", f"p{i}", i)
    _, first = top("short", limit=1)
    monkeypatch.setenv("CURSOR_TTL_SECONDS", "0")
    reconfigure()
    status, body = top("short", limit=1, cursor=first["next_cursor"])
    assert status == 422 and "expired" in body["error"]


def _create(board_id):
    return call("POST", "/leaderboards", body={"board_id": board_id})


def _board_count() -> int | None:
    return invocation.runtime().boards.counted()


def _conflicting(monkeypatch, times: int) -> list[int]:
    """dynamo.transact cancelled by another transaction (TransactionConflict) `times` times, then the real one.
    DynamoDB Local serializes transactions and never shows the conflict; DynamoDB does under contention."""
    real, calls = dynamo.transact, []

    def transact(actions, *, on):
        calls.append(len(actions))
        if len(calls) <= times:
            raise dynamo.Cancelled(["None", "TransactionConflict"])
        return real(actions, on=on)

    monkeypatch.setattr(dynamo, "transact", transact)
    monkeypatch.setattr("cdk_leaderboard_lambda.data.boards.time.sleep", lambda s: None)
    return calls


def test_a_create_that_meets_a_transaction_conflict_is_retried_not_lost(ddb, monkeypatch):
    assert _create("counted").status == 201
    assert _board_count() == 1
    calls = _conflicting(monkeypatch, times=3)
    assert _create("retried").status == 201
    assert calls == [2, 2, 2, 2] and _board_count() == 2


def test_a_create_cancelled_every_time_answers_409_and_stores_nothing(ddb, monkeypatch):
    assert _create("counted").status == 201
    _conflicting(monkeypatch, times=100)
    reply = _create("never")
    assert reply.status == 409 and "nothing stored, retry" in reply.body["error"], reply.body
    monkeypatch.undo()
    assert call("GET", "/leaderboards/never").status == 404 and _board_count() == 1


def test_a_delete_cancelled_every_time_keeps_its_tombstone_and_finishes_when_called_again(ddb, monkeypatch):
    assert _create("gone").status == 201
    _conflicting(monkeypatch, times=100)
    reply = call("DELETE", "/leaderboards/gone")
    assert reply.status == 202 and reply.body["status"] == "deleting"
    monkeypatch.undo()
    assert call("GET", "/leaderboards/gone").status == 404 and _board_count() == 1  # not counted off yet
    assert call("DELETE", "/leaderboards/gone").status == 200 and _board_count() == 0


def test_the_cap_counts_boards_stored_before_the_count_item_existed(ddb, monkeypatch, reconfigure):
    from cdk_leaderboard_lambda.shared import item_keys

    monkeypatch.setenv("MAX_BOARDS", "2")
    reconfigure()
    assert _create("first").status == 201
    ddb.delete_item(
        TableName=invocation.settings().scores_table, Key=dynamo.key(*item_keys.BOARD_COUNT_KEY)
    )  # an old deployment
    assert _create("second").status == 201 and _board_count() == 2
    over = _create("third")
    assert over.status == 409 and "limit of 2 boards" in over.body["error"]
    ddb.delete_item(TableName=invocation.settings().scores_table, Key=dynamo.key(*item_keys.BOARD_COUNT_KEY))
    assert call("DELETE", "/leaderboards/first").status == 200 and _board_count() == 1  # counted, then uncounted
    assert _create("third").status == 201
    reconfigure()
