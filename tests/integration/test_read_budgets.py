"""The public reads' cost bounds over HTTP, metered on DynamoDB Local: each call of the friends view, the
every-board view and GET /leaderboards stays within the DynamoDB request budget docs/API.md states for it, at the
worst case the API accepts, and the pages together are the whole answer. Times are reported (run with -s), and
asserted only generously (a loaded 2-core machine): the figures are in docs/PERFORMANCE.md.

The worst cases are built with bulk writes: 100 friends on a 16-shard board whose buckets are tiny, the first
SPREAD_FRIENDS of them each in a bucket and band of its own on every shard (so every page of theirs is a worst
case) and the rest side by side; a player on the most boards allowed (max_boards), each with 16 shards and every
period kind.
"""

from __future__ import annotations

import contextlib
import time

import pytest

from cdk_leaderboard_lambda.operations import board_catalog
from cdk_leaderboard_lambda.shared import limits
from local.streams import drain
from tests.support.capacities import counter_capacities
from tests.support.erasure import erase

from .test_write_budgets import metered

# The issue asks for 2 s on `make run`: the times are printed (and `make bench` measures them), not asserted (a
# loaded 2-core CI machine took 5.8 s); the request counts, which bound them, are asserted.
SHARDS = limits.MAX_SHARDS
FRIENDS = limits.MAX_FRIEND_IDS
SPREAD = 48  # a friend every 48 ranks: 3 entries per shard between two friends, in 4-entry buckets
# Three worst-case pages (FRIENDS_AT_WORST friends each) show the bound as well as twenty did, at a sixth of the
# entries: the other friends sit side by side above them, sharing their buckets, so they are cheap.
SPREAD_FRIENDS = 3 * limits.FRIENDS_AT_WORST
CROWD = SPREAD * SPREAD_FRIENDS + FRIENDS - SPREAD_FRIENDS  # entries on the friends' board
PERIOD_KINDS = ["all-time", "daily", "weekly", "monthly"]


def _report(what: str, seconds: float, usage) -> None:
    print(f"\n[read budget] {what}: {seconds * 1000:.0f} ms, {usage.requests} DynamoDB requests {usage.by_operation}")


def _timed_get(api, path: str, **params):
    with metered() as meter:
        started = time.perf_counter()
        reply = api.get(path, params=params)
        seconds = time.perf_counter() - started
    return reply, seconds, meter.take()


# --- friends: 100 ids on a board with the most shards -------------------------------------------------------


def _load(stack, board: str, scores: dict[str, int], rebuild: bool) -> None:
    """Entries written straight into the tables with batched puts (as `make bench` loads), on every current period
    of the board; with `rebuild`, the rank counters are then built in one pass per partition (as the consumer would
    have, record by record), while the stream consumers wait."""
    from cdk_leaderboard_lambda.domain.score_writes import make_entry
    from cdk_leaderboard_lambda.operations import counter_upkeep
    from local import invocation

    with stack.serving() as runtime:
        config = board_catalog.get_board(runtime, board)
    now = stack.clock.now()  # the stack's time: its current periods
    now_ms = int(now.timestamp() * 1000)
    with stack.serving(), stack.consumers_by_hand() if rebuild else contextlib.nullcontext():
        for period in config.current_periods(now):
            invocation.runtime().entries.put_new(
                make_entry(
                    config,
                    period,
                    p,
                    p,
                    score,
                    now_ms,
                    None,
                    retention_days=invocation.settings().period_retention_days,
                )
                for p, score in scores.items()
            )
            for part in config.partitions(period.period_id) if rebuild else ():
                runtime = invocation.runtime()
                counter_upkeep.rebuild(runtime.counters, runtime.entries, runtime.settings, part)
        for poller in stack.pollers if rebuild else ():  # the load is counted already: skip its records, as the
            drain(poller.reader, lambda event, context: None, 10_000)  # benchmark does (bench/runner.py)


