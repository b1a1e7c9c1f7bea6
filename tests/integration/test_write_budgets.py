"""The write path's budgets, metered on DynamoDB Local: requests, and write units as the engine reports them
(transactions: estimated by the documented rules, see bench/metering.py), the same way for both designs.

The original design's POST /scores on the three-period default board: per period a GetItem, then a PutItem of
the better score (bench/write_load.py runs it). Ours may make at most 4 requests and use at most twice the
original's write units. The most common submission, one that improves nothing, is one eventually consistent
BatchGetItem and no write (a failed conditional write is billed as a write: 3 of them cost 3 write units, where
the read of the 3 entries and the player's moderation item costs 2 read units).

Figures (DynamoDB Local, items of ~200 bytes; it bills no absent item: on AWS at most 0.5 a key, 2 for the 4), per
POST /scores on the default board:
  improving      BatchGetItem 1 + UpdateItem 3 = 4 requests, 1.5 read units (<= 2 on AWS), 9 write units (3 + index 6)
  not improving  BatchGetItem 1                = 1 request,  1.5 read units (<= 2 on AWS), 0 write units
  first score    BatchGetItem 1 + UpdateItem 3 = 4 requests, 0 read units (<= 2 on AWS),   6 write units (3 + index 3)
Bulk: per chunk one BatchGetItem, and one TransactWriteItems of the changed entries only if any changed.
"""

from __future__ import annotations

import contextlib
import time

import pytest

from bench.api import HandlerApi
from bench.aws_model import AwsModel
from bench.metering import CONSUMER_THREADS, ThreadMeter, attach, detach
from bench.write_load import original_submit
from cdk_leaderboard_lambda.web import routes
from local import invocation


@contextlib.contextmanager
def metered(client=None):
    """The requests made through a client (the handlers' by default), not those of the stream consumer."""
    client = client or invocation.runtime().dynamodb
    meter = ThreadMeter(but=CONSUMER_THREADS)
    attach(client, meter)
    try:
        yield meter
    finally:
        detach(client, meter)


def test_an_improving_submission_to_the_default_board_fits_its_budget(api, stack, clean):
    assert api.post("/scores", {"player_id": "budget", "score": 100}).status_code == 200
    with metered() as meter:
        resp = api.post("/scores", {"player_id": "budget", "score": 200})
    assert resp.status_code == 200 and all(b["improved"] for b in resp.json()["boards"])
    ours = meter.take()

    client = stack.ddb  # the original design on its own client, same engine, same accounting
    original = original_submit(client, stack.table_name("player_id"))
    original("rival", "Rival", 100)
    with metered(client) as meter:
        original("rival", "Rival", 200)
    theirs = meter.take()
    assert theirs.by_operation == {"GetItem": 3, "PutItem": 3}
    assert ours.requests <= 4, ours.by_operation
    # One read of the three entries (and the player's moderation item), then one conditional write per period.
    assert ours.by_operation == {"BatchGetItem": 1, "UpdateItem": 3}
    assert ours.write_units <= 2 * theirs.write_units, (ours, theirs)


def test_a_submission_that_improves_nothing_is_one_read_and_no_write(api, clean):
    """The most common submission: not the player's best. One eventually consistent BatchGetItem of the three
    periods' entries (and the player's moderation item), nothing written (the old design's three conditional
    UpdateItems that fail are each billed as a write)."""
    assert api.post("/scores", {"player_id": "steady", "score": 500}).status_code == 200
    for score in (400, 500):  # lower, and equal (an equal score does not replace the one reached first)
        with metered() as meter:
            resp = api.post("/scores", {"player_id": "steady", "score": score})
        assert resp.status_code == 200
        assert [(b["best_score"], b["improved"]) for b in resp.json()["boards"]] == [(500, False)] * 3
        usage = meter.take()
        assert usage.requests <= 1 and usage.by_operation == {"BatchGetItem": 1}, usage.by_operation
        assert usage.write_units == 0 and usage.write_units_reported == 0, usage
        assert 0 < usage.read_units <= 2, usage  # 4 items of < 4 KB, eventually consistent: 0.5 unit each


def test_a_first_submission_reads_whether_the_player_is_hidden_in_the_same_request(api, clean):
    """An entry a submission CREATES has no moderation state to follow: the board's decision on the player is
    read in the same BatchGetItem as the entries (a created entry of a hidden player is written hidden at once)."""
    with metered() as meter:
        assert api.post("/scores", {"player_id": "newcomer", "score": 100}).status_code == 200
    assert meter.take().by_operation == {"BatchGetItem": 1, "UpdateItem": 3}


def test_a_hidden_newcomer_is_written_hidden_in_the_same_writes(api, stack, clean):
    assert api.put("/leaderboards/global/players/ghost/hidden").status_code == 200
    with metered() as meter:
        assert api.post("/scores", {"player_id": "ghost", "score": 100}).status_code == 200
    assert meter.take().by_operation == {"BatchGetItem": 1, "UpdateItem": 3}  # no follow-up write to hide them
    player = api.get("/player", params={"player_id": "ghost"}).json()
    assert [b.get("hidden") for b in player["boards"]] == [True] * 3
    assert "ghost" not in [e["player_id"] for e in api.get("/leaderboard").json()["entries"]]


