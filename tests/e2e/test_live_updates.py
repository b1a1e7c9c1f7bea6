"""Live updates in the browser: the dashboard follows the board on screen over the WebSocket (Nginx's /live), so a
new leader arrives with polling switched off; without the socket it falls back to polling."""

from __future__ import annotations

import threading
import time

import pytest
import requests
from dashboard_support import DESKTOP, PHONE, shoot
from playwright.sync_api import expect

ROW_NAMES = "[data-testid=board-row] [data-testid=row-name]"
PLAYERS = [("p-ada", "Ada", 5000), ("p-grace", "Grace", 4800), ("p-alan", "Alan", 4100)]


def _seed(stack) -> None:
    stack.reset()
    for player_id, name, score in PLAYERS:
        stack.submit(player_id, score, name)
    stack.settle()


def _count_api_reads(page) -> list[str]:
    reads: list[str] = []
    page.on("request", lambda r: reads.append(r.url) if "/api/leaderboard" in r.url else None)
    return reads


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_new_leader_arrives_over_the_websocket_with_polling_off(stack, new_page, viewport):
    _seed(stack)
    page = new_page(viewport=viewport)
    sockets = []
    page.on("websocket", lambda ws: sockets.append(ws))
    page.goto(f"{stack.dashboard}/?poll=off")
    expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Grace", "Alan"])
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "websocket", timeout=10_000)
    expect(page.get_by_test_id("refresh-state")).to_have_text("Live updates over WebSocket")
    assert [s.url for s in sockets] == [f"{stack.dashboard.replace('http://', 'ws://')}/live"]
    reads = _count_api_reads(page)

    submitted = time.monotonic()
    # It comes over the socket: the frame is awaited, not looked for in a list afterwards, because the browser
    # reports a frame to Playwright independently of rendering it and the report can come after the row shows.
    with sockets[0].expect_event("framereceived", lambda payload: '"p-zed"' in str(payload), timeout=5_000):
        stack.submit("p-zed", 9000, "Zed")
    expect(page.locator(ROW_NAMES)).to_have_text(["Zed", "Ada", "Grace", "Alan"], timeout=5_000)
    arrived = time.monotonic() - submitted
    expect(page.get_by_test_id("leader-banner")).to_be_visible()
    print(f"new leader on screen {arrived:.2f} s after the submission")
    assert arrived < 2.0
    shoot(page.locator(".board-card"), "live-update", viewport)
    assert reads == []  # ... not from a read of the API (checked after more calls, which deliver late events)
    assert len(sockets) == 1  # ... and on the same socket all along
    assert page.problems == [], page.problems
    assert page.evaluate("window.__cspViolations") == []


def test_without_the_socket_the_page_polls(stack, new_page):
    """`?live=off` (as when /live cannot connect): the table polls every 3 s and says so."""
    _seed(stack)
    page = new_page()
    page.goto(f"{stack.dashboard}/?live=off")
    expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Grace", "Alan"])
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "polling")
    expect(page.get_by_test_id("refresh-state")).to_have_text("Auto-refresh every 3 s")
    stack.submit("p-zed", 9000, "Zed")
    expect(page.locator(ROW_NAMES).first).to_have_text("Zed", timeout=10_000)
    assert page.problems == [], page.problems


def test_the_socket_dropping_falls_back_to_polling_and_comes_back(stack, new_page):
    _seed(stack)
    page = new_page()
    page.goto(f"{stack.dashboard}/")
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "websocket", timeout=10_000)
    stack.command("stop-api")
    try:
        expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "polling", timeout=10_000)
        expect(page.get_by_test_id("board-status")).to_contain_text("API unreachable", timeout=10_000)
    finally:
        stack.command("start-api")
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "websocket", timeout=20_000)
    stack.submit("p-zed", 9000, "Zed")
    expect(page.locator(ROW_NAMES).first).to_have_text("Zed", timeout=5_000)


def test_a_pushed_top_is_not_replaced_by_an_older_answer_of_the_edge(stack, new_page):
    """The edge keeps a read's answer up to its max-age + stale-while-revalidate: a read made after a push (here
    "Refresh now") can get the edge's answer from before it. The table keeps the pushed top rather than go back."""
    _seed(stack)
    page = new_page()
    page.goto(f"{stack.dashboard}/?poll=off")
    expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Grace", "Alan"])
    expect(page.get_by_test_id("connection")).to_have_attribute("data-transport", "websocket", timeout=10_000)
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
