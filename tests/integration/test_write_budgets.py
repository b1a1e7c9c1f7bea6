"""The write path's budgets, metered on DynamoDB Local: requests, and write units as the engine reports them
(transactions: estimated by the documented rules, see bench/metering.py), the same way for both designs.

The original design's POST /scores on the three-period default board: per period a GetItem, then a PutItem of
the better score (bench/write_load.py runs it). Ours may make at most 4 requests and use at most twice the
original's write units.
"""

from __future__ import annotations

import contextlib
import time

import pytest

from bench.api import HandlerApi
from bench.aws_model import AwsModel
from bench.metering import CONSUMER_THREADS, ThreadMeter, attach, detach
from bench.write_load import original_submit
from leaderboard import routes
from leaderboard.data import dynamo


@contextlib.contextmanager
def metered(client=None):
    """The requests made through a client (the handlers' by default), not those of the stream consumer."""
    client = client or dynamo.client()
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
    assert ours.by_operation == {"UpdateItem": 3}  # keep-best: one conditional write per period, no read
    assert ours.write_units <= 2 * theirs.write_units, (ours, theirs)


def test_a_first_submission_asks_once_whether_the_player_is_hidden(api, clean):
    """Keep-best writes without a read; an entry it CREATES has no moderation state to follow, so one GetItem
    asks for the board's decision on that player (once per submission, whatever the number of periods)."""
    with metered() as meter:
        assert api.post("/scores", {"player_id": "newcomer", "score": 100}).status_code == 200
    assert meter.take().by_operation == {"UpdateItem": 3, "GetItem": 1}


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
def test_a_500_entry_bulk_fits_its_request_and_time_budgets(api, clean):
    """500 entries on a three-period board: at most 1,000 requests, and within half the function's timeout on the
    benchmark's latency model (the handler's own CPU time plus modelled DynamoDB latencies, 20 ms commits)."""
    assert (
        api.post("/leaderboards", {"board_id": "bulky", "periods": ["all-time", "daily", "weekly"]}).status_code == 201
    )
    entries = [{"player_id": f"b{i:04d}", "score": i} for i in range(500)]
    handlers = HandlerApi()  # in-process on this thread, so its CPU time and modelled latency are this thread's
    model = AwsModel(commit_ms=20)
    model.attach(dynamo.client())
    try:
        with metered() as meter:
            model.modelled_seconds(reset=True)
            cpu = time.thread_time()
            resp = handlers.call("POST", "/leaderboards/bulky/scores/bulk", body={"entries": entries})
            seconds = time.thread_time() - cpu + model.modelled_seconds()
    finally:
        model.detach(dynamo.client())
    assert resp.status == 200 and resp.body["accepted"] == 500
    usage = meter.take()
    assert usage.requests <= 1000, usage.by_operation
    assert model.stats.transactions_cancelled == 0
    assert seconds <= routes.SCORE_SUBMIT.timeout_seconds / 2, seconds
