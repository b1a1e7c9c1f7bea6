"""The review queue in the admin panel, in Chromium through Nginx against the local stack: the submissions a board's
plausibility rules held back (quarantine), 10 a page with More, each with the rule that fired, its run and the
evidence the client sent; Approve puts the score on the board, Reject drops it; a decision another reviewer (or a
validator) made first is said so, as the other admin actions say their failures. The queue is usable on a phone,
and a signed-in admin sees a player's held scores in their lookup (signed out: none, as no public read shows them).

The pending submissions are made as a game would: game-key submissions over the board's max_score, and one from a
client through a player token, a run and its run token, with evidence.
"""

from __future__ import annotations

import pytest
from conftest import ADMIN_KEY, API_KEY
from dashboard_support import DESKTOP, PHONE, shoot
from playwright.sync_api import expect
from test_dashboard import ROW_NAMES, no_problems, pick_board, seed_players, sign_in

pytestmark = pytest.mark.slow

ARENA = {
    "board_id": "arena",
    "name": "Arena",
    "order": "desc",
    "operator": "best",
    "periods": ["all-time"],
    "submissions": "client",
    "rules": {"max_score": {"value": 1000, "action": "quarantine"}},
}
HONEST = [("p-ann", "Ann", 900), ("p-bo", "Bo", 700)]
HELD = [(f"p-held-{i:02d}", 5000 + i) for i in range(11)]  # a page of 10, then 1 more, then the run's
EVIDENCE = {"inputs": ["L", "L", "jump"], "replay": "replays/run-1.bin"}
QUEUE_ROWS = "[data-testid=pending-row]"


def _post(stack, path: str, key: str | None = None, **kwargs):
    headers = kwargs.pop("headers", {})
    if key:
        headers["x-api-key"] = key
    return stack.http.post(f"{stack.api}{path}", headers=headers, timeout=30, **kwargs)


def _held_by_the_game_server(stack, player_id: str, score: int) -> str:
    answer = _post(stack, "/leaderboards/arena/scores", API_KEY, json={"player_id": player_id, "score": score})
    assert answer.status_code == 202, answer.text
    assert answer.json()["rule"] == "max_score"
    return answer.json()["pending_id"]


def _held_from_a_run(stack, player_id: str, name: str, score: int) -> tuple[str, str]:
    """The client flow: the game's backend mints a player token, the device starts a run and submits with it."""
    token = _post(stack, f"/players/{player_id}/tokens", API_KEY, json={"boards": ["arena"]})
    assert token.status_code == 201, token.text
    bearer = {"Authorization": f"Bearer {token.json()['token']}"}
    run = _post(stack, "/leaderboards/arena/runs", headers=bearer)
    assert run.status_code == 201, run.text
    body = {"player_id": player_id, "player_name": name, "score": score, "evidence": EVIDENCE}
    path, headers = (
        f"/leaderboards/arena/runs/{run.json()['run_id']}/score",
        {"Authorization": f"Bearer {run.json()['run_token']}"},
    )
    answer = _post(stack, path, json=body, headers=headers)
    assert answer.status_code == 202, answer.text
    return answer.json()["pending_id"], run.json()["run_id"]


def _queue_of(stack) -> list[str]:
    answer = stack.http.get(f"{stack.api}/leaderboards/arena/pending?limit=100", headers={"x-api-key": ADMIN_KEY})
    assert answer.status_code == 200, answer.text
    return [p["player_id"] for p in answer.json()["pending"]]


def _row(page, player_id: str):
    return page.locator(f"{QUEUE_ROWS}[data-player-id='{player_id}']")


