"""Live updates in the browser: the dashboard follows the board period on screen through AWS AppSync Events'
WebSocket protocol, on make run's stand-in (local/appsync_events.py), at the realtime URL the board's discovery
read names, so a new leader arrives with polling switched off; when the realtime endpoint refuses, the page polls
the edge-cached top and says so, and it comes back to live updates when the endpoint does."""

from __future__ import annotations

import json
import threading
import time

import jwt
import pytest
import requests
from dashboard_support import DESKTOP, PHONE, shoot
from playwright.sync_api import expect

ROW_NAMES = "[data-testid=board-row] [data-testid=row-name]"
PLAYERS = [("p-ada", "Ada", 5000), ("p-grace", "Grace", 4800), ("p-alan", "Alan", 4100)]
LIVE_TEXT = "Live updates (AppSync Events)"
POLLING_TEXT = "Auto-refresh every 3 s"


def _seed(stack) -> None:
    stack.reset()
    for player_id, name, score in PLAYERS:
        stack.submit(player_id, score, name)
    stack.settle()


def _discovery(stack, board: str = "global") -> dict:
    """What the page reads to follow the board: GET /leaderboards/{board}'s `live` field."""
    resp = stack.http.get(f"{stack.api}/leaderboards/{board}", timeout=30)
    assert resp.status_code == 200, resp.text
    return resp.json()["live"]


def _count_api_reads(page) -> list[str]:
    """Every request the page makes to the API (Nginx's /api/), from now on."""
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if "/api/" in r.url else None)
    return reads


def _wait_for(page, condition, timeout_s: float = 10.0) -> None:
    """Until `condition()` holds: the page's events reach this process while Playwright waits."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        page.wait_for_timeout(50)


def _frames_sent(socket) -> list[dict]:
    sent: list[dict] = []
    socket.on("framesent", lambda payload: sent.append(json.loads(payload)))
    return sent


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_new_leader_arrives_over_appsync_events_with_polling_off(stack, new_page, viewport):
    _seed(stack)
    live = _discovery(stack)
    page = new_page(viewport=viewport)
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws) or sockets_sent.append(_frames_sent(ws)))
    sockets_sent: list[list[dict]] = []
    token_reads = []
    page.on("request", lambda r: token_reads.append(r) if r.url.endswith("/scores") else None)
    first_reads = _count_api_reads(page)
    page.goto(f"{stack.dashboard}/?poll=off")
    expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Grace", "Alan"])
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "live", timeout=10_000)
    expect(page.get_by_test_id("refresh-state")).to_have_text(LIVE_TEXT)
    # The page connected where discovery said (the stand-in; AppSync's realtime endpoint on AWS), not to its own
    # origin, and spoke the protocol: connection_init, then one subscription to the board period's channel with
    # a live subscribe token of its own, read once through the dashboard's proxy from where discovery said (the
    # stand-in asks the stack's Lambda authorizer, which refuses anything else, and checks the subprotocols).
    assert [s.url for s in sockets] == [live["realtime_url"]]
    assert [r.url.split("/api", 1)[1] for r in token_reads] == [live["token_path"]] == ["/leaderboards/global/scores"]
    sent = sockets_sent[0]
    assert sent[0] == {"type": "connection_init"}
    (subscribe,) = [m for m in sent if m["type"] == "subscribe"]
    assert subscribe["channel"] == live["channels"]["all-time"] == "/leaderboard/global/all-time"
    authorization = subscribe["authorization"]
    assert set(authorization) == {"host", "Authorization"} and authorization["host"] == live["http_host"]
    claims = jwt.decode(authorization["Authorization"], options={"verify_signature": False})
    assert (claims["aud"], claims["sub"]) == ("leaderboard:live", "global") and subscribe["id"]
    # The top is read on load and once more when the subscription is confirmed, which can reach this process after
    # the "live" state: the reads counted against the push start after both.
    _wait_for(page, lambda: sum("period=all-time" in url for url in first_reads) >= 2)
    reads = _count_api_reads(page)

    submitted = time.monotonic()
    # It comes over the socket: the frame is awaited, not looked for in a list afterwards, because the browser
    # reports a frame to Playwright independently of rendering it and the report can come after the row shows.
    with sockets[0].expect_event("framereceived", lambda payload: '\\"p-zed\\"' in str(payload), timeout=10_000):
        stack.submit("p-zed", 9000, "Zed")
    expect(page.locator(ROW_NAMES)).to_have_text(["Zed", "Ada", "Grace", "Alan"], timeout=5_000)
    arrived = time.monotonic() - submitted
    expect(page.get_by_test_id("leader-banner")).to_be_visible()
    # How fast is `make bench-live`'s figure (docs/PERFORMANCE.md), not an assertion: the expect's 5 s bounds it
    print(f"new leader on screen {arrived:.2f} s after the submission")
    shoot(page.locator(".board-card"), "live-update", viewport)
    assert reads == []  # ... not from a read of the API (checked after more calls, which deliver late events)
    assert len(sockets) == 1  # ... and on the same socket all along
    assert page.problems == [], page.problems
    assert page.evaluate("window.__cspViolations") == []


def test_switching_the_period_unsubscribes_and_follows_the_new_channel(stack, new_page):
    """One subscription at a time: the old one is unsubscribed and the new period's channel subscribed, on the
    same connection; the new period's leader then arrives over it."""
    _seed(stack)
    live = _discovery(stack)
    page = new_page()
    sockets, sent = [], []
    page.on("websocket", lambda ws: sockets.append(ws) or ws.on("framesent", lambda p: sent.append(json.loads(p))))
    page.goto(f"{stack.dashboard}/?poll=off")
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "live", timeout=10_000)
    (all_time,) = [m for m in sent if m["type"] == "subscribe"]

    reads = _count_api_reads(page)
    page.get_by_test_id("tab-daily").click()
    expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Grace", "Alan"])
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "live", timeout=10_000)
    subscribes = [m for m in sent if m["type"] == "subscribe"]
    assert [m["channel"] for m in subscribes] == [live["channels"]["all-time"], live["channels"]["daily"]]
    assert {"type": "unsubscribe", "id": all_time["id"]} in sent
    assert sent.index({"type": "unsubscribe", "id": all_time["id"]}) < sent.index(subscribes[1])
    # The page reads the new period's top twice: on the switch, and once its subscription is confirmed (live.js:
    # AppSync sends no current state). The second can reach this process after the "live" state above, so the
    # reads counted against the push below start after both.
    _wait_for(page, lambda: sum("period=daily" in url for url in reads) >= 2)
    reads = _count_api_reads(page)
    with sockets[0].expect_event("framereceived", lambda payload: '\\"p-zed\\"' in str(payload), timeout=10_000):
        stack.submit("p-zed", 9000, "Zed")
    expect(page.locator(ROW_NAMES).first).to_have_text("Zed", timeout=5_000)
    assert reads == [] and len(sockets) == 1
    assert page.problems == [], page.problems


