"""Live updates end to end against the local stack: scores are submitted over HTTP, the broadcaster runs off the
scores table's stream and publishes to the AppSync Events stand-in (POST /event, SigV4), and subscribers follow the
board period over AppSync Events' WebSocket protocol with exactly what discovery (`GET /leaderboards/{board}`)
tells them. Subscribers are asyncio clients on one background event loop (bench/live_subscribers.py), hundreds at
once; times are measured in this process (submission and arrival on the same clock)."""

from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import threading
import time
from urllib.parse import urlsplit

import pytest

from bench.live_subscribers import Subscriber, SubscribeRefused, close_all, open_subscribers, token_auth
from cdk_leaderboard_lambda.shared import limits
from cdk_leaderboard_lambda.web import routes

from .stack_config import ADMIN_KEY

CROWD = 500  # the figure: subscribers on one board period
CROWD_BOARD = "live-crowd"
SCORES = itertools.count(int(time.time()))  # ever higher: every submission is a new leader
PUBLISH_CLOCK_SLACK = 0.05  # seconds: the broadcaster times its claims by time.time(), the stand-in by monotonic


@pytest.fixture(scope="module")
def run():
    """Run a coroutine on this module's background event loop (where the subscribers live) and return its result."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="test-live-subscribers", daemon=True)
    thread.start()

    def run_on_loop(coro, timeout: float = 120):
        return asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)

    yield run_on_loop
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


def _board(api, board_id: str, periods: list[str]) -> None:
    api.delete(f"/leaderboards/{board_id}", key=ADMIN_KEY)
    r = api.post("/leaderboards", {"board_id": board_id, "periods": periods}, key=ADMIN_KEY)
    assert r.status_code == 201, r.text


def _live(api, board_id: str) -> dict:
    """Discovery's `live`, and where its token path is (each Subscriber gets a token of its own there)."""
    r = api.get(f"/leaderboards/{board_id}")
    assert r.status_code == 200, r.text
    return {**r.json()["live"], "api_url": api.url}


def _submit(api, board_id: str, player: str, score: int) -> float:
    """Submit a score; the time just before it was sent."""
    sent = time.monotonic()
    r = api.post(f"/leaderboards/{board_id}/scores", {"player_id": player, "score": score})
    assert r.status_code == 200, r.text
    return sent


def _leader_is(player: str):
    return (
        lambda event: event.get("type") == "top"
        and bool(event["entries"])
        and event["entries"][0]["player_id"] == player
    )


async def _everyone_gets(
    subscribers: list[Subscriber], marks: list[int], predicate, timeout: float = 10
) -> list[float]:
    """When each subscriber got its first event (after its mark) for which predicate holds."""
    got = await asyncio.gather(
        *(s.wait_for(predicate, timeout, after=m) for s, m in zip(subscribers, marks, strict=True))
    )
    return [at for at, _ in got]


@pytest.fixture(scope="module")
def crowd(api, stack, run):
    """CROWD subscribers of the all-time top of one board, each subscribed with what discovery says."""
    _board(api, CROWD_BOARD, ["all-time"])
    live = _live(api, CROWD_BOARD)
    started = time.monotonic()
    subscribers = run(open_subscribers(live, live["channels"]["all-time"], CROWD))
    print(f"{CROWD} subscribers opened in {time.monotonic() - started:.1f} s")
    yield subscribers
    run(close_all(subscribers))


def test_discovery_says_how_to_follow_the_board_and_a_client_doing_exactly_that_gets_the_top(api, stack, run):
    _board(api, "live-discovery", ["all-time", "daily"])
    live = _live(api, "live-discovery")
    assert live["realtime_url"] == stack.live_url == stack.live.realtime_url
    assert live["http_host"] == stack.live.http_host
    assert live["token_path"] == "/leaderboards/live-discovery/scores"
    assert "auth" not in live  # no key is handed out: each subscriber gets a token of its own
    assert live["channels"] == {
        "all-time": "/leaderboard/live-discovery/all-time",
        "daily": "/leaderboard/live-discovery/daily",
    }
    subscriber = run(Subscriber(live, live["channels"]["daily"]).open())
    try:
        _submit(api, "live-discovery", "first", 10)
        _, event = run(subscriber.wait_for(_leader_is("first"), timeout=10))
        rest = api.get("/leaderboards/live-discovery/top?period=daily&limit=25").json()
        assert event["board"] == "live-discovery" and event["period"] == "daily"
        assert event["period_id"].startswith("daily-")
        assert event["entries"] == rest["entries"]
        assert len(event["entries"]) <= limits.LIVE_TOP
    finally:
        run(subscriber.close())


