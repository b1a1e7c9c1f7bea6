"""The many-boards routes: create, list, show, delete, submit (single and bulk), top, range, around me."""

from __future__ import annotations

import pytest


@pytest.fixture
def laps(api, clean):
    """An ascending board (lower time wins) that keeps only the all-time period."""
    resp = api.post("/leaderboards", {"board_id": "laps", "name": "Laps", "order": "asc", "periods": ["all-time"]})
    assert resp.status_code == 201, resp.text
    return resp.json()


def test_create_list_show_and_delete_a_board(api, laps):
    """POST /leaderboards, GET /leaderboards, GET and DELETE /leaderboards/{board}."""
    assert (laps["board_id"], laps["order"]) == ("laps", "asc")
    listed = api.get("/leaderboards").json()["leaderboards"]
    assert {"global", "laps"} <= {b["board_id"] for b in listed}
    shown = api.get("/leaderboards/laps")
    assert shown.status_code == 200 and [p["period"] for p in shown.json()["periods"]] == ["all-time"]

    api.post("/leaderboards/laps/scores", {"player_id": "p", "score": 5})
    deleted = api.delete("/leaderboards/laps")
    assert deleted.status_code == 200, deleted.text
    assert api.get("/leaderboards/laps").status_code == 404
    assert "laps" not in {b["board_id"] for b in api.get("/leaderboards").json()["leaderboards"]}


def test_boards_declared_in_the_stack_props_exist_from_the_start(api, stack):
    """DECLARED_BOARDS reaches the handlers from the synthesized template, like on AWS."""
    import json

    declared = {b["board_id"] for b in json.loads(stack.env.get("DECLARED_BOARDS") or "[]")}
    listed = {b["board_id"] for b in api.get("/leaderboards").json()["leaderboards"]}
    assert declared | {"global"} <= listed
    for board_id in declared:
        assert api.get(f"/leaderboards/{board_id}").status_code == 200


def test_board_writes_need_the_key(api, laps):
    assert api.post("/leaderboards", {"board_id": "nokey", "name": "x"}, key=None).status_code == 403
    assert api.delete("/leaderboards/laps", key=None).status_code == 403
    assert api.post("/leaderboards/laps/scores", {"player_id": "p", "score": 1}, key=None).status_code == 403
    assert (
        api.post("/leaderboards/laps/scores/bulk", {"entries": [{"player_id": "p", "score": 1}]}, key="bad").status_code
        == 403
    )


def test_submit_to_an_ascending_board_keeps_the_lowest(api, laps):
    """POST /leaderboards/{board}/scores: 'best' on an ascending board is the lowest score."""
    assert api.post("/leaderboards/laps/scores", {"player_id": "ann", "score": 90}).status_code == 200
    better = api.post("/leaderboards/laps/scores", {"player_id": "ann", "score": 70}).json()
    worse = api.post("/leaderboards/laps/scores", {"player_id": "ann", "score": 80}).json()
    assert better["periods"][0]["score"] == 70 and worse["periods"][0]["score"] == 70
    assert api.post("/leaderboards/nope/scores", {"player_id": "ann", "score": 1}).status_code == 404


def test_bulk_submit_reports_each_entry(api, laps):
    """POST /leaderboards/{board}/scores/bulk: results in input order, bad entries rejected alone."""
    entries = [{"player_id": f"b{i}", "score": 100 + i} for i in range(20)] + [{"player_id": "bad id", "score": 1}]
    resp = api.post("/leaderboards/laps/scores/bulk", {"entries": entries})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["accepted"], body["rejected"]) == (20, 1)
    assert [r["index"] for r in body["results"]] == list(range(21)) and body["results"][-1]["status"] == 400
    assert api.post("/leaderboards/laps/scores/bulk", {"entries": []}).status_code == 400


def test_top_pages_through_the_whole_board_with_a_cursor(api, laps):
    """GET /leaderboards/{board}/top: pages in rank order, the cursor leads to the next page."""
    scores = {f"t{i:02d}": (i * 37) % 101 for i in range(45)}  # distinct
    api.post("/leaderboards/laps/scores/bulk", {"entries": [{"player_id": p, "score": s} for p, s in scores.items()]})
    seen, cursor = [], None
    while True:
        params = {"limit": 20, **({"cursor": cursor} if cursor else {})}
        page = api.get("/leaderboards/laps/top", params=params).json()
        seen += page["entries"]
        cursor = page.get("next_cursor")
        if not cursor:
            break
    assert [e["player_id"] for e in seen] == sorted(scores, key=scores.get)  # ascending board
    assert [e["rank"] for e in seen] == list(range(1, 46))


def test_range_returns_scores_within_bounds(api, laps):
    """GET /leaderboards/{board}/range?min_score&max_score (both required by the gateway)."""
    api.post(
        "/leaderboards/laps/scores/bulk", {"entries": [{"player_id": f"r{s}", "score": s} for s in range(0, 100, 10)]}
    )
    resp = api.get("/leaderboards/laps/range", params={"min_score": 25, "max_score": 60})
    assert resp.status_code == 200, resp.text
    assert [e["score"] for e in resp.json()["entries"]] == [30, 40, 50, 60]
    missing = api.get("/leaderboards/laps/range", params={"min_score": 1})
    assert missing.status_code == 400 and "max_score" in missing.json()["error"]


