"""The live broadcaster under moto: which changes it publishes to AppSync Events and where (one event per changed
top, to the board period's channel), at most once a second, never losing the last top, releasing a failed publish;
through an in-memory publisher, and once end to end through the real publish client to a local HTTP endpoint."""

from __future__ import annotations

import pytest

from cdk_leaderboard_lambda.data import live_events
from cdk_leaderboard_lambda.data.stream_changes import entry_change, entry_changes
from cdk_leaderboard_lambda.domain import boards
from cdk_leaderboard_lambda.operations import broadcasting
from cdk_leaderboard_lambda.shared import item_keys, limits, live_channels
from local import invocation
from tests.support.lambda_api import call
from tests.support.live_endpoint import Endpoint


class Publisher:
    """An in-memory AppSync: records what is published; fails the next `failures` publishes."""

    def __init__(self, failures: int = 0):
        self.published: list[tuple[str, list[dict]]] = []
        self.failures = failures

    def __call__(self, channel: str, events: list[dict]) -> None:
        if self.failures:
            self.failures -= 1
            raise live_events.PublishFailed("publish to x answered 500: internal", 500)
        self.published.append((channel, events))


@pytest.fixture
def live_on(ddb, monkeypatch, reconfigure):
    monkeypatch.setenv("LIVE_EVENTS_HTTP_URL", "http://127.0.0.1:9")  # set: live updates are on
    reconfigure()
    return ddb


def broadcaster():
    """The live broadcaster's Lambda handler, serving with the test's runtime."""
    from cdk_leaderboard_lambda.handlers import live_broadcaster

    return live_broadcaster.handler_for(invocation.runtime())


def submit(player: str, score: int) -> list[dict]:
    """A score on the default board, and the stream records its writes make (one per current period)."""
    assert call("POST", "/scores", body={"player_id": player, "score": score}).status == 200
    return [record(player, p.period_id) for p in boards.DEFAULT_BOARD.current_periods(invocation.now())]


def record(player: str, partition: str) -> dict:
    return {"dynamodb": {"Keys": {"player_id": {"S": player}, "leaderboard_id": {"S": partition}}}}


def count_requests(monkeypatch) -> list[str]:
    calls: list[str] = []
    client = invocation.runtime().dynamodb
    client.meta.events.register("before-call.dynamodb.*", lambda model, **_: calls.append(model.name), "count")
    return calls


def test_a_changed_top_is_one_event_on_each_current_period_s_channel(live_on):
    publisher = Publisher()
    stats = broadcasting.apply(invocation.runtime(), entry_changes(submit("ann", 300)), publish=publisher)

    current = boards.DEFAULT_BOARD.current_periods(invocation.now())
    assert stats.board_periods == stats.publishes == len(current) == 3
    published = dict(publisher.published)
    assert set(published) == {live_channels.channel("global", p.kind) for p in current}
    for period in current:
        (event,) = published[live_channels.channel("global", period.kind)]  # one event per change
        assert event["type"] == "top" and event["board"] == "global"
        assert (event["period"], event["period_id"]) == (period.kind, period.period_id)
        assert [(e["player_id"], e["score"], e["rank"]) for e in event["entries"]] == [("ann", 300, 1)]


def test_an_unchanged_top_is_not_published_again(live_on):
    publisher = Publisher()
    records = submit("ann", 300)
    broadcasting.apply(invocation.runtime(), entry_changes(records), publish=publisher)
    # a retried batch, or a change below the top
    stats = broadcasting.apply(invocation.runtime(), entry_changes(records), publish=publisher)
    assert stats.publishes == 0 and stats.unchanged == 3 and len(publisher.published) == 3


def test_a_board_period_is_published_at_most_once_a_second_and_the_last_top_of_a_burst_arrives(live_on):
    publisher = Publisher()
    daily = next(p for p in boards.DEFAULT_BOARD.current_periods(invocation.now()) if p.kind == "daily")
    previous = None
    for n in range(3):  # a burst: each batch changes the leader
        submit(f"p{n}", 100 + n)
        broadcasting.apply(invocation.runtime(), entry_changes([record(f"p{n}", daily.period_id)]), publish=publisher)
        sent = invocation.runtime().live_state.last_sent("global", daily.period_id)
        if previous is not None:
            # the claim waited out the interval: a publish is a full second after the previous one ended
            assert sent["sent_at_ms"] - previous >= limits.LIVE_MIN_INTERVAL_SECONDS * 1000
        previous = sent["sent_at_ms"]
    leaders = [events[0]["entries"][0]["player_id"] for _, events in publisher.published]
    assert leaders == ["p0", "p1", "p2"]  # every batch's top, the last one included


