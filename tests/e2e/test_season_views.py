"""The season views of the dashboard, in Chromium through Nginx against the local stack: a tournament's
countdown and its closing (by the local stack's own scheduled closer), the periods list with a closed period's
final standings, the rank mode control, and the player's tier in the lookup.

Expected values are worked out here from the scores the test submits, never read back from the API.
"""

from __future__ import annotations

import re
import secrets
from datetime import datetime, timedelta

import pytest
from dashboard_support import DESKTOP
from playwright.sync_api import expect
from test_dashboard import ROW_NAMES, no_problems, open_dashboard, pick_board, seed_players

pytestmark = pytest.mark.slow

RANKS = "[data-testid=board-row] [data-testid=row-rank]"


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def ranked(players, descending=True):
    """[(rank, player_id, name, score)] in the unique order (no ties among these scores)."""
    order = sorted(players, key=lambda p: -p[2] if descending else p[2])
    return [(rank, pid, name, score) for rank, (pid, name, score) in enumerate(order, start=1)]


def percentile(rank: int, total: int) -> float:
    return round((total - rank) / total * 100, 1)


def tier_of(rank: int, total: int, tiers) -> str | None:
    """The first tier, from the highest minimum, that the player's percentile reaches."""
    for tier in sorted(tiers, key=lambda t: -t["min_percentile"]):
        if percentile(rank, total) >= tier["min_percentile"]:
            return tier["name"]
    return None


def cutoffs(standings, tiers) -> dict[str, int | None]:
    """Each tier's lowest score among the players who reach it (None: nobody does), by brute force."""
    total = len(standings)
    found = {}
    for tier in tiers:
        reaching = [score for rank, _, _, score in standings if percentile(rank, total) >= tier["min_percentile"]]
        found[tier["name"]] = min(reaching) if reaching else None
    return found


TIERS = [
    {"name": "diamond", "min_percentile": 99},
    {"name": "gold", "min_percentile": 75},
    {"name": "silver", "min_percentile": 40},
    {"name": "bronze", "min_percentile": 0},
]
REWARDS = [{"reward": "trophy", "ranks": [1, 1]}, {"reward": "medal", "ranks": [2, 3]}]
CUP = [  # submitted in this order, which is not the order of the scores
    ("t-cy", "Cy", 650),
    ("t-ada", "Ada", 900),
    ("t-ed", "Ed", 120),
    ("t-bo", "Bo", 700),
    ("t-di", "Di", 300),
]
# The tournament's end, from its creation: time to submit, open the page and see it count down in seconds (under a
# minute); the stack's clock and the page's are then moved to the end, not waited for.
ENDS_IN_S = 50
CLOSED_WITHIN_S = 30  # after the end: the local closer runs every 5 s, the periods list is read every 3 s meanwhile