@pytest.mark.parametrize("operator", ["best", "latest"])
def test_a_board_submission_that_changes_nothing_writes_nothing(api, clean, operator):
    """On a board stored in the table: the write path is one BatchGetItem (the entries, the moderation item and
    the board's config) and no write; the answer's ranks are Queries after it. Keep-best reads eventually
    consistently; latest (an equal score changes nothing) strongly, as its writes expect exactly what it read."""
    body = {"board_id": "calm", "operator": operator, "periods": ["all-time", "daily", "weekly"]}
    assert api.post("/leaderboards", body).status_code == 201
    assert api.post("/leaderboards/calm/scores", {"player_id": "p", "score": 50}).status_code == 200
    with metered() as meter:
        resp = api.post("/leaderboards/calm/scores", {"player_id": "p", "score": 50})
    assert resp.status_code == 200 and not any(p["changed"] for p in resp.json()["periods"])
    usage = meter.take()
    assert {op: n for op, n in usage.by_operation.items() if op != "Query"} == {"BatchGetItem": 1}, usage
    assert usage.write_units == 0, usage


def test_a_bulk_writes_only_what_it_improves(api, clean):
    """Bulk follows the same rule: one BatchGetItem per chunk, and a transaction only of the entries that change
    (none: no write at all)."""
    body = {"board_id": "bulk-calm", "periods": ["all-time", "daily", "weekly"]}
    assert api.post("/leaderboards", body).status_code == 201
    # 19 players: one chunk on a three-period board (its read: 3 entries, a hidden and an erasure item a player)
    entries = [{"player_id": f"c{i:02d}", "score": 100} for i in range(19)]
    assert api.post("/leaderboards/bulk-calm/scores/bulk", {"entries": entries}).json()["accepted"] == 19

    with metered() as meter:
        resp = api.post("/leaderboards/bulk-calm/scores/bulk", {"entries": [{**e, "score": 50} for e in entries]})
    assert resp.status_code == 200 and resp.json()["accepted"] == 19
    usage = meter.take()
    assert usage.by_operation == {"BatchGetItem": 1} and usage.write_units == 0, usage

    improving = [{**e, "score": 200} if i % 4 == 0 else e for i, e in enumerate(entries)]
    with metered() as meter:
        resp = api.post("/leaderboards/bulk-calm/scores/bulk", {"entries": improving})
    assert resp.json()["accepted"] == 19
    usage = meter.take()
    assert usage.by_operation == {"BatchGetItem": 1, "TransactWriteItems": 1}, usage
    assert usage.transaction_items == 5 * 3, usage  # 5 improved players x 3 periods, nothing for the other 14


def test_a_page_read_is_one_request(api, clean):
    assert api.post("/leaderboards", {"board_id": "pages"}).status_code == 201
    for i in range(30):
        api.post("/leaderboards/pages/scores", {"player_id": f"p{i}", "score": i})
    first = api.get("/leaderboards/pages/top", params={"limit": 10}).json()  # the board's config is cached after
    with metered() as meter:
        assert api.get("/leaderboards/pages/top", params={"limit": 10}).status_code == 200
        assert (
            api.get("/leaderboards/pages/top", params={"limit": 10, "cursor": first["next_cursor"]}).status_code == 200
        )
        assert api.get("/leaderboard", params={"limit": 10}).status_code == 200
    assert meter.take().by_operation == {"Query": 3}


@pytest.mark.slow
def test_a_500_entry_bulk_fits_its_request_and_time_budgets(api, stack, clean):
    """500 entries on a three-period board: at most 1,000 requests, and within half the function's timeout on the
    benchmark's latency model (the handler's own CPU time plus modelled DynamoDB latencies, 20 ms commits)."""
    assert (
        api.post("/leaderboards", {"board_id": "bulky", "periods": ["all-time", "daily", "weekly"]}).status_code == 201
    )
    entries = [{"player_id": f"b{i:04d}", "score": i} for i in range(500)]
    keys = {routes.GAME: stack.api_key, routes.ADMIN: stack.admin_key}  # the functions read theirs from secrets
    handlers = HandlerApi(keys)  # in-process on this thread, so its CPU time and modelled latency are this thread's
    model = AwsModel(commit_ms=20)
    model.attach(invocation.runtime().dynamodb)
    try:
        with metered() as meter:
            model.modelled_seconds(reset=True)
            cpu = time.thread_time()
            resp = handlers.call("POST", "/leaderboards/bulky/scores/bulk", body={"entries": entries})
            seconds = time.thread_time() - cpu + model.modelled_seconds()
    finally:
        model.detach(invocation.runtime().dynamodb)
    assert resp.status == 200 and resp.body["accepted"] == 500
    usage = meter.take()
    assert usage.requests <= 1000, usage.by_operation
    assert model.stats.transactions_cancelled == 0
    assert seconds <= routes.SCORE_SUBMIT.timeout_seconds / 2, seconds