def test_player_on_a_board_with_the_entries_around_them(api, stack, laps):
    """GET /leaderboards/{board}/players/{player_id}: rank, percentile and neighbours (once counted)."""
    api.post("/leaderboards/laps/scores/bulk", {"entries": [{"player_id": f"n{i}", "score": i} for i in range(1, 11)]})
    stack.settle()
    resp = api.get("/leaderboards/laps/players/n5", params={"window": 2})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert (body["rank"], body["total_players"], body["score"]) == (5, 10, 5)
    assert [e["player_id"] for e in body["above"]] == ["n3", "n4"]
    assert [e["player_id"] for e in body["below"]] == ["n6", "n7"]
    assert api.get("/leaderboards/laps/players/nobody").status_code == 404


def test_the_default_board_is_also_addressable_as_global(api, clean):
    """POST /leaderboards/global/scores and GET /player read the same board."""
    assert api.post("/leaderboards/global/scores", {"player_id": "g", "score": 3}).status_code == 200
    assert api.get("/player", params={"player_id": "g"}).json()["boards"][0]["score"] == 3


def test_openapi_document_lists_every_route(api):
    """GET /openapi.json documents each path and method of the route table."""
    from cdk_leaderboard_lambda.web import routes

    resp = api.get("/openapi.json")
    assert resp.status_code == 200
    paths = resp.json()["paths"]
    for route in routes.ROUTES:
        assert route.method.lower() in paths[route.path], (route.method, route.path)


def _stored_boards(stack) -> tuple[int, int | None]:
    """(board items in the table, the count item's value), read strongly consistently from the engine."""
    from cdk_leaderboard_lambda.shared import item_keys, schema

    table = stack.runtime.settings.scores_table
    items = stack.ddb.query(
        TableName=table,
        KeyConditionExpression=f"{schema.SCORES_PARTITION_KEY} = :p",
        ExpressionAttributeValues={":p": {"S": item_keys.BOARDS_PARTITION}},
        Select="COUNT",
        ConsistentRead=True,
    )["Count"]
    p, s = item_keys.BOARD_COUNT_KEY
    count = stack.ddb.get_item(
        TableName=table,
        Key={schema.SCORES_PARTITION_KEY: {"S": p}, schema.SCORES_SORT_KEY: {"S": s}},
        ConsistentRead=True,
    ).get("Item")
    return items, (int(count["boards"]["N"]) if count else None)


@pytest.fixture
def cap_of_five(stack, clean):
    """max_boards = 5 for the handlers (the stack's functions, as a deployment with that setting)."""
    with stack.reconfigured(max_boards=5):
        yield 5


def test_concurrent_creates_never_pass_the_board_cap(api, stack, cap_of_five):
    """Before: the cap was counted, then the board put, so creates racing each other all passed the count (12
    at once with 3 boards stored under a cap of 5 stored up to 15). Now the put and the count's increment are one
    transaction: exactly the free places are taken, every other create gets the documented 409, nothing is lost.
    It starts from a deployment of before the count item (3 boards, no count): the first create counts them."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    for i in range(3):
        assert api.post("/leaderboards", {"board_id": f"cap-old{i}", "periods": ["all-time"]}).status_code == 201
    from cdk_leaderboard_lambda.shared import item_keys, schema

    p, s = item_keys.BOARD_COUNT_KEY  # as a deployment from before the count: boards, no count item
    stack.ddb.delete_item(
        TableName=stack.runtime.settings.scores_table,
        Key={schema.SCORES_PARTITION_KEY: {"S": p}, schema.SCORES_SORT_KEY: {"S": s}},
    )
    assert _stored_boards(stack) == (3, None)

    def race(names: list[str]) -> dict[str, object]:
        start = threading.Barrier(len(names))

        def create(name: str):
            start.wait()
            return api.post("/leaderboards", {"board_id": name, "periods": ["all-time"]})

        with ThreadPoolExecutor(len(names)) as pool:
            return dict(zip(names, pool.map(create, names), strict=True))

    replies = race([f"cap-new{i:02d}" for i in range(12)])
    created = sorted(n for n, r in replies.items() if r.status_code == 201)
    refused = [r for r in replies.values() if r.status_code != 201]
    assert len(created) == 2, {n: r.status_code for n, r in replies.items()}
    for reply in refused:  # every other one: the documented 409, nothing stored
        assert reply.status_code == 409, reply.text
        assert reply.json()["error"].startswith("this deployment holds its limit of 5 boards (max_boards)"), reply.text
    assert _stored_boards(stack) == (5, 5)
    listed = {b["board_id"] for b in api.get("/leaderboards?limit=100").json()["leaderboards"]}
    assert {n for n in replies if n not in created}.isdisjoint(listed) and set(created) <= listed

    # a deletion frees one place (its uncount is in the same transaction as the delete); the next race takes it
    assert api.delete(f"/leaderboards/{created[0]}").status_code == 200
    assert _stored_boards(stack) == (4, 4)
    again = race([f"cap-again{i}" for i in range(6)])
    assert sorted(r.status_code for r in again.values()) == [201] + [409] * 5
    assert _stored_boards(stack) == (5, 5)
