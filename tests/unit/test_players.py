"""Players across boards under moto: the friends view, every board of a player; erasure, its main cases also with
every store in memory (the `stores` fixture), each checked by scanning every store for the erased id
(tests/support/store_oracle.py)."""

from __future__ import annotations

import json
import random

import pytest

from cdk_leaderboard_lambda.shared import item_keys, limits
from local import invocation
from tests.support import store_oracle
from tests.support.capacities import counter_capacities
from tests.support.lambda_api import call, player_token, run_submit
from tests.support.player_tokens import bearer


def create(board_id, **fields):
    reply = call("POST", "/leaderboards", body={"board_id": board_id, **fields})
    assert reply.status == 201, reply.body


def post(board, player, score, **extra):
    reply = call("POST", f"/leaderboards/{board}/scores", body={"player_id": player, "score": score, **extra})
    assert reply.status == 200, reply.body


def friends(board, ids, **query):
    return call("GET", f"/leaderboards/{board}/players", query={"ids": ",".join(ids), **query})


@pytest.fixture
def small_counters(served):
    """Tiny buckets and counter bands, so ranks come from several counter levels."""
    with counter_capacities(None, bucket=4, band=3):
        yield


@pytest.mark.parametrize("shards", [1, 3])
def test_friends_are_in_rank_order_with_board_wide_ranks(in_memory, settle, small_counters, shards):
    create("duel", periods=["all-time"], shards=shards)
    rng = random.Random(shards)
    scores = {f"p{i:02d}": rng.randrange(0, 40) for i in range(30)}
    for player, score in scores.items():
        post("duel", player, score)
    settle()
    board = call("GET", "/leaderboards/duel/top", query={"limit": "100"}).body["entries"]
    rank_of = {e["player_id"]: e["rank"] for e in board}
    asked = ["p03", "ghost", "p17", "p03", "p29", "p00", "nobody"]
    reply = friends("duel", asked)
    assert reply.status == 200
    got = reply.body["entries"]
    on_board = sorted({p for p in asked if p in scores}, key=lambda p: rank_of[p])
    assert [e["player_id"] for e in got] == on_board  # ghosts left out, a repeat once, rank order
    assert [e["rank"] for e in got] == [rank_of[p] for p in on_board]
    assert [e["score"] for e in got] == [scores[p] for p in on_board]
    assert reply.body["period"] == "all-time" and reply.body["board_id"] == "duel"


def test_friends_refuses_bad_ids_and_more_than_the_limit(ddb):
    create("duel", periods=["all-time"])
    assert friends("duel", [f"p{i}" for i in range(limits.MAX_FRIEND_IDS)]).status == 200
    too_many = friends("duel", [f"p{i}" for i in range(limits.MAX_FRIEND_IDS + 1)])
    assert too_many.status == 400 and "at most" in too_many.body["error"]
    assert friends("duel", ["ok", "bad id"]).status == 400
    assert friends("duel", ["ok", ""]).status == 400
    assert friends("duel", ["..", "ok"]).status == 400  # not only dots
    long_id = friends("duel", ["ok", "x" * (limits.MAX_ID_LENGTH + 1)])  # no board holds it: left out
    assert long_id.status == 200 and long_id.body["entries"] == []
    assert call("GET", "/leaderboards/duel/players").status == 400  # ids is required
    assert friends("nope", ["a"]).status == 404
    assert friends("duel", ["a"], period="daily").status == 404  # a period the board does not keep


def test_friends_cost_one_batch_read_whatever_the_number_of_ids(ddb, settle):
    create("duel", periods=["all-time"])
    for i in range(5):
        post("duel", f"p{i}", i)
    settle()

    calls: list[str] = []
    invocation.runtime().dynamodb.meta.events.register(
        "before-call.dynamodb.*", lambda model, **_: calls.append(model.name), unique_id="count-calls"
    )
    assert friends("duel", ["p1", "p3"] + [f"ghost{i}" for i in range(90)]).status == 200
    invocation.runtime().dynamodb.meta.events.unregister("before-call.dynamodb.*", unique_id="count-calls")
    assert calls.count("BatchGetItem") == 1 and "Scan" not in calls
    # two players found: one band read, one bucket read, one COUNT each
    assert 1 <= calls.count("Query") <= 2 + 2, calls


