"""Players across boards over HTTP against DynamoDB Local: friends view and every board of a player equal a brute
force over what was submitted."""

from __future__ import annotations

import json
import random

import pytest

from cdk_leaderboard_lambda.shared import limits
from tests.support import clock
from tests.support.capacities import counter_capacities
from tests.support.erasure import erase, fence_lifted


@pytest.fixture
def tiny_counters(monkeypatch, stack):
    with counter_capacities(stack, bucket=4, band=3):
        yield


def _brute_force_ranks(best: dict[str, tuple[int, int]], descending: bool) -> dict[str, int]:
    """Rank by score (best first), then by who reached it first (submission order), as the API documents."""
    order = sorted(best, key=lambda p: ((-best[p][0] if descending else best[p][0]), best[p][1]))
    return {player: i + 1 for i, player in enumerate(order)}


@pytest.mark.parametrize("order, shards", [("desc", 1), ("asc", 2)])
def test_friends_order_and_ranks_equal_a_brute_force(api, stack, tiny_counters, order, shards):
    board = f"friends-{order}-{shards}"
    created = api.post("/leaderboards", {"board_id": board, "order": order, "periods": ["all-time"], "shards": shards})
    assert created.status_code == 201, created.text
    rng = random.Random(7 + shards)
    best: dict[str, tuple[int, int]] = {}  # player -> (best score, when it was first reached)
    for step in range(80):
        player, score = f"f{rng.randrange(40):02d}", rng.randrange(0, 30)
        reply = api.post(f"/leaderboards/{board}/scores", {"player_id": player, "score": score})
        assert reply.status_code == 200, reply.text
        old = best.get(player)
        if old is None or (score > old[0] if order == "desc" else score < old[0]):
            best[player] = (score, step)
    stack.settle()
    ranks = _brute_force_ranks(best, order == "desc")
    for _ in range(5):
        asked = rng.sample(sorted(best), 12) + ["not-here", "nobody"]
        rng.shuffle(asked)
        reply = api.get(f"/leaderboards/{board}/players", params={"ids": ",".join(asked)})
        assert reply.status_code == 200, reply.text
        got = [(e["player_id"], e["rank"], e["score"]) for e in reply.json()["entries"]]
        expected = sorted(((p, ranks[p], best[p][0]) for p in asked if p in best), key=lambda t: t[1])
        assert got == expected


def test_friends_more_than_the_limit_is_a_400(api):
    ids = ",".join(f"p{i}" for i in range(limits.MAX_FRIEND_IDS + 1))
    reply = api.get("/leaderboards/global/players", params={"ids": ids})
    assert reply.status_code == 400 and "at most" in reply.json()["error"]


def test_every_board_of_a_player_equals_each_boards_own_answer(api, stack):
    for board, fields in (("pb-race", {"order": "asc", "periods": ["all-time", "weekly"]}), ("pb-cash", {})):
        assert api.post("/leaderboards", {"board_id": board, **fields}).status_code == 201
    for board, player, score in (
        ("pb-race", "pb-ada", 61),
        ("pb-race", "pb-bob", 59),
        ("pb-cash", "pb-ada", 5),
        ("pb-cash", "pb-cy", 9),
    ):
        assert api.post(f"/leaderboards/{board}/scores", {"player_id": player, "score": score}).status_code == 200
    stack.settle()
    reply = api.get("/players/pb-ada/boards")
    assert reply.status_code == 200, reply.text
    rows = reply.json()["boards"]
    assert sorted((r["board_id"], r["period"]) for r in rows) == [
        ("pb-cash", "all-time"),
        ("pb-race", "all-time"),
        ("pb-race", "weekly"),
    ]
    for row in rows:
        own = api.get(f"/leaderboards/{row['board_id']}/players/pb-ada", params={"period": row["period_id"]}).json()
        assert (row["rank"], row["score"], row["total_players"], row["percentile"]) == (
            own["rank"],
            own["score"],
            own["total_players"],
            own["percentile"],
        )
    nobody = api.get("/players/pb-nobody/boards")  # no such player: 404, as the player's other reads
    assert nobody.status_code == 404 and nobody.json() == {"error": "no player pb-nobody on any board"}