def test_every_one_of_500_subscribers_gets_each_new_leader(api, stack, run, crowd):
    """Every subscriber gets each new leader. How fast is `make bench-live`'s figure (docs/PERFORMANCE.md), not an
    assertion here: a wall-clock bound failed on a loaded 2-core machine (2.26 s with the POST itself in it)."""
    delays = []
    for round_ in range(2):
        time.sleep(limits.LIVE_MIN_INTERVAL_SECONDS + 0.2)  # past the once-a-second limit: measure the path
        marks = [len(s.frames) for s in crowd]
        leader = f"leader-{round_}-{time.monotonic_ns()}"
        submitted = _submit(api, CROWD_BOARD, leader, next(SCORES))

        arrivals = run(_everyone_gets(crowd, marks, _leader_is(leader)))
        delays.append(sorted(at - submitted for at in arrivals))
    for round_, d in enumerate(delays):
        print(f"round {round_}: {len(d)} subscribers; delay p50 {d[len(d) // 2]:.3f} s, max {d[-1]:.3f} s")
    assert all(len(d) == CROWD for d in delays)


def test_a_burst_gives_no_subscriber_more_than_one_message_a_second_and_all_of_them_its_last_top(
    api, stack, run, crowd
):
    time.sleep(limits.LIVE_MIN_INTERVAL_SECONDS + 0.2)
    marks = [len(s.frames) for s in crowd]
    started = time.monotonic()
    stop = started + 4.0
    lock = threading.Lock()
    submitted = [0]

    def write(writer: int) -> None:
        while time.monotonic() < stop:
            with lock:
                score = next(SCORES)
                submitted[0] += 1
            _submit(api, CROWD_BOARD, f"burst-{writer}-{score}", score)

    writers = [threading.Thread(target=write, args=(w,)) for w in range(4)]
    for t in writers:
        t.start()
    for t in writers:
        t.join()
    stack.settle()
    final = api.get(f"/leaderboards/{CROWD_BOARD}/top?period=all-time&limit=25").json()["entries"]

    run(_everyone_gets(crowd, marks, lambda event: event.get("entries") == final))
    time.sleep(1.5)  # and nothing after it
    channel = _live(api, CROWD_BOARD)["channels"]["all-time"]
    publishes = [at for at in stack.live.publish_times[channel] if at >= started]
    gaps = [b - a for a, b in itertools.pairwise(publishes)]
    # The once-a-second limit is the broadcaster's: each publish claimed a full second after the previous one
    # ended, so the stand-in took them a second apart at least (PUBLISH_CLOCK_SLACK: time.time() against monotonic).
    # Arrivals are not timed: each is late by its own delivery, which a loaded 2-core machine stretches
    assert min(gaps, default=1.0) >= limits.LIVE_MIN_INTERVAL_SECONDS - PUBLISH_CLOCK_SLACK, gaps
    counts = []
    for s, m in zip(crowd, marks, strict=True):
        tops = [event for _, event in s.events(m) if event.get("type") == "top"]
        assert tops[-1]["entries"] == final
        assert len(tops) <= len(publishes)  # each publish once, none made up
        counts.append(len(tops))
    print(
        f"{submitted[0]} submissions in 4 s -> {len(publishes)} publishes, smallest gap {min(gaps, default=0):.3f} s; "
        f"{min(counts)}..{max(counts)} messages per subscriber"
    )
    assert len(publishes) >= 2 and min(counts) >= 2  # it pushed during the burst, not only at its end