def test_every_board_of_a_player_with_rank_and_percentile(ddb, settle):
    create("race", order="asc", periods=["all-time", "weekly"])
    create("coins", operator="increment", periods=["daily"])
    create("other", periods=["all-time"])
    for player, lap in (("ada", 60), ("bob", 55), ("cy", 70)):
        post("race", player, lap)
    post("coins", "ada", 5)
    post("coins", "ada", 7)
    post("other", "bob", 1)
    call("POST", "/scores", body={"player_id": "ada", "score": 10})
    settle()
    reply = call("GET", "/players/ada/boards")
    assert reply.status == 200
    rows = {(b["board_id"], b["period"]): b for b in reply.body["boards"]}
    assert set(rows) == {
        ("coins", "daily"),
        ("global", "all-time"),
        ("global", "daily"),
        ("global", "weekly"),
        ("race", "all-time"),
        ("race", "weekly"),
    }
    assert rows[("race", "all-time")] | {"period_id": "x"} == {
        "board_id": "race",
        "period": "all-time",
        "period_id": "x",
        "rank": 2,
        "score": 60,
        "total_players": 3,
        "percentile": round(1 / 3 * 100, 1),
    }
    assert rows[("coins", "daily")]["score"] == 12 and rows[("coins", "daily")]["rank"] == 1
    assert rows[("race", "weekly")]["period_id"].startswith("weekly-")
    nobody = call("GET", "/players/nobody/boards")  # as the player's other reads: no such player is a 404
    assert nobody.status == 404 and nobody.body == {"error": "no player nobody on any board"}
    assert call("GET", "/players/bad%20id/boards").status == 400


def test_a_deleted_board_leaves_a_players_boards(ddb, settle):
    create("gone", periods=["all-time"])
    post("gone", "ada", 3)
    settle()
    assert [b["board_id"] for b in call("GET", "/players/ada/boards").body["boards"]] == ["gone"]
    assert call("DELETE", "/leaderboards/gone").status == 200
    assert call("GET", "/players/ada/boards").status == 404  # on no board any more


# --- per-player limits ---------------------------------------------------------------------------


def _entries(ddb, stack_template):
    from tests.support.lambda_api import scan

    table = invocation.settings().scores_table
    return [i for i in scan(ddb, table) if i["player_id"]["S"] == "ada" and "rank_key" in i]


def test_a_player_past_the_boards_limit_gets_429_with_retry_after_and_nothing_is_written(
    ddb, stack_template, monkeypatch, clock
):
    from datetime import UTC, datetime

    # the window is the calendar minute: pin its clock so the requests below cannot straddle two minutes
    clock.set(datetime(2026, 11, 30, 12, 0, 10, tzinfo=UTC))
    create("capped", periods=["all-time"], max_submissions_per_minute=3)
    assert call("GET", "/leaderboards/capped").body["max_submissions_per_minute"] == 3
    for score in (1, 2, 3):
        post("capped", "ada", score)
    before = _entries(ddb, stack_template)
    refused = call("POST", "/leaderboards/capped/scores", body={"player_id": "ada", "score": 99})
    assert refused.status == 429 and "3 submissions per minute" in refused.body["error"]
    assert refused.headers["Retry-After"] == "50"
    assert "Retry-After" in refused.headers["Access-Control-Expose-Headers"]
    assert _entries(ddb, stack_template) == before  # the refused score is stored nowhere
    post("capped", "bob", 5)  # another player has their own budget
    # a bulk counts each player's entries together: all of them, or none
    bulk = call(
        "POST",
        "/leaderboards/capped/scores/bulk",
        body={
            "entries": [
                {"player_id": "ada", "score": 7},
                {"player_id": "cy", "score": 1},
                {"player_id": "cy", "score": 2},
            ]
        },
    )
    assert [r["status"] for r in bulk.body["results"]] == [429, 200, 200]
    over = call(
        "POST",
        "/leaderboards/capped/scores/bulk",
        body={"entries": [{"player_id": "dan", "score": s} for s in range(4)]},
    )
    assert [r["status"] for r in over.body["results"]] == [429] * 4


def test_the_limit_resets_with_the_next_minute(ddb):
    from datetime import UTC, datetime

    from cdk_leaderboard_lambda.domain.score_writes import Submission
    from cdk_leaderboard_lambda.operations import board_catalog, submissions
    from cdk_leaderboard_lambda.shared.errors import TooManyRequests

    create("capped", periods=["all-time"], max_submissions_per_minute=1)
    config = board_catalog.get_board(invocation.runtime(), "capped")
    t0 = datetime(2026, 11, 30, 12, 0, 50, tzinfo=UTC)
    submissions.submit(invocation.runtime(), config, Submission("ada", "Ada", 1), t0)
    with pytest.raises(TooManyRequests) as refused:
        submissions.submit(invocation.runtime(), config, Submission("ada", "Ada", 2), t0.replace(second=55))
    assert refused.value.retry_after == 5
    submissions.submit(invocation.runtime(), config, Submission("ada", "Ada", 3), t0.replace(minute=1, second=0))