def test_without_live_updates_the_page_polls(stack, new_page):
    """`?live=off` (as without an Event API): no socket; the table polls every 3 s and says so."""
    _seed(stack)
    page = new_page()
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws))
    page.goto(f"{stack.dashboard}/?live=off")
    expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Grace", "Alan"])
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "polling")
    expect(page.get_by_test_id("refresh-state")).to_have_text(POLLING_TEXT)
    stack.submit("p-zed", 9000, "Zed")
    expect(page.locator(ROW_NAMES).first).to_have_text("Zed", timeout=10_000)
    assert sockets == []
    assert page.problems == [], page.problems


def test_a_pushed_top_is_not_replaced_by_an_older_answer_of_the_edge(stack, new_page):
    """The edge keeps a read's answer up to its max-age + stale-while-revalidate: a read made after a push (here
    "Refresh now") can get the edge's answer from before it. The table keeps the pushed top rather than go back."""
    _seed(stack)
    page = new_page()
    page.goto(f"{stack.dashboard}/?poll=off")
    expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Grace", "Alan"])
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "live", timeout=10_000)
    url = f"{stack.dashboard}/api/leaderboard?period=all-time&limit=25"  # what the table reads
    stop = threading.Event()

    def keep_the_edge_answer() -> None:  # read often enough that the edge keeps its answer (inactive= drops it)
        while not stop.is_set():
            requests.get(url, timeout=10)
            stop.wait(0.3)

    assert stack.http.get(url, timeout=10).headers["X-Cache"] in ("MISS", "HIT", "EXPIRED")
    reader = threading.Thread(target=keep_the_edge_answer)
    reader.start()
    try:
        stack.submit("p-zed", 9000, "Zed")
        expect(page.locator(ROW_NAMES)).to_have_text(["Zed", "Ada", "Grace", "Alan"], timeout=5_000)  # pushed
        reads = page.locator("#timing-count")
        before = int(reads.inner_text())
        with page.expect_response(lambda r: r.url == url) as answer:
            page.get_by_test_id("refresh-now").click()
        stale = answer.value
        expect(reads).to_have_text(str(min(before + 1, 20)))  # the page has handled the answer
    finally:
        stop.set()
        reader.join()
    if "p-zed" in stale.text():
        pytest.skip("the edge's answer was already fresh (a slow machine): nothing older to refuse")
    assert stale.headers["x-cache"] in ("HIT", "STALE", "UPDATING"), stale.headers
    expect(page.locator(ROW_NAMES)).to_have_text(["Zed", "Ada", "Grace", "Alan"])
    assert page.problems == [], page.problems


def test_when_the_realtime_endpoint_refuses_the_page_polls_and_comes_back(stack, new_page):
    """The stand-in down (connections refused, as when AppSync cannot be reached): the page shows "polling" and a
    new leader still arrives, read from the edge-cached top; once the endpoint answers again the page is live
    again (jittered backoff) and the next leader comes over the socket."""
    _seed(stack)
    stack.command("stop-live")
    try:
        page = new_page()
        sockets = []  # every attempt (refused ones too), the working one last
        page.on("websocket", lambda ws: sockets.append(ws))
        page.goto(f"{stack.dashboard}/")
        expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Grace", "Alan"])
        expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "polling")
        expect(page.get_by_test_id("refresh-state")).to_have_text(POLLING_TEXT)
        reads = _count_api_reads(page)
        stack.submit("p-zed", 9000, "Zed")
        expect(page.locator(ROW_NAMES).first).to_have_text("Zed", timeout=10_000)
        assert any("/api/leaderboard?" in url for url in reads)  # ... by polling
        assert page.get_by_test_id("connection").get_attribute("data-transport") == "polling"
    finally:
        stack.command("start-live")
    # The page tries again after a jittered backoff (at most 30 s, js/live.js): the page's clock (and the stack's
    # with it) moved past that rather than waited for; the attempt itself then runs in real time.
    stack.advance(30, page)
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "live", timeout=45_000)
    expect(page.get_by_test_id("refresh-state")).to_have_text(LIVE_TEXT)
    with sockets[-1].expect_event("framereceived", lambda payload: '\\"p-yan\\"' in str(payload), timeout=10_000):
        stack.submit("p-yan", 9500, "Yan")
    expect(page.locator(ROW_NAMES).first).to_have_text("Yan", timeout=5_000)
    assert page.problems == [], page.problems
    assert page.evaluate("window.__cspViolations") == []