def test_an_admin_reviews_the_boards_pending_submissions_and_approves_and_rejects(stack, new_page):
    stack.reset()
    stack.create_board(ARENA)
    for player_id, name, score in HONEST:
        stack.submit_to("arena", player_id, score, name)
    for player_id, score in HELD:
        _held_by_the_game_server(stack, player_id, score)
    run_pending, run_id = _held_from_a_run(stack, "p-run", "Runner", 9999)
    stack.settle()

    page = new_page(admin=True)
    page.goto(f"{stack.dashboard}/")
    pick_board(page, "arena")
    expect(page.get_by_test_id("pending-queue")).to_be_hidden()  # signed out: no queue at all
    expect(page.locator(ROW_NAMES)).to_have_text(["Ann", "Bo"])  # a held score is on no list
    sign_in(page)
    expect(page.get_by_test_id("pending-board")).to_have_text("Arena")
    players = page.get_by_test_id("pending-player")
    expect(players).to_have_text([p for p, _ in HELD[:10]])  # oldest first
    status = page.get_by_test_id("pending-status")
    expect(status).to_have_text("10 submissions waiting for review so far: more below.")
    page.get_by_test_id("pending-more").click()
    expect(players).to_have_text([*(p for p, _ in HELD), "p-run"])
    expect(page.get_by_test_id("pending-more")).to_be_hidden()
    expect(status).to_have_text("12 submissions waiting for review.")

    ran = _row(page, "p-run")
    expect(ran.get_by_test_id("pending-score")).to_have_text("9,999")
    expect(ran.get_by_test_id("pending-rule")).to_have_text("max_score")
    expect(ran.get_by_test_id("pending-run")).to_have_text(f"run {run_id}")
    expect(ran.get_by_test_id("pending-evidence")).to_be_visible()
    ran.get_by_test_id("pending-evidence").locator("summary").click()
    expect(ran.get_by_test_id("pending-evidence").locator("pre")).to_contain_text('"replay": "replays/run-1.bin"')
    held = _row(page, "p-held-00")
    expect(held.get_by_test_id("pending-run")).to_have_count(0)  # a game server's submission has no run
    expect(held.get_by_test_id("pending-evidence")).to_have_count(0)
    shoot(page.get_by_test_id("admin-section"), "review-queue", DESKTOP)

    ran.get_by_test_id("pending-approve").click()
    expect(status).to_contain_text("Approved: p-run’s 9,999 is on the board")
    expect(_row(page, "p-run")).to_have_count(0)
    expect(status).to_contain_text("10 submissions waiting for review so far: more below.")
    stack.settle()
    expect(page.locator(ROW_NAMES)).to_have_text(["Runner", "Ann", "Bo"], timeout=30_000)  # in its place

    held.get_by_test_id("pending-reject").click()
    expect(status).to_contain_text("Rejected: p-held-00’s 5,000 is dropped")
    expect(players).to_have_text([p for p, _ in HELD[1:]])
    expect(status).to_contain_text("10 submissions waiting for review.")
    assert _queue_of(stack) == [p for p, _ in HELD[1:]]

    # Decided elsewhere first (another reviewer, a validator): the page says so and lists the queue again.
    pending_ids = [
        row["pending_id"]
        for row in stack.http.get(
            f"{stack.api}/leaderboards/arena/pending", headers={"x-api-key": ADMIN_KEY}, timeout=30
        ).json()["pending"]
    ]
    gone = _post(stack, f"/leaderboards/arena/pending/{pending_ids[0]}/reject", ADMIN_KEY)
    assert gone.status_code == 200, gone.text
    _row(page, "p-held-01").get_by_test_id("pending-approve").click()
    expect(status).to_have_attribute("data-kind", "error")
    expect(status).to_contain_text("API error (HTTP 404)")
    expect(status).to_contain_text("9 submissions waiting for review.")
    expect(players).to_have_text([p for p, _ in HELD[2:]])
    expect(page.locator(ROW_NAMES)).to_have_text(["Runner", "Ann", "Bo"])  # nothing else changed
    assert run_pending not in pending_ids
    no_problems(page)


def test_each_board_has_its_own_queue(stack, new_page):
    """Another board (the default one, without rules) lists nothing; back on the arena its queue again."""
    stack.reset()
    stack.create_board(ARENA)
    seed_players(stack, [("p-ann", "Ann", 900)])
    _held_by_the_game_server(stack, "p-held", 4242)
    page = new_page(admin=True)
    page.goto(f"{stack.dashboard}/")
    sign_in(page)
    expect(page.get_by_test_id("pending-status")).to_have_text("No submission is waiting for review on this board.")
    pick_board(page, "arena")
    expect(page.get_by_test_id("pending-player")).to_have_text(["p-held"])
    expect(page.get_by_test_id("pending-score")).to_have_text(["4,242"])
    no_problems(page)


def _overflowing(page, scope: str) -> list:
    """Elements inside `scope` that reach past the viewport's right edge (or start left of it)."""
    return page.evaluate(
        """scope => [...document.querySelectorAll(scope + ' *')]
            .filter(e => e.getClientRects().length)
            .map(e => [e.tagName, e.className, e.getBoundingClientRect()])
            .filter(([, , r]) => r.left < 0 || r.right > window.innerWidth + 0.5)
            .map(([tag, cls, r]) => [tag, String(cls), Math.round(r.left), Math.round(r.right)])""",
        scope,
    )