@pytest.mark.parametrize("value", [0, -1, "5", True, 1.5, limits.MAX_SUBMISSIONS_PER_MINUTE + 1])
def test_a_bad_limit_is_a_400(ddb, value):
    reply = call("POST", "/leaderboards", body={"board_id": "bad", "max_submissions_per_minute": value})
    assert reply.status == 400 and "max_submissions_per_minute" in reply.body["error"]


# --- moderation: a player's entries deleted from a board ---------------------------------------------


def test_deleting_a_player_from_a_board_removes_every_period_and_keeps_counts_exact(ddb, settle):
    from tests.support.lambda_api import scan

    create("arena", periods=["all-time", "daily", "weekly"], shards=2)
    create("other", periods=["all-time"])
    for player, score in (("ada", 30), ("bob", 20), ("cy", 10)):
        post("arena", player, score)
    post("other", "ada", 1)
    call("POST", "/scores", body={"player_id": "ada", "score": 5})
    settle()
    reply = call("DELETE", "/leaderboards/arena/players/ada")
    assert reply.status == 200 and reply.body == {"board_id": "arena", "player_id": "ada", "deleted_entries": 3}
    settle()
    items = [i for i in scan(ddb, invocation.settings().scores_table) if i["player_id"]["S"] == "ada"]
    left = sorted(i["leaderboard_id"]["S"].split("#")[0].split(".")[0] for i in items if "rank_key" in i)
    # other boards keep the player: the default board's three periods and "other"
    assert [b.split("-")[0] for b in left] == ["all", "daily", "other", "weekly"]
    for period in ("all-time", "daily", "weekly"):
        page = call("GET", "/leaderboards/arena/top", query={"period": period}).body["entries"]
        assert [(e["player_id"], e["rank"]) for e in page] == [("bob", 1), ("cy", 2)]
        bob = call("GET", "/leaderboards/arena/players/bob", query={"period": period}).body
        assert (bob["rank"], bob["total_players"]) == (1, 2)
    assert call("GET", "/leaderboards/arena/players/ada").status == 404
    again = call("DELETE", "/leaderboards/arena/players/ada")
    assert again.status == 200 and again.body["deleted_entries"] == 0
    assert call("DELETE", "/leaderboards/nope/players/ada").status == 404


# --- erasure on request --------------------------------------------------------------------------------


@pytest.fixture(params=["ddb", "in_memory"])
def stores(request):
    """The runtime serving the test: its stores on moto, or every store in memory."""
    request.getfixturevalue(request.param)
    return invocation.runtime()


def _holding(runtime_or_ddb, text):
    """Where the runtime's stores still hold `text` (store_oracle.holding: every store scanned)."""
    return store_oracle.holding(invocation.runtime(), text)


def _lift_fences(after: float = 0) -> int:
    """The scheduled job, `after` seconds from now by the functions' clock (the test's settable one where it has
    one: the wall clock runs on meanwhile, by more than the fences' margins on a loaded machine)."""
    from cdk_leaderboard_lambda.operations import player_removal

    return player_removal.lift_fences(invocation.runtime(), int(invocation.seconds() + after))


def _later(clock, seconds: float) -> None:
    """The functions' clock, `seconds` from now (the fences' time has come)."""
    clock.advance(seconds)


def _erasing_items(ddb) -> list[dict]:
    """The erasures' own items (their token floors, which stand a day longer, left out)."""
    return [i for i in store_oracle.erasure_items(invocation.runtime(), "#erasing#") if not _is_floor(i)]


def _token_floors() -> list[dict]:
    return [i for i in store_oracle.erasure_items(invocation.runtime(), "#erasing#") if _is_floor(i)]


def _is_floor(item: dict) -> bool:
    sort = item["leaderboard_id"]
    return (sort.get("S") if isinstance(sort, dict) else sort) == item_keys.TOKEN_FLOOR_SORT