def test_an_unsubscribed_client_receives_nothing_more(api, stack, run):
    _board(api, "live-unsubscribe", ["all-time"])
    live = _live(api, "live-unsubscribe")
    channel = live["channels"]["all-time"]
    leaving, staying = run(open_subscribers(live, channel, 2))
    try:
        answer = run(leaving.unsubscribe())
        assert answer == {"type": "unsubscribe_success", "id": leaving.subscription_id}
        assert stack.live.subscriber_count(channel) == 1
        _submit(api, "live-unsubscribe", "after", 5)
        run(staying.wait_for(_leader_is("after"), timeout=10))
        time.sleep(0.5)
        assert leaving.frames == []
        # unsubscribing again: AppSync's answer for an id it does not know
        again = run(leaving.unsubscribe())
        assert again["type"] == "unsubscribe_error" and again["errors"][0]["errorType"] == "UnknownOperationError"
    finally:
        run(close_all([leaving, staying]))


def _refused_connection(run, live: dict, auth: dict) -> dict:
    with pytest.raises(SubscribeRefused) as refused:
        run(Subscriber(live, live["channels"]["all-time"], auth=auth).open())
    return refused.value.answer


def test_a_connection_without_a_valid_live_token_gets_unauthorized_and_is_closed(api, stack, run):
    """As AppSync's AWS_LAMBDA mode answers: no token, a forged one, a player token, and the Event API's own API key
    (which the old design handed to every browser) are all refused on connect."""
    live = _live(api, "global")
    host = live["http_host"]
    good = token_auth(live)["Authorization"]
    player = api.post("/players/p-live/tokens", {}, key="default").json()["token"]
    for auth in (
        {"host": host},
        {"host": host, "Authorization": ""},
        {"host": host, "Authorization": good[:-4] + "AAAA"},
        {"host": host, "Authorization": player},
        {"host": host, "x-api-key": stack.live_api_key},
    ):
        answer = _refused_connection(run, live, auth)
        assert answer["type"] == "connection_error", (auth, answer)
        assert answer["errors"][0]["errorType"] == "UnauthorizedException"


def test_a_subscription_without_a_valid_live_token_gets_subscribe_error(api, stack, run):
    """Subscribing is authorized again on its own: the API key, another board's token and a spent token are
    refused with AppSync's subscribe_error (UnauthorizedException); the connection stays open."""
    _board(api, "live-other", ["all-time"])
    live = _live(api, "global")
    subscriber = run(Subscriber(live, live["channels"]["all-time"]).open())  # its token: 2 of its operations used
    other_board = token_auth(_live(api, "live-other"))
    try:
        for n, auth in enumerate(
            [
                {"host": live["http_host"], "x-api-key": stack.live_api_key},
                other_board,
                {"host": live["http_host"], "Authorization": "not-a-token"},
            ]
        ):
            answer = run(
                subscriber.request(
                    {
                        "type": "subscribe",
                        "id": f"wrong-{n}",
                        "channel": live["channels"]["all-time"],
                        "authorization": auth,
                    }
                )
            )
            assert answer["type"] == "subscribe_error" and answer["id"] == f"wrong-{n}", answer
            assert answer["errors"][0]["errorType"] == "UnauthorizedException"
        own = {"host": live["http_host"], "Authorization": token_auth(live)["Authorization"]}
        answers = [
            run(
                subscriber.request(
                    {"type": "subscribe", "id": f"own-{n}", "channel": live["channels"]["daily"], "authorization": own}
                )
            )["type"]
            for n in range(limits.LIVE_TOKEN_OPERATIONS + 1)
        ]  # a fresh token: its allowance, then no more
        assert answers == ["subscribe_success"] * limits.LIVE_TOKEN_OPERATIONS + ["subscribe_error"]
    finally:
        run(subscriber.close())