def test_the_per_player_limit_answers_429_with_retry_after_and_writes_nothing(api, stack, table_state):
    created = api.post(
        "/leaderboards", {"board_id": "cap-minute", "periods": ["all-time"], "max_submissions_per_minute": 2}
    )
    assert created.status_code == 201, created.text
    clock.next_minute(stack)  # the window is the calendar minute (UTC): the three requests share a fresh one
    for score in (1, 2):
        assert api.post("/leaderboards/cap-minute/scores", {"player_id": "cap-ada", "score": score}).status_code == 200
    before = table_state()
    refused = api.post("/leaderboards/cap-minute/scores", {"player_id": "cap-ada", "score": 50})
    assert refused.status_code == 429, refused.text
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert table_state() == before  # refused: not even the player's counter changes
    top = api.get("/leaderboards/cap-minute/top").json()["entries"]
    assert [(e["player_id"], e["score"]) for e in top] == [("cap-ada", 2)]


def _items_of(stack, text: str) -> list[dict]:
    """Every item of every table that holds `text` anywhere in its JSON (a full scan)."""
    found = []
    for spec in stack.specs:
        for page in stack.ddb.get_paginator("scan").paginate(TableName=spec.local_name, ConsistentRead=True):
            found += [i for i in page["Items"] if text in json.dumps(i)]
    return found


def test_a_deleted_player_is_gone_from_the_board_with_counters_exact(api, stack):
    board = "mod-del"
    assert (
        api.post("/leaderboards", {"board_id": board, "periods": ["all-time", "daily"], "shards": 2}).status_code == 201
    )
    rng = random.Random(3)
    scores = {f"md{i:02d}": rng.randrange(100) for i in range(20)}
    for player, score in scores.items():
        assert api.post(f"/leaderboards/{board}/scores", {"player_id": player, "score": score}).status_code == 200
    stack.settle()
    gone = "md05"
    reply = api.delete(f"/leaderboards/{board}/players/{gone}")
    assert reply.status_code == 200 and reply.json()["deleted_entries"] == 2, reply.text
    # the game key is of the wrong class on admin routes: 403
    assert api.delete(f"/leaderboards/{board}/players/{gone}", key=api.key).status_code == 403
    stack.settle()
    assert _items_of(stack, f'"{gone}"') == []  # no entry, in any table, on any period or shard
    del scores[gone]
    expected = sorted(scores.items(), key=lambda kv: -kv[1])
    for period in ("all-time", "daily"):
        page = api.get(f"/leaderboards/{board}/top", params={"period": period, "limit": 100}).json()["entries"]
        assert [(e["player_id"], e["score"]) for e in page] == [
            (p, s) for p, s in sorted(expected, key=lambda kv: (-kv[1], int(kv[0][2:])))
        ]
        for entry in page:
            me = api.get(f"/leaderboards/{board}/players/{entry['player_id']}", params={"period": period}).json()
            assert (me["rank"], me["total_players"]) == (entry["rank"], len(scores))
    assert api.get(f"/leaderboards/{board}/players/{gone}").status_code == 404
    assert api.get(f"/leaderboards/{board}/players", params={"ids": gone}).json()["entries"] == []