def test_a_failed_publish_fails_the_batch_and_its_retry_publishes_the_same_top(live_on):
    records = submit("ann", 300)
    publisher = Publisher(failures=1)
    with pytest.raises(live_events.PublishFailed):
        broadcasting.apply(invocation.runtime(), entry_changes(records[:1]), publish=publisher)
    partition = records[0]["dynamodb"]["Keys"]["leaderboard_id"]["S"]
    released = invocation.runtime().live_state.last_sent(*item_keys.board_and_period(partition))
    assert "digest" not in released  # the claim released
    stats = broadcasting.apply(
        invocation.runtime(), entry_changes(records[:1]), publish=publisher
    )  # Lambda's retry of the batch
    assert stats.publishes == 1 and publisher.published[0][1][0]["entries"][0]["player_id"] == "ann"


def test_a_change_to_a_period_no_longer_current_is_not_published(live_on, monkeypatch):
    calls = count_requests(monkeypatch)
    publisher = Publisher()
    stats = broadcasting.apply(
        invocation.runtime(), entry_changes([record("ann", "daily-2020-01-01")]), publish=publisher
    )
    assert stats.board_periods == 1 and publisher.published == []
    assert calls == []  # the board is built in: not even its config is read


def test_with_live_updates_off_the_broadcaster_reads_and_publishes_nothing(ddb, monkeypatch, reconfigure):
    monkeypatch.delenv("LIVE_EVENTS_HTTP_URL", raising=False)
    reconfigure()
    records = submit("ann", 300)
    calls = count_requests(monkeypatch)
    assert broadcaster()({"Records": records}) == {}
    assert calls == []


def test_records_of_other_items_are_ignored(live_on):
    """Board items, and a held (quarantined) submission's two items: it is no entry, so it is pushed nowhere."""
    from cdk_leaderboard_lambda.shared import item_keys

    held = [
        record(*item_keys.pending_key("race", "p-1")),
        record(item_keys.pending_of_partition(invocation.runtime().digest_key.value(), "ann"), "race#p-1"),
    ]
    publisher = Publisher()
    changes = entry_changes([record("#boards", "race"), {"dynamodb": {}}, *held])
    stats = broadcasting.apply(invocation.runtime(), changes, publish=publisher)
    assert changes == [] and stats.board_periods == 0 and publisher.published == []


def test_the_handler_publishes_through_the_signed_client_to_the_configured_endpoint(ddb, monkeypatch, reconfigure):
    endpoint = Endpoint()
    try:
        monkeypatch.setenv("LIVE_EVENTS_HTTP_URL", endpoint.url)
        monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
        reconfigure()
        broadcaster()({"Records": submit("ann", 300)})
    finally:
        endpoint.close()
    assert {r["path"] for r in endpoint.requests} == {"/event"}
    assert all(r["headers"]["Authorization"].startswith("AWS4-HMAC-SHA256 ") for r in endpoint.requests)
    channels = {channel for channel, _ in endpoint.published()}
    assert channels == {"/leaderboard/global/all-time", "/leaderboard/global/daily", "/leaderboard/global/weekly"}


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


def test_the_last_sent_state_is_an_item_outside_the_rank_index_that_the_streams_filters_drop(live_on):
    invocation.runtime().live_state.claim_send("cup_1", "tournament", None, 1000, "a", 2_000_000_000)
    (item,) = [
        i
        for i in live_on.scan(TableName=invocation.settings().scores_table)["Items"]
        if i["player_id"]["S"].startswith("#live#")
    ]
    assert (item["player_id"]["S"], item["leaderboard_id"]["S"]) == ("#live#cup_1", "tournament")
    assert "rank_key" not in item and "expires_at" in item
    assert entry_change(record(item["player_id"]["S"], "tournament")) is None


def test_with_the_kill_switch_off_nothing_is_published_and_on_again_the_top_is(live_on):
    """`make live-off`: open subscriptions get no further event (the authorizer refuses new ones: test_live_access)."""
    runtime = invocation.runtime()
    runtime.live_state.set_switch(off=True, at=0)
    runtime.live_switch.forget()
    publisher = Publisher()
    broadcasting.apply(invocation.runtime(), entry_changes(submit("ann", 10)), publish=publisher)
    assert publisher.published == []
    runtime.live_state.set_switch(off=False, at=1)
    runtime.live_switch.forget()
    broadcasting.apply(invocation.runtime(), entry_changes(submit("bob", 20)), publish=publisher)
    assert publisher.published and all(
        events[0]["entries"][0]["player_id"] == "bob" for _, events in publisher.published
    )