def test_erasure_removes_the_player_from_every_item_and_keeps_counts_exact(stores, settle, monkeypatch, clock):
    ddb = stores
    from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS

    create("capped", periods=["all-time", "daily"], max_submissions_per_minute=5)
    for player, score in (("erin", 30), ("bob", 20), ("erin2", 10)):
        reply = call(
            "POST",
            "/leaderboards/capped/scores",
            body={"player_id": player, "score": score, "player_name": f"Name of {player}"},
            headers={"Idempotency-Key": f"k-{player}"},
        )
        assert reply.status == 200
        call("POST", "/scores", body={"player_id": player, "score": score})
    assert call("POST", "/snapshot", body={"period": "all-time"}).status == 201
    settle()
    assert _holding(ddb, '"erin"')  # entries, counters of the limit, idempotency record, snapshot
    reply = call("DELETE", "/players/erin")
    # the entry places' fences (they hold the id) must stand longer than a submission in flight may run
    assert reply.status == 202 and reply.body["status"] == "erasing", reply.body
    assert call("DELETE", "/players/erin").status == 202
    _later(clock, FENCE_SECONDS)
    reply = call("DELETE", "/players/erin")
    assert reply.status == 200 and reply.body["status"] == "erased", reply.body
    settle()
    # at once, nothing holds the id: the erasure's item that still refuses submissions is keyed by a keyed hash
    assert _holding(ddb, 'erin"') == [], _holding(ddb, 'erin"')
    assert _holding(ddb, 'Name of erin"') == []
    (erasing,) = _erasing_items(ddb)
    assert set(erasing) == {"player_id", "leaderboard_id", "erasure_id", "requested_at", "phase", "fence_until"}
    assert _holding(ddb, '"erin2"')  # another player whose id starts the same is untouched
    snapshot = call("GET", "/snapshots", query={"period": "all-time"}).body["snapshots"][0]["entries"]
    assert [(e["player_id"], e["rank"], e["score"]) for e in snapshot] == [
        ("erased", 1, 30),
        ("bob", 2, 20),
        ("erin2", 3, 10),
    ]
    for board in ("capped", "global"):
        page = call("GET", f"/leaderboards/{board}/top").body["entries"]
        assert [(e["player_id"], e["rank"]) for e in page] == [("bob", 1), ("erin2", 2)]
        assert call("GET", f"/leaderboards/{board}/players/bob").body["total_players"] == 2
    assert call("DELETE", "/players/erin").body["finished_at"] == reply.body["finished_at"]  # the same erasure
    assert _lift_fences(FENCE_SECONDS - 5) == 0
    assert _lift_fences(2 * FENCE_SECONDS + 1) == 1
    assert _erasing_items(ddb) == []
    status = call("GET", reply.body["status_url"])
    assert status.status == 200 and status.body["status"] == "erased" and "fence_lifted_at" in status.body
    audit = store_oracle.erasure_items(invocation.runtime(), "#erasures")
    assert len(audit) == 1
    assert set(audit[0]) == {"player_id", "leaderboard_id", "status", "requested_at", "finished_at", "fence_lifted_at"}
    assert call("GET", "/erasures/AAAAAAAAAAAAAAAA").status == 404
    assert call("GET", "/erasures/bad").status == 400
    (floor,) = _token_floors()  # what stays a day: a hashed key, a time and its expiry, no id
    assert set(floor) == {"player_id", "leaderboard_id", "tokens_not_after", "expires_at"}


def test_an_erasure_that_cannot_finish_at_once_answers_202_and_goes_on(ddb, monkeypatch, clock):
    from cdk_leaderboard_lambda.operations import player_removal

    for i in range(5):
        call("POST", "/scores", body={"player_id": "erin", "score": i})
        assert call("POST", "/snapshot", body={"period": "all-time"}).status == 201
    monkeypatch.setattr(player_removal, "PAGE_SIZE", 1)
    monkeypatch.setattr(player_removal, "PAGES_PER_CALL", 2)
    statuses = []
    for _ in range(10):
        reply = call("DELETE", "/players/erin")
        statuses.append(reply.status)
        assert reply.body["status"] == "erasing" and call("GET", reply.body["status_url"]).body["status"] == "erasing"
    assert set(statuses) == {202}
    assert len({call("GET", "/erasures/" + reply.body["erasure_id"]).body["erasure_id"]}) == 1
    # once the fences' time has come, the records are swept once more, in steps too (here five pages, two a call)
    seen = []

    def five_pages(text, start, limit):
        seen.append(start)
        page = (start or {}).get("page", 0) + 1
        return [], ({"page": page} if page < 5 else None)

    monkeypatch.setattr(invocation.runtime().idempotency, "records_holding", five_pages)
    _later(clock, player_removal.FENCE_SECONDS)
    assert [call("DELETE", "/players/erin").status for _ in range(3)] == [202, 202, 200]
    assert seen == [None, {"page": 1}, {"page": 2}, {"page": 3}, {"page": 4}]
    assert _holding(ddb, '"erin"') == []