def test_a_tournament_counts_down_then_closes_with_its_final_standings(stack, new_page):
    """A tournament ending in seconds counts down, ends, is closed by the scheduled closer on its own, and the
    periods view then shows its winners, final top and tier cut-offs for the scores submitted."""
    stack.reset()
    board = f"cup-{secrets.token_hex(3)}"
    now = stack.now()
    ends_at = now + timedelta(seconds=ENDS_IN_S)
    stack.create_board(
        {
            "board_id": board,
            "name": "Winter cup",
            "order": "desc",
            "operator": "best",
            "starts_at": iso(now - timedelta(seconds=1)),
            "ends_at": iso(ends_at),
            "rewards": REWARDS,
            "tiers": TIERS,
        }
    )
    later = "cup-later"  # another tournament, not started yet: its countdown is to the start
    stack.create_board(
        {
            "board_id": later,
            "name": "Spring cup",
            "order": "desc",
            "operator": "best",
            "starts_at": iso(now + timedelta(hours=1)),
            "ends_at": iso(now + timedelta(hours=2)),
        }
    )
    for player_id, name, score in CUP:
        stack.submit_to(board, player_id, score, name)
    stack.settle()

    page = open_dashboard(new_page, stack, hash_=f"#{board}/tournament")
    expect(page.get_by_test_id("board-select")).to_have_value(board)
    expect(page.get_by_role("tab")).to_have_text(["Tournament"])
    expect(page.locator(ROW_NAMES)).to_have_text(["Ada", "Bo", "Cy", "Di", "Ed"])
    countdown = page.get_by_test_id("tournament-countdown")
    expect(countdown).to_have_attribute("data-state", "running")
    expect(countdown).to_have_text(re.compile(r"^Tournament ends in \d{1,2} s · \w{3} \d{1,2} \w{3}, \d{2}:\d{2} UTC$"))
    first = countdown.text_content()
    expect(countdown).not_to_have_text(first)  # it ticks by the second
    periods = page.get_by_test_id("period-item")
    expect(periods).to_have_count(1)
    expect(periods.first).to_have_attribute("data-status", "open")
    expect(periods.first).to_contain_text("Ends in")

    # The end passes (the stack's clock and the page's moved past it): the countdown says so; the closer (every
    # 5 s) closes it without anyone asking.
    stack.advance(max(0.0, (ends_at - stack.now()).total_seconds()) + 0.5, page)
    expect(countdown).to_have_attribute("data-state", "ended")
    expect(countdown).to_have_text(re.compile(r"^Tournament ended · "))
    expect(periods.first).to_have_attribute("data-status", "closed", timeout=CLOSED_WITHIN_S * 1000)
    expect(periods.first.get_by_test_id("period-status")).to_have_text("closed")
    expect(periods.first).to_contain_text(f"{len(CUP)} players")

    periods.first.get_by_test_id("period-name").click()
    summary = page.get_by_test_id("period-summary")
    expect(summary).to_be_visible()
    expect(summary.get_by_test_id("summary-title")).to_have_text("Final standings: Tournament")
    standings = ranked(CUP)
    rows = summary.get_by_test_id("summary-row")
    expect(rows.locator(".n-rank")).to_have_text([f"#{rank}" for rank, *_ in standings])
    expect(rows.locator(".n-name")).to_have_text([name for _, _, name, _ in standings])
    expect(rows.locator(".n-score")).to_have_text([f"{score:,}" for *_, score in standings])
    names_at = {rank: name for rank, _, name, _ in standings}
    for reward in REWARDS:
        first_rank, last_rank = reward["ranks"]
        winners = ", ".join(names_at[r] for r in range(first_rank, last_rank + 1))
        expect(summary.locator(f"[data-reward={reward['reward']}] [data-testid=reward-players]")).to_have_text(winners)
    for name, score in cutoffs(standings, TIERS).items():
        cutoff = summary.locator(f"[data-testid=summary-tier][data-tier={name}] [data-testid=tier-cutoff]")
        expect(cutoff).to_have_text("nobody reached it" if score is None else f"≥ {score:,}")
    expect(periods.first.get_by_test_id("period-name")).to_have_attribute("aria-pressed", "true")

    # A tournament that has not started counts down to its start.
    pick_board(page, later)
    expect(countdown).to_have_attribute("data-state", "upcoming")
    # Under the hour it was created ahead of (the clocks moved on by about ENDS_IN_S since)
    expect(countdown).to_have_text(re.compile(r"^Tournament starts in (5\d min \d{2} s|1 h 00 min 00 s) · "))
    expect(page.get_by_test_id("period-summary")).to_be_hidden()  # the summary belonged to the other board
    no_problems(page)


TIES = [("p-top", "Top", 300), ("p-bee", "Bee", 200), ("p-cee", "Cee", 200), ("p-low", "Low", 100)]


def test_rank_mode_competition_shares_ranks_and_is_remembered(stack, new_page):
    """Tied scores: unique ranks 1, 2, 3, 4; competition ranks 1, 2, 2, 4, in the table and the lookup."""
    stack.reset()
    seed_players(stack, TIES)  # Bee reached 200 first: ahead of Cee in the unique order
    page = open_dashboard(new_page, stack)
    mode = page.get_by_label("Ties")
    expect(mode).to_have_value("unique")
    expect(page.locator(ROW_NAMES)).to_have_text(["Top", "Bee", "Cee", "Low"])
    expect(page.locator(RANKS)).to_have_text(["1", "2", "3", "4"])

    mode.select_option("competition")
    expect(page.locator(RANKS)).to_have_text(["1", "2", "2", "4"])
    expect(page.locator(ROW_NAMES)).to_have_text(["Top", "Bee", "Cee", "Low"])
    assert page.evaluate(
        "[...document.querySelectorAll('#request-log-body code')]"
        ".some(c => c.textContent.includes('/api/leaderboard?period=all-time&limit=25&rank_mode=competition'))"
    )
    # The lookup numbers the players around the same way.
    page.get_by_label("Player ID").fill("p-cee")
    page.get_by_role("button", name="Look up").click()
    card = page.get_by_test_id("picked-board")  # the default board's all-time, picked above the table
    expect(card.locator(".neighbour-list li .n-rank")).to_have_text(["#1", "#2", "#2", "#4"])
    expect(card.get_by_test_id("player-rank")).to_have_text("#2 of 4")

    # Remembered for the next visit, in this browser.
    page.reload()
    expect(page.get_by_label("Ties")).to_have_value("competition")
    expect(page.locator(RANKS)).to_have_text(["1", "2", "2", "4"])
    page.get_by_label("Ties").select_option("unique")
    expect(page.locator(RANKS)).to_have_text(["1", "2", "3", "4"])

    # On another board the mode goes to its own route too.
    for player_id, name, seconds in [("p-a", "A", 61_000), ("p-b", "B", 62_000), ("p-c", "C", 62_000)]:
        stack.submit_to("speedrun", player_id, seconds, name)
    stack.settle()
    pick_board(page, "speedrun")
    expect(page.locator(RANKS)).to_have_text(["1", "2", "3"])
    page.get_by_label("Ties").select_option("competition")
    expect(page.locator(RANKS)).to_have_text(["1", "2", "2"])
    no_problems(page)


