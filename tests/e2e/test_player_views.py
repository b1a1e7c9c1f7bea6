"""The player views of the dashboard, in Chromium through Nginx against the local stack: the lookup lists every
board and current period a player is on (one GET /players/{id}/boards), and the friends list ranks the ids typed
on the board and period picked (GET /leaderboards/{board}/players?ids=...).

Expected values are worked out here from the scores the test submits, never read back from the API.
"""

from __future__ import annotations

import re

import pytest
from dashboard_support import DESKTOP, shoot
from playwright.sync_api import expect
from test_dashboard import ROW_NAMES, no_problems, pick_board, seed_players, sign_in
from test_season_views import percentile, ranked

from cdk_leaderboard_lambda.shared import limits

pytestmark = pytest.mark.slow

CHESS = {
    "board_id": "chess-club",
    "name": "Chess club",
    "order": "desc",
    "operator": "best",
    "periods": ["all-time", "daily"],
}
GLOBAL_PLAYERS = [("p-ann", "Ann", 900), ("p-tess", "Tess", 800), ("p-bo", "Bo", 700)]
CHESS_PLAYERS = [("p-zed", "Zed", 70), ("p-xia", "Xia", 60), ("p-tess", "Tess", 50), ("p-yan", "Yan", 40)]


def watched(new_page, stack, route=None):
    """A page opened on the dashboard once its limits have come from the OpenAPI document, and the list of the
    URLs it requests from then on (the page's own request log keeps only the last few)."""
    page = new_page()
    if route:
        page.route("**/api/openapi.json", route)
    urls: list[str] = []
    page.on("request", lambda request: urls.append(request.url))
    with page.expect_response("**/api/openapi.json"):
        page.goto(f"{stack.dashboard}/")
    return page, urls


def requested(urls: list[str], fragment: str) -> list[str]:
    return [url for url in urls if fragment in url]


def card_stats(card, rank: int, total: int, score: int):
    expect(card.get_by_test_id("player-rank")).to_have_text(f"#{rank} of {total}")
    expect(card.get_by_test_id("player-score")).to_have_text(f"{score:,}")
    expect(card.get_by_test_id("player-percentile")).to_have_text(f"{percentile(rank, total):.1f}")


def test_lookup_lists_every_board_the_player_is_on_in_one_request(stack, new_page):
    """Every board and current period, with rank, total, score and percentile, from GET /players/{id}/boards."""
    stack.reset()
    stack.create_board(CHESS)
    seed_players(stack, GLOBAL_PLAYERS)
    for player_id, name, score in CHESS_PLAYERS:
        stack.submit_to("chess-club", player_id, score, name)
    stack.settle()
    on_global = {pid: (rank, score) for rank, pid, _, score in ranked(GLOBAL_PLAYERS)}
    on_chess = {pid: (rank, score) for rank, pid, _, score in ranked(CHESS_PLAYERS)}

    page, urls = watched(new_page, stack)
    page.get_by_label("Player ID").fill("p-tess")
    page.get_by_role("button", name="Look up").click()

    # The board and period picked (the default board, all-time) first, with the players around them...
    picked = page.get_by_test_id("picked-board")
    expect(picked.locator("h4")).to_have_text("All-Time")
    card_stats(picked, on_global["p-tess"][0], len(GLOBAL_PLAYERS), on_global["p-tess"][1])
    # ...then every other board and current period: the default board first, then by name, longest period first.
    others = page.get_by_test_id("other-boards").get_by_test_id("player-board")
    expect(others.locator("h4")).to_have_text(
        [
            re.compile(r"^Global · This Week \(\d{4}-W\d{2}\)$"),
            re.compile(r"^Global · Today \(\d{4}-\d{2}-\d{2}\)$"),
            "Chess club · All-Time",
            re.compile(r"^Chess club · Today \(\d{4}-\d{2}-\d{2}\)$"),
        ]
    )
    global_rank, global_score = on_global["p-tess"]
    chess_rank, chess_score = on_chess["p-tess"]
    for i, (rank, total, score) in enumerate(
        [
            (global_rank, len(GLOBAL_PLAYERS), global_score),
            (global_rank, len(GLOBAL_PLAYERS), global_score),
            (chess_rank, len(CHESS_PLAYERS), chess_score),
            (chess_rank, len(CHESS_PLAYERS), chess_score),
        ]
    ):
        card_stats(others.nth(i), rank, total, score)
    # The players around them on each, from the around-me route.
    chess_all_time = others.nth(2)
    expect(chess_all_time.locator(".neighbour-list li .n-rank")).to_have_text(
        [f"#{rank}" for rank in range(1, len(CHESS_PLAYERS) + 1)]
    )
    expect(chess_all_time.get_by_test_id("neighbour-me")).to_contain_text("Tess")
    expect(page.get_by_test_id("lookup-status")).to_have_text(
        re.compile(r"^Found on 2 boards, 5 periods, in \d+ ms\.$")
    )

    # The boards came in one request, not one per board or period.
    assert len(requested(urls, "/api/players/p-tess/boards")) == 1
    assert requested(urls, "/api/player?") == []

    # A player on another board only: the default board picked says so, their board is listed.
    page.get_by_label("Player ID").fill("p-zed")
    page.get_by_label("Player ID").press("Enter")
    expect(page.get_by_test_id("picked-board")).to_have_text("Not on All-Time yet.")
    expect(others.locator("h4")).to_have_text(["Chess club · All-Time", re.compile(r"^Chess club · Today \(")])
    card_stats(others.first, 1, len(CHESS_PLAYERS), 70)
    no_problems(page)