def test_the_scheduled_job_finishes_an_erasure_its_caller_left(stores, settle):
    ddb = stores
    from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS

    call("POST", "/scores", body={"player_id": "left", "score": 5})
    reply = call("DELETE", "/players/left")
    assert reply.status == 202
    assert _lift_fences(FENCE_SECONDS - 5) == 0  # not due: the fences stand
    assert call("GET", reply.body["status_url"]).body["status"] == "erasing"
    assert _lift_fences(FENCE_SECONDS + 1) == 0  # due: the job finishes it (the hashed item stands on)
    assert call("GET", reply.body["status_url"]).body["status"] == "erased"
    settle()
    assert _holding(ddb, '"left"') == [] and _holding(ddb, 'left"') == []
    assert _lift_fences(2 * FENCE_SECONDS + 2) == 1
    assert _erasing_items(ddb) == [] and "fence_lifted_at" in call("GET", reply.body["status_url"]).body


def test_two_calls_on_one_erasure_at_once_raise_no_fence_after_it_has_answered(ddb, settle, monkeypatch, clock):
    """The scheduled job and the admin's DELETE may go on with one erasure at the same time. The entry places'
    fences hold the id, so none may rise once the erasure has answered "erased": the call that began first holds
    the erasure, the other answers its status as it stands."""
    from cdk_leaderboard_lambda.operations import player_removal
    from local import invocation

    call("POST", "/scores", body={"player_id": "twice", "score": 5})
    assert call("DELETE", "/players/twice").status == 202
    _later(clock, player_removal.FENCE_SECONDS)  # the fences have stood long enough: a call may finish
    answers: list = []
    raised_after_erased: list = []
    raise_fence = invocation.runtime().entries.raise_fence
    overlapped = []

    def overlapping(player_id, partitions, until, *extra):
        if any(a.status == 200 for a in answers):
            raised_after_erased.append(list(partitions))
        if not overlapped:  # the job has read the erasure: a DELETE runs its whole course meanwhile
            overlapped.append(True)
            answers.append(call("DELETE", "/players/twice"))
        return raise_fence(player_id, partitions, until, *extra)

    monkeypatch.setattr(invocation.runtime().entries, "raise_fence", overlapping)
    player_removal.lift_fences(invocation.runtime(), int(clock.now().timestamp()))
    assert answers[0].status == 202 and answers[0].body["status"] == "erasing", answers[0].body  # the job holds it
    assert raised_after_erased == []
    reply = call("DELETE", "/players/twice")
    assert reply.status == 200 and reply.body["status"] == "erased", reply.body
    settle()
    assert _holding(ddb, 'twice"') == []


def test_a_call_that_read_the_erasure_before_another_finished_it_answers_erased(ddb, settle, monkeypatch, clock):
    """A call reads the erasure's state, then another call finishes the erasure and gives the lease up before the
    first claims it: the claim returns the finished state, which the first call answers as it stands."""
    from cdk_leaderboard_lambda.operations import player_removal

    call("POST", "/scores", body={"player_id": "late", "score": 5})
    assert call("DELETE", "/players/late").status == 202
    _later(clock, player_removal.FENCE_SECONDS)
    erasures = invocation.runtime().erasures
    claim = erasures.claim
    nested: list = []

    def finished_meanwhile(key, now_s, lease_until):
        if not nested:  # this call has read the erasure: another runs its whole course meanwhile
            nested.append(None)
            nested[0] = call("DELETE", "/players/late")
        return claim(key, now_s, lease_until)

    monkeypatch.setattr(erasures, "claim", finished_meanwhile)
    reply = call("DELETE", "/players/late")
    assert nested[0].status == 200 and nested[0].body["status"] == "erased", nested[0].body
    assert reply.status == 200 and reply.body == nested[0].body, reply.body
    settle()
    assert _holding(ddb, 'late"') == []


def test_rank_counter_ranges_name_no_player_so_erasure_leaves_none_behind(ddb, settle, small_counters):
    create("many", periods=["all-time"])
    for i in range(40):
        post("many", f"player-{i:02d}", i * 7 % 23)  # ties too: equal scores reached at different times
    settle()
    table = invocation.settings().scores_table
    counters = [i for i in ddb.scan(TableName=table)["Items"] if i["player_id"]["S"].startswith("#buckets#many")]
    assert len(counters) > 5  # the buckets split many times
    assert not [c for c in counters if "player-" in json.dumps(c)]
    page = call("GET", "/leaderboards/many/top", query={"limit": "100"}).body["entries"]
    for entry in page[::7]:
        assert call("GET", f"/leaderboards/many/players/{entry['player_id']}").body["rank"] == entry["rank"]