def test_an_erased_player_is_in_no_item_and_no_response_with_counters_exact(api, stack, tiny_counters):
    assert api.post("/leaderboards", {"board_id": "er-a", "periods": ["all-time", "weekly"]}).status_code == 201
    assert api.post("/leaderboards", {"board_id": "er-b", "max_submissions_per_minute": 10}).status_code == 201
    for board in ("er-a", "er-b"):
        for player, score in (("er-gone", 50), ("er-stay", 40), ("er-gone2", 30)):
            reply = api.post(
                f"/leaderboards/{board}/scores",
                {"player_id": player, "score": score, "player_name": f"Name {player}"},
                headers={"Idempotency-Key": f"{board}-{player}"},
            )
            assert reply.status_code == 200, reply.text
    # enough players that the counters split: their ranges must not start at the erased player's rank key
    for i in range(12):
        reply = api.post("/leaderboards/er-a/scores", {"player_id": f"er-x{i}", "score": 45 - 3 * i})
        assert reply.status_code == 200
    assert api.post("/scores", {"player_id": "er-gone", "score": 10**12}).status_code == 200
    assert api.post("/snapshot", {"period": "all-time"}).status_code == 201
    assert api.put("/leaderboards/er-b/players/er-gone/hidden").status_code == 200  # a moderation decision names them
    stack.settle()
    # as a JSON string, or ending a rank key (entries, and ranges of the rank counters)
    assert _items_of(stack, 'er-gone"')
    counters = f"#buckets#er-a.{api.get('/leaderboards/er-a').json()['generation']}#all-time"  # its generation's
    buckets = [i for i in _items_of(stack, counters) if i["player_id"]["S"] == counters]
    assert len(buckets) > 2  # the counters split
    erasure = erase(api, "er-gone", stack)  # 202 while the entry places' fences stand, then "erased"
    stack.settle()
    assert _items_of(stack, 'Name er-gone"') == [] and _items_of(stack, 'er-gone"') == []
    fence_lifted(api, erasure, stack)  # the hashed fence that still refuses racing submissions goes too
    assert _items_of(stack, '"er-gone2"')  # a player whose id starts the same is untouched
    status = api.get(erasure["status_url"], headers={"x-api-key": api.admin_key})
    assert status.status_code == 200 and status.json()["status"] == "erased"
    responses = [
        api.get("/leaderboard?limit=100"),
        api.get("/snapshots?period=all-time"),
        api.get("/leaderboards/er-a/players", params={"ids": "er-gone,er-stay"}),
    ]
    for board in ("er-a", "er-b"):
        page = api.get(f"/leaderboards/{board}/top")
        responses.append(page)
        # brute force: the scores as submitted, in submission order for ties
        kept = [("er-stay", 40), ("er-gone2", 30)] + (
            [(f"er-x{i}", 45 - 3 * i) for i in range(12)] if board == "er-a" else []
        )
        expected = [p for p, _ in sorted(kept, key=lambda kv: -kv[1])]
        ranked = [e["player_id"] for e in api.get(f"/leaderboards/{board}/top?limit=100").json()["entries"]]
        assert ranked == expected
        for rank, player in enumerate(expected, start=1):
            me = api.get(f"/leaderboards/{board}/players/{player}").json()
            assert (me["rank"], me["total_players"]) == (rank, len(expected))
    assert all('"er-gone"' not in r.text for r in responses)
    snapshot = api.get("/snapshots?period=all-time").json()["snapshots"][0]["entries"]
    assert snapshot[0]["player_id"] == "erased" and snapshot[0]["score"] == 10**12
    assert api.get("/player?player_id=er-gone").status_code == 404
    assert api.get("/players/er-gone/boards").status_code == 404  # as /player: no such player any more


def _brute_force_view(api, board: str, period: str, best: dict[str, int], hidden: set[str]) -> None:
    """What others see equals the brute force over the players shown: the page and friends rank every one of them;
    the lookups of those whose window reaches where a hidden player would stand, and of the last (the total)."""
    shown = sorted((p for p in best if p not in hidden), key=lambda p: (-best[p], p))
    page = api.get(f"/leaderboards/{board}/top", params={"period": period, "limit": 100}).json()["entries"]
    assert [(e["player_id"], e["score"], e["rank"]) for e in page] == [
        (p, best[p], rank) for rank, p in enumerate(shown, start=1)
    ]
    window = 2
    would_stand = {sum(best[p] > best[h] for p in shown) for h in hidden if h in best}  # 0-based, among the shown
    near = {i for at in would_stand for i in range(at - window - 1, at + window + 1)} | {len(shown) - 1}
    for rank, player in enumerate(shown, start=1):
        if rank - 1 not in near:
            continue
        me = api.get(f"/leaderboards/{board}/players/{player}", params={"period": period, "window": window}).json()
        assert (me["rank"], me["total_players"], "hidden" in me) == (rank, len(shown), False)
        assert not {e["player_id"] for e in me["above"] + me["below"]} & hidden
    friends = api.get(f"/leaderboards/{board}/players", params={"period": period, "ids": ",".join(best)}).json()
    assert [e["player_id"] for e in friends["entries"]] == shown


def _hidden_lookup_agrees_with_top(api, board: str, period: str, best: dict, hidden: set, player: str) -> None:
    """A hidden player's own lookup: the rank they would have, and neighbours numbered as /top numbers them (the
    player is not on /top, so the first one below has the rank the player would have)."""
    shown = sorted((p for p in best if p not in hidden), key=lambda p: (-best[p], p))
    rank = 1 + sum(best[p] > best[player] for p in shown)
    for mode in ("unique", "competition"):  # distinct scores: the same numbers in both modes
        params = {"period": period, "window": 3, "rank_mode": mode}
        me = api.get(f"/leaderboards/{board}/players/{player}", params=params).json()
        assert (me["hidden"], me["rank"]) == (True, rank), me
        top = {
            e["player_id"]: e["rank"]
            for e in api.get(f"/leaderboards/{board}/top", params={**params, "limit": 100}).json()["entries"]
        }
        expected_above = [(p, top[p]) for p in shown[max(0, rank - 4) : rank - 1]]
        expected_below = [(p, top[p]) for p in shown[rank - 1 : rank + 2]]
        assert [(e["player_id"], e["rank"]) for e in me["above"]] == expected_above, mode
        assert [(e["player_id"], e["rank"]) for e in me["below"]] == expected_below, mode