def test_the_kill_switch_refuses_new_subscriptions_and_stops_the_pushes_to_open_ones(api, stack, run):
    """`make live-off` writes the switch item (ops/live_switch.py, tested on moto); here the item is written
    through the stack's store, as that command does, and each instance's cached read dropped (on AWS it lapses
    within LIVE_SWITCH_CACHE_SECONDS). New connects are refused; a subscriber already open gets nothing more."""
    _board(api, "live-switch", ["all-time"])
    live = _live(api, "live-switch")
    channel = live["channels"]["all-time"]
    open_one = run(Subscriber(live, channel).open())
    _submit(api, "live-switch", "before", 1)
    run(open_one.wait_for(_leader_is("before"), timeout=10))
    stack.runtime.live_state.set_switch(off=True, at=int(time.time()))
    stack.runtime.live_switch.forget()
    try:
        answer = _refused_connection(run, live, token_auth(live))
        assert answer["type"] == "connection_error"
        assert answer["errors"][0]["errorType"] == "UnauthorizedException"
        mark = len(open_one.frames)
        _submit(api, "live-switch", "during", 2)
        with pytest.raises(AssertionError, match="no such event"):
            run(open_one.wait_for(_leader_is("during"), timeout=3, after=mark))
    finally:
        stack.runtime.live_state.set_switch(off=False, at=int(time.time()))
        stack.runtime.live_switch.forget()
        run(open_one.close())
    again = run(Subscriber(live, channel).open())  # live-on: admitted again
    run(again.close())


def _token_from(api, board: str, source: str, headers: dict | None = None) -> int:
    """The status of one live token request to the local stack from `source` (a loopback address: a client)."""
    parts = urlsplit(api.url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30, source_address=(source, 0))
    try:
        connection.request("GET", f"{parts.path}/leaderboards/{board}/scores", headers=headers or {})
        answer = connection.getresponse()
        answer.read()
        return answer.status
    finally:
        connection.close()


def test_one_client_s_601st_token_request_in_a_minute_does_not_lock_another_viewer_out(api, stack):
    """One client (one address) asking for a board's whole minute of tokens gets its few, then 429, and takes none
    of the board's ceiling past them: another viewer, and a player by their token from that same address, still
    get theirs."""
    _board(api, "live-greedy", ["all-time"])
    greedy = [_token_from(api, "live-greedy", "127.3.0.1") for _ in range(limits.LIVE_TOKENS_PER_BOARD_MINUTE + 1)]
    few = limits.LIVE_TOKENS_PER_CLIENT
    assert greedy[:few] == [200] * few
    # The client's count is per token life in fixed windows of the stack's clock: a burst may cross one boundary
    # (a fresh few), never more, and everything else is 429.
    assert greedy.count(200) <= 2 * few and set(greedy) == {200, 429}
    assert _token_from(api, "live-greedy", "127.3.0.2") == 200  # another viewer
    player = api.post("/players/p-greedy/tokens", {}, key="default").json()["token"]
    assert _token_from(api, "live-greedy", "127.3.0.1", {"Authorization": f"Bearer {player}"}) == 200


def test_a_junk_connect_string_invokes_no_function(api, stack, run):
    """A string that is not shaped like a live token is refused by the Event API's expression: neither the
    score-submit function (which no longer authorizes anything) nor the live-authorizer is invoked. A token-shaped
    forgery reaches the authorizer only, once; AppSync's cache answers the same string again."""
    live = _live(api, "global")
    authorizer = stack.live.authorizer
    submit, check = routes.SCORE_SUBMIT.handler, routes.LIVE_AUTHORIZER.handler
    before = (stack.invocations[submit], stack.invocations[check], authorizer.calls)
    for junk in ("junk", "' OR 1=1 --", "x" * 3000, "a.b.c"):
        answer = _refused_connection(run, live, {"host": live["http_host"], "Authorization": junk})
        assert answer["type"] == "connection_error"
        assert answer["errors"][0]["errorType"] == "UnauthorizedException"
    assert (stack.invocations[submit], stack.invocations[check], authorizer.calls) == before
    forged = token_auth(live)["Authorization"][:-4] + "AAAA"
    after_token = (stack.invocations[submit], stack.invocations[check], authorizer.calls)
    for _ in range(3):
        _refused_connection(run, live, {"host": live["http_host"], "Authorization": forged})
    assert stack.invocations[submit] == after_token[0]
    assert stack.invocations[check] == after_token[1] + 1 and authorizer.calls == after_token[2] + 1