def test_an_erasures_fence_refuses_every_kind_of_submission_until_it_is_lifted(stores, settle, monkeypatch, clock):
    ddb = stores
    """While the erasure runs: keep-best (no read), the read-then-write path and a bulk each meet a fence in their
    write's condition or their read. After it answered "erased": the read paths still meet the hashed item."""
    from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS

    create("fence-latest", operator="latest", periods=["all-time", "daily"])
    post("fence-latest", "fp", 5)
    assert call("POST", "/scores", body={"player_id": "fp", "score": 5}).status == 200
    assert call("DELETE", "/players/fp").body["status"] == "erasing"

    def refused(keep_best: bool) -> None:
        replies = [call("POST", "/leaderboards/fence-latest/scores", body={"player_id": "fp", "score": 9})]
        if keep_best:
            replies.append(call("POST", "/scores", body={"player_id": "fp", "score": 9}))
        for reply in replies:
            assert reply.status == 409 and "being erased" in reply.body["error"], reply.body
            assert "fp" not in json.dumps(reply.body)  # a stored idempotent answer must not name them
        bulk = call(
            "POST",
            "/leaderboards/fence-latest/scores/bulk",
            body={"entries": [{"player_id": "fp", "score": 1}, {"player_id": "other", "score": 2}]},
        )
        assert [r["status"] for r in bulk.body["results"]] == [409, 200]

    refused(keep_best=True)
    _later(clock, FENCE_SECONDS)
    assert call("DELETE", "/players/fp").body["status"] == "erased"
    refused(keep_best=False)
    settle()
    assert _holding(ddb, 'fp"') == []
    assert call("GET", "/leaderboards/fence-latest/players/fp").status == 404
    assert call("GET", "/players/fp/boards").status == 404  # a player on no board
    assert [e["player_id"] for e in call("GET", "/leaderboards/fence-latest/top").body["entries"]] == ["other"]
    assert _lift_fences(2 * FENCE_SECONDS + 1) == 1
    post("fence-latest", "fp", 3)  # after the fence: a new player of that id
    assert call("GET", "/leaderboards/fence-latest/players/fp").body["score"] == 3


def test_tokens_issued_before_an_erasure_answered_are_refused_and_nothing_is_written(stores, settle, clock):
    """A player token and a run started before the erasure answered: each refused (401) at every route that takes
    them, once the fence that refuses submissions is lifted too, and nothing reappears under the id; a token issued
    after the answer works (a new player of that id)."""
    from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS

    create("erase-runs", submissions="client", max_open_runs=2)
    create("erase-other", submissions="client")
    old = player_token("tk", ttl_seconds=limits.MAX_PLAYER_TOKEN_SECONDS)
    early = call("POST", "/leaderboards/erase-runs/runs", headers=bearer(old)).body
    assert run_submit("erase-runs", "tk", 5, early).status == 200
    started = call("POST", "/leaderboards/erase-runs/runs", headers=bearer(old)).body  # opened, not yet used
    settle()
    assert call("DELETE", "/players/tk").body["status"] == "erasing"
    late = call("POST", "/leaderboards/erase-other/runs", headers=bearer(old)).body  # while the erasure runs
    _later(clock, FENCE_SECONDS)
    assert call("DELETE", "/players/tk").body["status"] == "erased"
    assert _lift_fences(2 * FENCE_SECONDS + 1) == 1  # the hashed fence is gone: only the tokens' floor refuses
    _later(clock, 2 * FENCE_SECONDS + 1)
    replies = [
        call("POST", "/leaderboards/erase-runs/runs", headers=bearer(old)),
        call("POST", "/leaderboards/erase-other/runs", headers=bearer(old)),
        run_submit("erase-runs", "tk", 900, started),
        run_submit("erase-other", "tk", 900, late),
        call("GET", "/leaderboards/erase-runs/players/tk/receipt", headers=bearer(old)),
        call("GET", "/players/tk", headers=bearer(old)),
    ]
    for reply in replies:
        assert reply.status == 401 and "erased" in reply.body["error"], reply.body
        assert reply.headers.get("WWW-Authenticate", "").startswith("Bearer"), reply.headers
    settle()
    assert _holding(stores, 'tk"') == []
    for board in ("erase-runs", "erase-other"):
        assert call("GET", f"/leaderboards/{board}/top").body["entries"] == []
    fresh = call("POST", "/leaderboards/erase-runs/runs", headers=bearer(player_token("tk"))).body
    assert run_submit("erase-runs", "tk", 7, fresh).status == 200
    assert [e["score"] for e in call("GET", "/leaderboards/erase-runs/top").body["entries"]] == [7]