@pytest.fixture(scope="module")
def crowded_board(api, stack):
    """A 16-shard board of CROWD entries (scores 0..CROWD-1, unique) with counters of 4-entry buckets and
    3-bucket bands: SPREAD_FRIENDS friends a SPREAD apart, the other friends the top entries. Yields (board,
    friend ids, expected ranks)."""
    stack.reset_tables()
    mp = pytest.MonkeyPatch()
    with counter_capacities(stack, bucket=4, band=3):
        started = time.perf_counter()
        board = "crowd"
        created = api.post("/leaderboards", {"board_id": board, "periods": ["all-time"], "shards": SHARDS})
        assert created.status_code == 201, created.text
        ids = [f"c{i:05d}" for i in range(CROWD)]
        _load(stack, board, {p: int(p[1:]) for p in ids}, rebuild=True)
        stack.settle(timeout=120)
        print(f"\n[read budget] crowded board set up in {time.perf_counter() - started:.1f} s")
        friends = ids[SPREAD // 2 : SPREAD * SPREAD_FRIENDS : SPREAD] + ids[SPREAD * SPREAD_FRIENDS :]
        assert len(friends) == FRIENDS
        yield board, friends, {p: CROWD - int(p[1:]) for p in friends}  # descending: score i ranks CROWD - i
    mp.undo()
    stack.reset_tables()


def test_friends_view_of_100_ids_on_16_shards_fits_its_budget_page_by_page(api, crowded_board):
    """Before: 1,600 COUNTs (one per id and shard) plus the counter reads, one after another. Now each call makes at
    most FRIENDS_BUDGET requests; what does not fit follows with next_cursor, and the pages are the whole answer."""
    board, friends, ranks = crowded_board
    ids = ",".join(reversed(friends))  # in no particular order: the view orders them
    got, cursor, pages, slowest = [], None, 0, 0.0
    while True:
        params = {"ids": ids, **({"cursor": cursor} if cursor else {})}
        reply, seconds, usage = _timed_get(api, f"/leaderboards/{board}/players", **params)
        assert reply.status_code == 200, reply.text
        _report(
            f"friends page {pages + 1} ({len(reply.json()['entries'])} of {FRIENDS} ids, {SHARDS} shards)",
            seconds,
            usage,
        )
        assert usage.requests <= limits.FRIENDS_BUDGET, usage.by_operation
        pages, slowest = pages + 1, max(slowest, seconds)
        got += [(e["player_id"], e["rank"]) for e in reply.json()["entries"]]
        cursor = reply.json().get("next_cursor")
        if cursor is None:
            break
        assert pages < FRIENDS  # every page ranks at least one more
    assert got == sorted(ranks.items(), key=lambda pr: pr[1])  # all of them, in rank order, with exact ranks
    assert pages >= 3  # the spread friends do not fit one call: paging is what keeps the bound
    print(f"[read budget] friends: {pages} pages, slowest {slowest * 1000:.0f} ms")


def test_friends_view_cursor_is_bound_to_its_ids(api, crowded_board):
    board, friends, _ = crowded_board
    first = api.get(f"/leaderboards/{board}/players", params={"ids": ",".join(friends)}).json()
    assert "next_cursor" in first
    other = api.get(
        f"/leaderboards/{board}/players", params={"ids": ",".join(friends[:-1]), "cursor": first["next_cursor"]}
    )
    assert other.status_code == 422 and "cursor" in other.json()["error"]


def test_friends_sharing_buckets_come_in_one_page(api, crowded_board):
    """The budget only pages what costs: 100 neighbours share their buckets, so all 100 fit one call."""
    board, _, _ = crowded_board
    neighbours = [f"c{i:05d}" for i in range(CROWD - FRIENDS, CROWD)]
    reply, seconds, usage = _timed_get(api, f"/leaderboards/{board}/players", ids=",".join(neighbours))
    _report("friends, 100 neighbours on 16 shards", seconds, usage)
    assert reply.status_code == 200 and "next_cursor" not in reply.json()
    assert [e["rank"] for e in reply.json()["entries"]] == list(range(1, FRIENDS + 1))
    assert usage.requests <= limits.FRIENDS_BUDGET


# --- a player on the most boards allowed; the board cap; GET /leaderboards ------------------------------------


@pytest.fixture(scope="module")
def many_boards(api, stack):
    """max_boards boards of 16 shards and every period kind, each with one entry of the player `everywhere`."""
    stack.reset_tables()
    started = time.perf_counter()
    cap = stack.runtime.settings.max_boards
    boards = [f"mb{i:04d}" for i in range(cap)]
    from cdk_leaderboard_lambda.domain.score_writes import make_entry
    from local import invocation

    now, mine = stack.clock.now(), []  # the stack's time: its current periods
    now_ms = int(now.timestamp() * 1000)
    with stack.serving() as runtime, stack.consumers_by_hand():
        for board in boards:  # what POST /leaderboards does, in-process: the cap counts these
            body = {"board_id": board, "periods": PERIOD_KINDS, "shards": SHARDS}
            board_catalog.create_board(runtime, body, runtime.clock.now())
            config = board_catalog.get_board(runtime, board)
            retention = runtime.settings.period_retention_days
            mine += [
                make_entry(config, p, "everywhere", "E", 7, now_ms, None, retention_days=retention)
                for p in config.current_periods(now)
            ]
        invocation.runtime().entries.put_new(mine)  # batched puts
        # No counters for these 12,800 partitions (the consumer would take minutes to create them): a rank then
        # COUNTs the partition instead, the same 3 reads per shard (rank_counters._count_uncounted).
        for poller in stack.pollers:
            drain(poller.reader, lambda event, context: None, 10_000)
    print(f"\n[read budget] {cap} boards set up in {time.perf_counter() - started:.1f} s")
    yield boards
    stack.reset_tables()


def test_every_board_view_of_a_player_on_the_most_boards_fits_its_budget(api, many_boards):
    """Before: one call ranked all 4 x max_boards entries (3 reads per shard each: ~38,000 requests) and timed out
    (502). Now a page stops at PLAYER_BOARDS_BUDGET requests."""
    cursor, rows, slowest = None, [], 0.0
    for page in range(3):  # the first pages: each is a worst case (every entry on 16 shards)
        params = {"limit": limits.MAX_PAGE, **({"cursor": cursor} if cursor else {})}
        reply, seconds, usage = _timed_get(api, "/players/everywhere/boards", **params)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        _report(f"every-board view page {page + 1} ({len(body['boards'])} entries of 16 shards)", seconds, usage)
        assert usage.requests <= limits.PLAYER_BOARDS_BUDGET, usage.by_operation
        assert body["limit"] == limits.MAX_PAGE and body["boards"] and "next_cursor" in body
        assert all(r["rank"] == 1 and r["total_players"] == 1 for r in body["boards"])
        rows += [(r["board_id"], r["period"]) for r in body["boards"]]
        cursor, slowest = body["next_cursor"], max(slowest, seconds)
    assert len(rows) == len(set(rows))  # pages do not repeat entries
    print(f"[read budget] every-board view: slowest of 3 pages {slowest * 1000:.0f} ms")


def test_the_board_cap_answers_409_and_writes_nothing(api, stack, many_boards):
    """Before: nothing capped the boards (532 created in seconds)."""
    over = api.post("/leaderboards", {"board_id": "one-too-many"})
    assert over.status_code == 409, over.text
    assert "max_boards" in over.json()["error"] and str(stack.runtime.settings.max_boards) in over.json()["error"]
    assert api.get("/leaderboards/one-too-many").status_code == 404
    assert api.delete(f"/leaderboards/{many_boards[-1]}").status_code == 200  # a freed place can be used again
    # one period on one shard: a first score on 4 periods of 16 shards with no rank counters yet COUNTs ~190 times
    # for its rank, past the function's 10 s on a loaded 2-core machine (a 502, whose thread then went on into the
    # next test's metered requests)
    assert api.post("/leaderboards", {"board_id": many_boards[-1], "periods": ["all-time"]}).ok
    assert api.post(f"/leaderboards/{many_boards[-1]}/scores", {"player_id": "everywhere", "score": 7}).ok


def test_the_board_listing_pages_with_a_cursor(api, stack, many_boards):
    """Before: every board in one answer (256 KB at 532 boards), no limit, no cursor."""
    cursor, listed, pages = None, [], 0
    while True:
        params = {"limit": 50, **({"cursor": cursor} if cursor else {})}
        reply, seconds, usage = _timed_get(api, "/leaderboards", **params)
        assert reply.status_code == 200, reply.text
        body = reply.json()
        assert body["limit"] == 50 and len(body["leaderboards"]) <= 50
        assert usage.by_operation.get("Query", 0) <= 2 and usage.requests <= 2, usage.by_operation
        listed += [b["board_id"] for b in body["leaderboards"]]
        pages += 1
        cursor = body.get("next_cursor")
        if cursor is None:
            break
    _report(f"board listing, last of {pages} pages", seconds, usage)
    # the built-in global, then the stack's declared boards
    declared = list(board_catalog.declared_boards(stack.runtime.settings))
    assert listed == declared + many_boards  # each once, in order
    default = api.get("/leaderboards").json()
    assert default["limit"] == limits.MAX_BOARDS_LISTED and len(default["leaderboards"]) == limits.MAX_BOARDS_LISTED
    assert {"board_id", "name", "periods", "shards"} <= set(default["leaderboards"][0])  # the fields as before
    foreign = api.get("/leaderboards", params={"cursor": api.get("/players/everywhere/boards").json()["next_cursor"]})
    assert foreign.status_code == 422  # another route's cursor


# --- every page of a player's boards, and "no such player" -------------------------------------------------


def test_every_board_pages_are_the_whole_answer_and_an_unknown_or_erased_player_is_a_404(api, stack, clean):
    for i in range(7):
        assert api.post("/leaderboards", {"board_id": f"pp{i}", "periods": ["all-time", "weekly"]}).status_code == 201
        assert api.post(f"/leaderboards/pp{i}/scores", {"player_id": "paged", "score": i}).status_code == 200
    assert api.post("/scores", {"player_id": "paged", "score": 1}).status_code == 200
    whole = api.get("/players/paged/boards", params={"limit": limits.MAX_PAGE}).json()
    assert len(whole["boards"]) == 7 * 2 + 3 and "next_cursor" not in whole
    cursor, rows = None, []
    while True:
        body = api.get("/players/paged/boards", params={"limit": 4, **({"cursor": cursor} if cursor else {})}).json()
        assert len(body["boards"]) <= 4
        rows += body["boards"]
        if (cursor := body.get("next_cursor")) is None:
            break
    key = lambda r: (r["board_id"], r["period"])  # noqa: E731
    assert sorted(rows, key=key) == sorted(whole["boards"], key=key)

    never = api.get("/players/never-seen/boards")
    assert never.status_code == 404 and never.json() == {"error": "no player never-seen on any board"}
    erase(api, "paged", stack)  # DELETE again until "erased" (its fences must stand a while first)
    gone = api.get("/players/paged/boards")
    assert gone.status_code == 404, gone.text  # as the erased player's other reads:
    assert api.get("/leaderboards/pp0/players/paged").status_code == 404