def test_a_subscription_to_a_channel_the_board_does_not_publish_is_refused(api, stack, run):
    """A live token subscribes to its board's channels exactly: not a period kind the board does not keep or no
    board has, not its channel with a trailing slash."""
    _board(api, "live-kinds", ["all-time", "daily"])
    live = _live(api, "live-kinds")
    assert set(live["channels"]) == {"all-time", "daily"}
    subscriber = run(Subscriber(live, live["channels"]["all-time"]).open())
    try:
        published = live["channels"]["daily"]
        for n, channel in enumerate(
            [published.replace("daily", "weekly"), published.replace("daily", "hourly"), published + "/"]
        ):
            own = {"host": live["http_host"], "Authorization": token_auth(live)["Authorization"]}
            answer = run(
                subscriber.request(
                    {"type": "subscribe", "id": f"unpublished-{n}", "channel": channel, "authorization": own}
                )
            )
            assert answer["type"] == "subscribe_error", (channel, answer)
            assert answer["errors"][0]["errorType"] == "UnauthorizedException"
        own = {"host": live["http_host"], "Authorization": token_auth(live)["Authorization"]}
        answer = run(
            subscriber.request({"type": "subscribe", "id": "published", "channel": published, "authorization": own})
        )
        assert answer["type"] == "subscribe_success", answer
    finally:
        run(subscriber.close())


@pytest.mark.parametrize(
    ("channel", "says"),
    [
        ("/no-such-namespace/global/all-time", "namespace"),
        ("/leaderboard/bad_part/all-time", "channel"),
        ("/leaderboard/" + "/".join(["a"] * 5), "channel"),  # six parts: AppSync takes five
        ("", "channel"),
    ],
    ids=["unknown-namespace", "bad-part", "too-many-parts", "empty"],
)
def test_a_subscription_to_an_unknown_channel_gets_subscribe_error(api, stack, run, channel, says):
    live = _live(api, "global")
    with pytest.raises(SubscribeRefused) as refused:
        run(Subscriber(live, channel).open())
    answer = refused.value.answer
    assert answer["type"] == "subscribe_error" and answer["errors"][0]["errorType"] == "BadRequestException"
    assert says in answer["errors"][0]["message"].lower()


@pytest.mark.parametrize(
    ("frame", "error_type"),
    [
        ("not json", "MessageProcessingError"),
        ("[1, 2]", "MessageProcessingError"),
        ("[" * 30000 + "]" * 30000, "MessageProcessingError"),
        (json.dumps({"type": "dance"}), "UnsupportedOperation"),
        (json.dumps({"type": "subscribe", "channel": "/leaderboard/global/all-time"}), "BadRequestException"),
    ],
    ids=["not-json", "not-an-object", "nested-too-deep", "unknown-type", "subscribe-without-id"],
)
def test_a_malformed_frame_gets_an_error_and_the_connection_stays_open(api, stack, run, frame, error_type):
    live = _live(api, "global")
    subscriber = run(Subscriber(live, live["channels"]["all-time"]).open())
    try:

        async def send_raw() -> dict:
            seen = len(subscriber.control)
            await subscriber.ws.send(frame)
            while len(subscriber.control) == seen:
                await asyncio.sleep(0.01)
            return subscriber.control[seen]

        answer = run(send_raw(), timeout=10)
        assert answer["type"] == "error" and answer["errors"][0]["errorType"] == error_type, answer
        again = run(subscriber.request({"type": "unsubscribe", "id": subscriber.subscription_id}))
        assert again["type"] == "unsubscribe_success"
    finally:
        run(subscriber.close())


def test_after_the_stand_in_restarts_a_subscriber_on_the_same_url_gets_the_pushes(api, stack, run):
    _board(api, "live-restart", ["all-time"])
    live = _live(api, "live-restart")
    channel = live["channels"]["all-time"]
    before = run(Subscriber(live, channel).open())
    _submit(api, "live-restart", "before", 1)
    run(before.wait_for(_leader_is("before"), timeout=10))
    stack.stop_live()  # its connections close; the broadcaster's publishes fail and its batches are retried
    try:
        _submit(api, "live-restart", "during", 2)
        time.sleep(1.0)
    finally:
        stack.start_live()
    run(before.close())
    again = run(Subscriber(_live(api, "live-restart"), channel).open())
    try:
        _submit(api, "live-restart", "after", 3)
        run(again.wait_for(_leader_is("after"), timeout=15))
    finally:
        run(again.close())