LEAGUE_TIERS = [  # no tier for everyone: the last players reach none
    {"name": "diamond", "min_percentile": 99},
    {"name": "gold", "min_percentile": 90},
    {"name": "silver", "min_percentile": 50},
]
LEAGUE = [(f"l-{i:02d}", f"League {i:02d}", 1_000 - i * 10) for i in range(1, 11)]


def test_lookup_shows_the_players_tier_on_a_board_with_tiers(stack, new_page):
    """The lookup on a board with tiers names the player's tier ("none" below the lowest); other boards have none."""
    stack.reset()
    stack.create_board(
        {
            "board_id": "league",
            "name": "League",
            "order": "desc",
            "operator": "best",
            "periods": ["all-time"],
            "tiers": LEAGUE_TIERS,
        }
    )
    for player_id, name, score in LEAGUE:
        stack.submit_to("league", player_id, score, name)
    stack.submit("l-01", 50, "League 01")  # also on the default board, which has no tiers
    stack.settle()
    standings = ranked(LEAGUE)
    page = open_dashboard(new_page, stack, viewport=DESKTOP, hash_="#league/all-time")
    expect(page.locator(ROW_NAMES).first).to_have_text("League 01")
    for rank in (1, 5, 6, 10):
        _, player_id, _, _ = standings[rank - 1]
        expected = tier_of(rank, len(standings), LEAGUE_TIERS)
        page.get_by_label("Player ID").fill(player_id)
        page.get_by_role("button", name="Look up").click()
        picked = page.get_by_test_id("picked-board")
        expect(picked.get_by_test_id("player-rank")).to_have_text(f"#{rank} of {len(standings)}")
        expect(picked.get_by_test_id("player-tier")).to_have_text(expected or "none")
    page.get_by_label("Player ID").fill("l-01")
    page.get_by_role("button", name="Look up").click()
    expect(page.get_by_test_id("picked-board").get_by_test_id("player-tier")).to_have_text("gold")
    expect(page.get_by_test_id("player-board")).to_have_count(4)  # league + the default board's three periods
    expect(page.get_by_test_id("player-tier")).to_have_count(1)  # the default board's cards name no tier
    no_problems(page)


def test_periods_list_of_the_default_board_shows_open_and_closed_periods(stack, new_page):
    """The default board's periods: the open ones with the time to their end (all-time never ends), then the
    ones the closer closed when the tables were emptied (yesterday's day, last week), with nobody on them."""
    stack.reset()
    seed_players(stack, TIES)
    page = open_dashboard(new_page, stack)
    items = page.get_by_test_id("period-item")
    expect(items).to_have_count(5)
    expect(items.get_by_test_id("period-status")).to_have_text(["open", "open", "open", "closed", "closed"])
    expect(items.filter(has_text="All-Time")).to_contain_text("Never ends · 4 players")
    expect(items.filter(has_text="Today (")).to_contain_text(re.compile(r"Ends in .+ · \w{3} \d{1,2} \w{3}, 00:00 UTC"))
    yesterday = (stack.now() - timedelta(days=1)).date().isoformat()
    closed_day = page.locator(f"[data-testid=period-item][data-period-id=daily-{yesterday}]")
    expect(closed_day).to_have_attribute("data-status", "closed")
    expect(closed_day).to_contain_text(re.compile(r"Closed .+ · 0 players"))
    closed_day.get_by_test_id("period-name").click()
    summary = page.get_by_test_id("period-summary")
    expect(summary.get_by_test_id("summary-title")).to_have_text(f"Final standings: Day {yesterday}")
    expect(summary.get_by_test_id("summary-top")).to_have_text("Nobody played in this period.")
    no_problems(page)