# Seconds on the speedrun (lower is better): the fastest is not in the list typed.
SPEEDRUN_TIMES = [
    ("p-f3", "Friend 3", 320),
    ("p-f1", "Friend 1", 200),
    ("p-f8", "Friend 8", 250),
    ("p-f0", "Friend 0", 410),
]


def friend_rows(page):
    return page.get_by_test_id("friend-row")


def test_friends_list_ranks_the_ids_typed_on_the_board_picked(stack, new_page):
    """The ids typed, in rank order with their board-wide ranks; the missing one apart; remembered; bounded."""
    stack.reset()
    players = [(f"p-f{i}", f"Friend {i}", 1_000 + 37 * ((i * 7) % 11)) for i in range(11)]
    seed_players(stack, players)
    for player_id, name, seconds in SPEEDRUN_TIMES:
        stack.submit_to("speedrun", player_id, seconds, name)
    stack.settle()
    typed = ["p-f8", "p-f3", "p-f0", "nobody-here"]
    board_rank = {pid: rank for rank, pid, _, _ in ranked(players)}
    expected = sorted((board_rank[pid], pid) for pid in typed if pid in board_rank)

    page, urls = watched(new_page, stack)
    expect(page.get_by_test_id("board-row")).to_have_count(len(players))
    page.get_by_label("IDs of friends").fill(" p-f8, p-f3  p-f0,p-f8 ,nobody-here ")  # spaces, commas, a repeat
    page.get_by_role("button", name="Rank them").click()

    expect(friend_rows(page).get_by_test_id("friend-rank")).to_have_text([f"#{rank}" for rank, _ in expected])
    assert [row.get_attribute("data-player-id") for row in friend_rows(page).all()] == [pid for _, pid in expected]
    scores = dict((pid, score) for pid, _, score in players)
    expect(friend_rows(page).get_by_test_id("friend-score")).to_have_text([f"{scores[pid]:,}" for _, pid in expected])
    expect(page.get_by_test_id("friend-missing-id")).to_have_text(["nobody-here: not on this board"])
    expect(page.get_by_test_id("friends-result")).to_contain_text("Not on this board")
    expect(page.get_by_test_id("friends-status")).to_have_text(re.compile(r"^3 of 4 on All-Time, read in \d+ ms\.$"))
    assert len(requested(urls, "/api/leaderboards/global/players?")) == 1

    # The list follows the board picked: on the speedrun the lower time ranks first.
    on_speedrun = [(rank, pid) for rank, pid, _, _ in ranked(SPEEDRUN_TIMES, descending=False) if pid in typed]
    pick_board(page, "speedrun")
    expect(friend_rows(page).get_by_test_id("friend-rank")).to_have_text([f"#{rank}" for rank, _ in on_speedrun])
    expect(friend_rows(page).get_by_test_id("friend-name")).to_have_text(
        [re.compile(f"^Friend {pid.removeprefix('p-f')}") for _, pid in on_speedrun]
    )
    expect(page.get_by_test_id("friend-missing-id")).to_have_text(["nobody-here: not on this board"])

    # Remembered in this browser: a reload (of the speedrun, the link says) ranks them again.
    with page.expect_response("**/api/openapi.json"):
        page.reload()
    expect(page.get_by_label("IDs of friends")).to_have_value("p-f8, p-f3, p-f0, nobody-here")
    expect(friend_rows(page).get_by_test_id("friend-rank")).to_have_text([f"#{rank}" for rank, _ in on_speedrun])

    # Past the API's limit (its OpenAPI document gives it) or a malformed id: a clear message and no request.
    asked = len(requested(urls, "/players?"))
    too_many = limits.MAX_FRIEND_IDS + 1
    page.get_by_label("IDs of friends").fill(" ".join(f"p-{i}" for i in range(too_many)))
    page.get_by_role("button", name="Rank them").click()
    expect(page.get_by_test_id("friends-status")).to_have_text(
        f"At most {limits.MAX_FRIEND_IDS} player IDs at once: {too_many} given. Remove 1."
    )
    expect(page.get_by_test_id("friends-status")).to_have_attribute("data-kind", "error")
    expect(friend_rows(page)).to_have_count(0)
    page.get_by_label("IDs of friends").fill("p-f1, no/slash")
    page.get_by_label("IDs of friends").press("Enter")
    expect(page.get_by_test_id("friends-status")).to_contain_text("Not a player ID: “no/slash”")
    page.wait_for_timeout(500)  # a request would be in the log by now
    assert len(requested(urls, "/players?")) == asked
    no_problems(page)