def test_a_token_issued_in_the_second_the_erasure_answered_but_after_it_is_not_refused(in_memory, clock):
    """Tokens carry whole seconds: one issued just after the answer (the same second by the clock) is issued at the
    next second, and a run started with it gives a run token that is not refused either; one issued just before
    the answer (that second too) is refused."""
    from cdk_leaderboard_lambda.operations.player_removal import FENCE_SECONDS

    create("same-second", submissions="client")
    post("same-second", "ss", 1)
    assert call("DELETE", "/players/ss").body["status"] == "erasing"
    _later(clock, FENCE_SECONDS)
    clock.set(clock.now().replace(microsecond=0))  # the answer and both tokens in one second
    before = player_token("ss")
    assert call("DELETE", "/players/ss").body["status"] == "erased"
    after = player_token("ss")
    assert call("POST", "/leaderboards/same-second/runs", headers=bearer(before)).status == 401
    run = call("POST", "/leaderboards/same-second/runs", headers=bearer(after))
    assert run.status == 201, run.body
    assert call("GET", "/leaderboards/same-second/players/ss/receipt", headers=bearer(after)).status == 404
    _lift_fences(2 * FENCE_SECONDS + 1)
    _later(clock, 2 * FENCE_SECONDS + 1)
    assert run_submit("same-second", "ss", 3, run.body).status == 200


def test_counter_cuts_never_part_entries_that_tie_on_score_and_millisecond():
    from cdk_leaderboard_lambda.domain import rank_counters
    from cdk_leaderboard_lambda.shared import item_keys

    found = sorted(
        [item_keys.rank_key(500, 1000, f"a{i:03d}") for i in range(30)]
        + [item_keys.rank_key(400, 1000, f"b{i:03d}") for i in range(30)]
        + [item_keys.rank_key(300, 1001 + i, f"c{i}") for i in range(10)]
    )
    pieces = rank_counters.bucket_pieces(item_keys.FIRST_LO, found, capacity=8, most=100)
    assert sum(n for _, n in pieces) == len(found)
    starts = [lo for lo, _ in pieces]
    assert starts == sorted(starts) and starts[0] == item_keys.FIRST_LO
    for lo in starts[1:]:
        assert len(lo) < 31 and not any(c.isalpha() for c in lo)  # score and time only: no player id
    counts = [
        sum(1 for k in found if lo <= k < hi) for lo, hi in zip(starts, [*starts[1:], item_keys.LAST_HI], strict=True)
    ]
    assert counts == [n for _, n in pieces]  # each range holds exactly what its piece counts
    assert counts[:2] == [30, 30]  # the tied runs stay whole, past the capacity
    assert rank_counters.bucket_pieces(item_keys.FIRST_LO, found[:30], capacity=8) == [
        (item_keys.FIRST_LO, 30)
    ]  # nowhere to cut


# --- moderation: hidden players ------------------------------------------------------------------


def _entry(player: str, partition: str) -> dict:
    from local import invocation

    return invocation.runtime().entries.one(player, partition)


def test_keep_best_follows_a_hidden_entry_and_a_hide_is_idempotent(ddb):
    assert call("POST", "/scores", body={"player_id": "hb", "score": 10}).status == 200
    first = call("PUT", "/leaderboards/global/players/hb/hidden")
    assert (first.status, first.body["moved_entries"]) == (200, 3)
    assert call("PUT", "/leaderboards/global/players/hb/hidden").body["moved_entries"] == 0
    assert call("POST", "/scores", body={"player_id": "hb", "score": 5}).status == 200  # not better: unchanged
    assert call("POST", "/scores", body={"player_id": "hb", "score": 20}).status == 200
    stored = _entry("hb", "all-time")
    assert (stored["score"], "rank_key" in stored, stored["hidden_rank_key"].endswith("#hb")) == (20, False, True)
    assert call("DELETE", "/leaderboards/global/players/hb/hidden").body["moved_entries"] == 3
    assert call("POST", "/scores", body={"player_id": "hb", "score": 30}).status == 200
    stored = _entry("hb", "all-time")
    assert (stored["score"], "hidden_rank_key" in stored) == (30, False)