@pytest.mark.parametrize("board", ["mod-hide", "global"])  # a created board (read, then write), the built-in one
def test_a_hidden_player_vanishes_from_others_views_and_comes_back_in_place(api, stack, clean, tiny_counters, board):
    """Distinct scores, so the order is the brute force's whatever the submission times."""
    if board != "global":
        created = api.post("/leaderboards", {"board_id": board, "periods": ["all-time", "daily"], "shards": 2})
        assert created.status_code == 201, created.text
    rng = random.Random(5)
    best = dict(zip((f"h{i:02d}" for i in range(16)), rng.sample(range(10, 1000), 16), strict=True))
    path = "/scores" if board == "global" else f"/leaderboards/{board}/scores"
    for player, score in best.items():
        assert api.post(path, {"player_id": player, "score": score}).status_code == 200
    cheat = max(best, key=best.get)  # the leader
    newcomer = "h-new"  # hidden before their first score: never seen at all
    hidden = {cheat, newcomer}
    for player in sorted(hidden):
        reply = api.put(f"/leaderboards/{board}/players/{player}/hidden")
        assert reply.status_code == 200 and reply.json()["hidden"] is True, reply.text
    assert api.put(f"/leaderboards/{board}/players/{cheat}/hidden", key=api.key).status_code == 403  # game key
    listed = api.get(f"/leaderboards/{board}/hidden", key="default")
    assert listed.status_code == 200, listed.text
    assert [p["player_id"] for p in listed.json()["players"]] == sorted(hidden)
    assert api.get(f"/leaderboards/{board}/hidden", key=api.key).status_code == 403  # game key
    assert api.get(f"/leaderboards/{board}/hidden").status_code == 403  # no key: moderation is not public
    # while hidden they keep playing: a better score, and a newcomer's first ones
    best[cheat] += 5000
    best[newcomer] = 3000
    for player in (cheat, newcomer):
        assert api.post(path, {"player_id": player, "score": best[player]}).status_code == 200
    stack.settle()
    for period in ("all-time", "daily"):
        _brute_force_view(api, board, period, best, hidden)
        own = api.get(f"/leaderboards/{board}/players/{cheat}", params={"period": period})
        assert own.status_code == 200, own.text  # the lookup by id still answers, marked hidden
        body = own.json()
        shown = len(best) - len(hidden)
        assert (body["hidden"], body["score"], body["rank"], body["total_players"]) == (True, best[cheat], 1, shown + 1)
        for player in sorted(hidden):
            _hidden_lookup_agrees_with_top(api, board, period, best, hidden, player)
    boards = api.get(f"/players/{cheat}/boards").json()["boards"]
    assert boards and all(row["hidden"] for row in boards if row["board_id"] == board)

    reply = api.delete(f"/leaderboards/{board}/players/{cheat}/hidden")
    assert reply.status_code == 200 and reply.json() == {
        "board_id": board,
        "player_id": cheat,
        "hidden": False,
        "moved_entries": 3 if board == "global" else 2,  # one entry per period: the built-in board keeps weekly too
    }
    listed = api.get(f"/leaderboards/{board}/hidden", key="default").json()
    assert [p["player_id"] for p in listed["players"]] == [newcomer]
    stack.settle()
    for period in ("all-time", "daily"):
        _brute_force_view(api, board, period, best, {newcomer})  # the leader again, in place


def test_hiding_on_an_unknown_board_or_a_bad_id_changes_nothing(api, table_state):
    before = table_state()
    assert api.put("/leaderboards/no-such-board/players/ada/hidden").status_code == 404
    assert api.put("/leaderboards/global/players/%20bad/hidden").status_code == 400
    assert api.put("/leaderboards/global/players/ada/hidden", key=None).status_code == 403
    assert table_state() == before