def test_friends_limit_follows_the_openapi_document(stack, new_page):
    """The largest friends list comes from GET /openapi.json (x-max-ids), not from the page's script."""
    stack.reset()

    def narrow(route):
        response = route.fetch()
        doc = response.json()
        for parameter in doc["paths"]["/leaderboards/{board}/players"]["get"]["parameters"]:
            if parameter["name"] == "ids":
                parameter["schema"]["x-max-ids"] = 2
        route.fulfill(response=response, json=doc)

    page, urls = watched(new_page, stack, route=narrow)
    page.get_by_label("IDs of friends").fill("a b c")
    page.get_by_role("button", name="Rank them").click()
    expect(page.get_by_test_id("friends-status")).to_have_text("At most 2 player IDs at once: 3 given. Remove 1.")
    page.wait_for_timeout(500)  # a request would have been sent by now
    assert requested(urls, "/players?") == []
    no_problems(page)


def test_an_admin_hides_a_player_from_the_lookup_and_shows_them_again(stack, new_page):
    """Hide: gone from the table others see, the lookup says hidden with the rank they would have; show: back in
    place. The button needs the admin sign-in."""
    stack.reset()
    seed_players(stack, GLOBAL_PLAYERS)
    page = new_page(admin=True)
    page.goto(f"{stack.dashboard}/")
    expect(page.locator(ROW_NAMES)).to_have_text(["Ann", "Tess", "Bo"])
    page.get_by_label("Player ID").fill("p-ann")
    page.get_by_role("button", name="Look up").click()
    button = page.get_by_test_id("moderation-button")
    expect(button).to_have_text("Hide on Global")
    expect(button).to_be_disabled()  # not signed in yet
    sign_in(page)
    expect(button).to_be_enabled()
    button.click()
    expect(page.get_by_test_id("player-hidden")).to_contain_text("Hidden on Global")
    expect(button).to_have_text("Show again on Global")
    stack.settle()
    expect(page.locator(ROW_NAMES)).to_have_text(["Tess", "Bo"], timeout=10_000)  # others no longer see her
    # The page looked her up again as it hid her, before the counters had her out: the edge may keep that answer
    # (total 4) for its lag, so this lookup is one made after it
    stack.wait_edge_lag()
    page.get_by_role("button", name="Look up").click()  # her own lookup: the rank she would have, of 2 + her
    card_stats(page.get_by_test_id("picked-board"), 1, len(GLOBAL_PLAYERS), 900)
    shoot(page.get_by_test_id("lookup-section"), "lookup-hidden", DESKTOP)

    button.click()
    expect(button).to_have_text("Hide on Global")
    expect(page.get_by_test_id("player-hidden")).to_have_count(0)
    stack.settle()
    expect(page.locator(ROW_NAMES)).to_have_text(["Ann", "Tess", "Bo"], timeout=10_000)  # back in her place
    no_problems(page)