def test_the_review_queue_is_usable_on_a_phone(stack, new_page):
    """At 390 px the queue's rows, the evidence (long JSON included) and both buttons stay inside the screen, the
    page does not scroll sideways, and the buttons work; the screenshot docs/DASHBOARD.md shows."""
    stack.reset()
    stack.create_board(ARENA)
    for player_id, name, score in HONEST:
        stack.submit_to("arena", player_id, score, name)
    for player_id, score in HELD[:2]:
        _held_by_the_game_server(stack, player_id, score)
    _held_from_a_run(stack, "p-run-with-a-long-player-id-0123456789", "Runner", 9999)
    stack.settle()

    page = new_page(viewport=PHONE, admin=True)
    page.goto(f"{stack.dashboard}/")
    pick_board(page, "arena")
    sign_in(page)
    players = page.get_by_test_id("pending-player")
    expect(players).to_have_text([HELD[0][0], HELD[1][0], "p-run-with-a-long-player-id-0123456789"])
    ran = _row(page, "p-run-with-a-long-player-id-0123456789")
    ran.get_by_test_id("pending-evidence").locator("summary").click()
    expect(ran.get_by_test_id("pending-evidence").locator("pre")).to_contain_text('"replay": "replays/run-1.bin"')
    page.get_by_test_id("pending-queue").scroll_into_view_if_needed()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert _overflowing(page, "[data-testid=pending-queue]") == []
    for button in page.locator("[data-testid=pending-approve], [data-testid=pending-reject]").all():
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
        assert box["height"] >= 24, box  # a finger can hit it
    shoot(page.get_by_test_id("admin-section"), "review-queue", PHONE)

    ran.get_by_test_id("pending-reject").click()
    status = page.get_by_test_id("pending-status")
    expect(status).to_contain_text("Rejected: p-run-with-a-long-player-id-0123456789’s 9,999 is dropped")
    _row(page, HELD[0][0]).get_by_test_id("pending-approve").click()
    expect(status).to_contain_text(f"Approved: {HELD[0][0]}’s 5,000 is on the board")
    expect(players).to_have_text([HELD[1][0]])
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    no_problems(page)


def _look_up(page, player_id: str) -> None:
    page.get_by_label("Player ID").fill(player_id)
    page.get_by_role("button", name="Look up").click()


def test_a_players_held_scores_show_in_the_lookup_to_a_signed_in_admin_only(stack, new_page):
    """A score the board's rule holds back is in no public read: signed out, the lookup shows none. A
    signed-in admin sees it in the player's lookup as "pending review", with the score and the rule, beside their
    ranked score; a player whose only score is held is found by it; once approved it is a rank."""
    stack.reset()
    stack.create_board(ARENA)
    for player_id, name, score in HONEST:
        stack.submit_to("arena", player_id, score, name)
    _held_by_the_game_server(stack, "p-ann", 5000)
    newcomer, _ = _held_from_a_run(stack, "p-new", "Newcomer", 7777)
    stack.settle()

    public = new_page()
    public.goto(f"{stack.dashboard}/")
    pick_board(public, "arena")
    _look_up(public, "p-ann")
    expect(public.get_by_test_id("picked-board").get_by_test_id("player-score")).to_have_text("900")
    expect(public.get_by_test_id("lookup-status")).not_to_contain_text("pending")
    expect(public.get_by_test_id("player-pending-row")).to_have_count(0)
    _look_up(public, "p-new")
    expect(public.get_by_test_id("lookup-status")).to_have_text("No player with ID “p-new” is on any board yet.")
    no_problems(public)

    page = new_page(admin=True)
    page.goto(f"{stack.dashboard}/")
    pick_board(page, "arena")
    sign_in(page)
    _look_up(page, "p-ann")
    status = page.get_by_test_id("lookup-status")
    expect(status).to_contain_text("1 score pending review on Arena.")
    expect(page.get_by_test_id("picked-board").get_by_test_id("player-score")).to_have_text("900")
    held = page.get_by_test_id("player-pending-row")
    expect(held).to_have_count(1)
    expect(held).to_contain_text("pending review")
    expect(held.get_by_test_id("player-pending-score")).to_have_text("5,000")
    expect(held.get_by_test_id("player-pending-rule")).to_have_text("max_score")
    shoot(page.get_by_test_id("lookup-section"), "lookup-pending", DESKTOP)

    _look_up(page, "p-new")  # no entry yet: found by the held score alone
    expect(status).to_have_text("Not ranked on any board yet; 1 score pending review on Arena.")
    expect(page.get_by_test_id("picked-board")).to_contain_text("Not on Arena")
    expect(held.get_by_test_id("player-pending-score")).to_have_text("7,777")
    expect(held.get_by_test_id("player-pending-rule")).to_have_text("max_score")
    text = page.get_by_test_id("player-pending").inner_html()
    assert "<script" not in text and "pending review" in text

    approved = _post(stack, f"/leaderboards/arena/pending/{newcomer}/approve", ADMIN_KEY)
    assert approved.status_code == 200, approved.text
    stack.settle()
    stack.wait_edge_lag()
    _look_up(page, "p-new")
    expect(page.get_by_test_id("picked-board").get_by_test_id("player-rank")).to_contain_text("#1", timeout=10_000)
    expect(held).to_have_count(0)
    no_problems(page)