@pytest.mark.parametrize("board", ["race", "global"])
def test_a_hide_racing_a_first_score_is_reconciled_by_the_stream_consumer(ddb, settle, board):
    """A submission that read 'not hidden' just before the hide writes a listed entry after the hide moved the
    player's entries: the rank-counter consumer moves it aside. And the other way round for a show."""
    from cdk_leaderboard_lambda.domain import entry_store, score_writes
    from cdk_leaderboard_lambda.operations import board_catalog
    from local import invocation

    moderation_items = invocation.runtime().moderation
    from cdk_leaderboard_lambda.shared.model import EntryWrite

    if board != "global":
        create(board, periods=["all-time"])
    config = board_catalog.get_board(invocation.runtime(), board)
    period = config.current_periods(invocation.now())[0]
    part = config.player_partition(period.period_id, "rc")
    moderation_items.hide(board, "rc", "2026-11-30T00:00:00Z")  # the decision lands between read and write
    invocation.runtime().entries.write(
        [
            EntryWrite(
                score_writes.make_entry(
                    config, period, "rc", "rc", 7, 1, None, retention_days=invocation.settings().period_retention_days
                ),
                None,
            )
        ]
    )
    post(board, "other", 3)
    settle()
    assert entry_store.is_hidden(_entry("rc", part))
    top = call("GET", f"/leaderboards/{board}/top", query={"period": period.kind}).body["entries"]
    assert [(e["player_id"], e["rank"]) for e in top] == [("other", 1)]

    moderation_items.show(board, "rc")  # and a show racing a write that read 'hidden'
    better = score_writes.make_entry(
        config, period, "rc", "rc", 9, 2, None, retention_days=invocation.settings().period_retention_days
    )
    invocation.runtime().entries.write([EntryWrite(better, _entry("rc", part), hidden=True)])
    settle()
    assert not entry_store.is_hidden(_entry("rc", part))
    top = call("GET", f"/leaderboards/{board}/top", query={"period": period.kind}).body["entries"]
    assert [(e["player_id"], e["rank"]) for e in top] == [("rc", 1), ("other", 2)]


def test_the_hidden_list_pages_in_player_id_order_and_follows_hides_and_shows(ddb):
    hidden = ["h-c", "h-a", "h-e", "h-b", "h-d"]
    for player in [*hidden, "listed"]:
        post("global", player, 10)
    for player in hidden:
        assert call("PUT", f"/leaderboards/global/players/{player}/hidden").status == 200
    first = call("GET", "/leaderboards/global/hidden", query={"limit": "2"})
    assert first.status == 200 and first.body["board_id"] == "global"
    assert [p["player_id"] for p in first.body["players"]] == ["h-a", "h-b"]
    assert all(p["hidden_at"].endswith("Z") for p in first.body["players"])
    assert call("DELETE", "/leaderboards/global/players/h-c/hidden").status == 200  # shown meanwhile
    second = call("GET", "/leaderboards/global/hidden", query={"limit": "2", "cursor": first.body["next_cursor"]})
    assert [p["player_id"] for p in second.body["players"]] == ["h-d", "h-e"]
    assert "next_cursor" not in second.body  # nothing after h-e: no cursor to an empty page
    everyone = call("GET", "/leaderboards/global/hidden").body
    assert [p["player_id"] for p in everyone["players"]] == ["h-a", "h-b", "h-d", "h-e"]
    assert "next_cursor" not in everyone


def test_a_hidden_list_cursor_belongs_to_its_board(ddb):
    create("other-board", periods=["all-time"])
    for board in ("global", "other-board"):
        for player in ("x1", "x2"):
            post(board, player, 1)
            assert call("PUT", f"/leaderboards/{board}/players/{player}/hidden").status == 200
    cursor = call("GET", "/leaderboards/global/hidden", query={"limit": "1"}).body["next_cursor"]
    elsewhere = call("GET", "/leaderboards/other-board/hidden", query={"cursor": cursor})
    assert elsewhere.status == 422 and "cursor" in elsewhere.body["error"]
    assert call("GET", "/leaderboards/global/top", query={"cursor": cursor}).status == 422  # not a ranking's cursor
    assert call("GET", "/leaderboards/no-such-board/hidden").status == 404
    assert call("GET", "/leaderboards/global/hidden", query={"limit": "0"}).status == 400


def test_deleting_a_board_deletes_its_hidden_players_entries_and_decisions(ddb, settle):
    create("gone", periods=["all-time"])
    post("gone", "hx", 5)
    post("gone", "hy", 6)
    assert call("PUT", "/leaderboards/gone/players/hx/hidden").status == 200
    assert call("DELETE", "/leaderboards/gone").status == 200
    left = ddb.scan(TableName=invocation.settings().scores_table)["Items"]
    # only the deleted generation's archive record (its config: no player) names the board
    assert [i["player_id"]["S"] for i in left if "gone" in json.dumps(i)] == ["#archives"]