def test_the_admin_panel_lists_the_boards_hidden_players_a_page_at_a_time_and_shows_one_again(stack, new_page):
    """Signed in: the players hidden on the board on screen, in id order, 10 a page with More; "Show again" puts
    one back on the table and in the lookup; another board has its own list; signed out: no list at all."""
    stack.reset()
    stack.create_board(CHESS)
    seed_players(stack, GLOBAL_PLAYERS)
    hidden = [f"p-hidden-{i:02d}" for i in range(11)]  # and p-bo: a page of 10 and 2 more
    for player_id in hidden:
        stack.submit(player_id, 10, player_id)
        stack.hide("global", player_id)
    stack.hide("global", "p-bo")
    stack.settle()
    page = new_page(admin=True)
    page.goto(f"{stack.dashboard}/")
    expect(page.locator(ROW_NAMES)).to_have_text(["Ann", "Tess"])
    expect(page.get_by_test_id("hidden-players")).to_be_hidden()  # not signed in: nothing to see
    sign_in(page)
    names = page.get_by_test_id("hidden-player")
    expected = sorted([*hidden, "p-bo"])
    expect(names).to_have_text(expected[:10])
    expect(page.get_by_test_id("hidden-status")).to_have_text("10 players hidden so far: more below.")
    page.get_by_test_id("hidden-more").click()
    expect(names).to_have_text(expected)
    expect(page.get_by_test_id("hidden-more")).to_be_hidden()
    expect(page.get_by_test_id("hidden-status")).to_have_text("12 players hidden.")

    page.get_by_label("Player ID").fill("p-bo")
    page.get_by_role("button", name="Look up").click()
    expect(page.get_by_test_id("player-hidden")).to_contain_text("Hidden on Global")
    page.locator("[data-testid=hidden-row][data-player-id=p-bo]").get_by_test_id("hidden-show").click()
    expect(page.get_by_test_id("player-hidden")).to_have_count(0)  # the lookup follows
    expect(names).to_have_text(sorted(hidden)[:10])  # the first page again, without her
    stack.settle()
    expect(page.locator(ROW_NAMES)).to_have_text(["Ann", "Tess", "Bo"], timeout=10_000)  # back on the table
    shoot(page.get_by_test_id("admin-section"), "hidden-players", DESKTOP)

    pick_board(page, CHESS["board_id"])  # another board: its own list, empty
    expect(page.get_by_test_id("hidden-board")).to_have_text(CHESS["name"])
    expect(page.get_by_test_id("hidden-status")).to_have_text("Nobody is hidden on this board.")
    expect(names).to_have_count(0)
    no_problems(page)
