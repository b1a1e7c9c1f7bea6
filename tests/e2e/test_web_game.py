"""The sample game (examples/web-game/) played in Chromium against the local stack, through the TypeScript SDK's
browser bundle: its server (node examples/web-game/server.mjs, reading a run.json as `make web-game` reads make
run's) creates the client-submission board and mints player tokens with the game key; the page starts one run per
play, submits the score with the run token, follows the live top 10 over AppSync Events and shows the rank and the
signed receipt, "verified" in the browser by the SDK's verifier and accepted by the shipped one. A score too fast
for a person is held for review, and said so.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import ADMIN_KEY, API_KEY
from dashboard_support import DESKTOP, PHONE, REPO, shoot
from playwright.sync_api import expect
from test_dashboard import no_problems

from leaderboard_verify.cli import run as verify

SERVER = REPO / "examples" / "web-game" / "server.mjs"
SDK_BUNDLE = REPO / "clients" / "typescript" / "dist" / "browser" / "leaderboard-client.js"
BOARD = "web-game"
CLICKS = 8  # well under the board's 15 clicks a second over the 10 s round (accepted), and quick on a busy machine
ROUND_MS = 10_000
# The stream's lag: the live push and the log (the receipt's 409s until then), on 2 cores busy with other suites
STREAM_WAIT_MS = 30_000


@dataclass
class Game:
    url: str
    proc: subprocess.Popen
    log: Path


def _started(proc: subprocess.Popen, log: Path) -> str:
    """The server's URL from its "Web game: <url>" line; a failure with its output if it exits or stalls first."""
    timer = threading.Timer(30, proc.kill)  # a server that never says it is ready fails the test, not the suite
    timer.start()
    try:
        for line in proc.stdout:
            if line.startswith("Web game: "):
                return line.split()[2]
    finally:
        timer.cancel()
    proc.wait(10)
    pytest.fail(f"the game's server did not start (exit {proc.returncode}):\n{log.read_text()[-3000:]}")


def _launch(stack, run_dir: Path, board: str, keys: dict) -> tuple[subprocess.Popen, Path]:
    """`node examples/web-game/server.mjs` on a free port, reading the stack's URL and `keys` from a run.json as
    make run writes it (LEADERBOARD_RUN_DIR)."""
    node = shutil.which("node")
    assert node, "node (20) is needed for the game's server"
    if not SDK_BUNDLE.exists():
        pytest.fail(f"the TypeScript SDK is not built ({SDK_BUNDLE.relative_to(REPO)} is missing): run `make clients`")
    run_dir.mkdir()
    # no edge in this stack's run.json ("none ..." as make run writes without nginx): the page reads the API
    (run_dir / "run.json").write_text(json.dumps({"api": stack.api, "edge": "none", **keys}))
    env = {**os.environ, "LEADERBOARD_RUN_DIR": str(run_dir), "WEB_GAME_PORT": "0", "WEB_GAME_BOARD": board}
    env.pop("LEADERBOARD_ADMIN_KEY", None)
    log = run_dir / "web-game.log"
    with open(log, "w") as stderr:
        proc = subprocess.Popen(
            [node, str(SERVER)], cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=stderr, text=True, bufsize=1
        )
    return proc, log


def _stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture
def game(stack, tmp_path):
    """The game's server for a stack with empty tables, with the game and admin keys: it creates its board."""
    stack.reset()
    proc, log = _launch(stack, tmp_path / "run", BOARD, {"api_key": API_KEY, "admin_key": ADMIN_KEY})
    try:
        yield Game(_started(proc, log), proc, log)
    finally:
        _stop(proc)


def _received(socket, frames: list[dict]) -> None:
    socket.on("framereceived", lambda payload: frames.append(json.loads(payload)))


def _pushes_naming(frames: list[dict], player_id: str) -> list[dict]:
    """The live events (AppSync Events `data` messages) whose top names the player."""
    events = [json.loads(f["event"]) for f in frames if f.get("type") == "data"]
    return [e for e in events if any(x["player_id"] == player_id for x in e.get("entries", []))]


def _start(page, game: Game, name: str) -> str:
    """Open the game, wait for its live top 10 to be live, press Start; the player's id (kept by the page)."""
    page.goto(game.url)
    expect(page.get_by_test_id("live-state")).to_have_attribute("data-state", "live")
    expect(page.get_by_test_id("top-empty")).to_be_visible()
    page.get_by_test_id("player-name").fill(name)
    page.get_by_test_id("start").click()
    expect(page.get_by_test_id("target")).to_be_visible()
    return page.evaluate("JSON.parse(localStorage.getItem('web-game-player')).id")


def test_a_play_is_a_run_whose_score_reaches_the_live_top_10_and_a_receipt_the_verifier_accepts(stack, new_page, game):
    page = new_page(viewport=DESKTOP)
    frames: list[dict] = []
    page.on("websocket", lambda socket: _received(socket, frames))
    sent = []
    page.on("request", lambda request: sent.append(request))
    player_id = _start(page, game, "Ada")
    target = page.get_by_test_id("target")
    for _ in range(CLICKS):
        target.click()
    expect(page.get_by_test_id("score")).to_have_text(str(CLICKS))
    # the round ends on its own after 10 s; then the score goes up with the run's token
    expect(page.get_by_test_id("status")).to_have_text("Score accepted.", timeout=ROUND_MS + 20_000)
    expect(page.get_by_test_id("outcome")).to_have_text(f"Score {CLICKS} accepted.")
    expect(page.get_by_test_id("rank")).to_contain_text("#1")

    # The API has it: the board's top, read past the page.
    top = stack.http.get(f"{stack.api}/leaderboards/{BOARD}/top", timeout=30).json()["entries"]
    assert [(e["player_id"], e["player_name"], e["score"]) for e in top] == [(player_id, "Ada", CLICKS)]

    # The live top 10 beside the game shows it, pushed over the WebSocket while the page said it was live.
    row = page.locator(f"[data-testid=top-row][data-player='{player_id}']")
    expect(row.get_by_test_id("row-name")).to_have_text("Ada", timeout=STREAM_WAIT_MS)
    expect(row.get_by_test_id("row-score")).to_have_text(str(CLICKS))
    expect(page.get_by_test_id("live-state")).to_have_attribute("data-state", "live")
    expect(page.get_by_test_id("top-list")).to_have_attribute("data-source", "live")  # the SDK's TopEvent.source
    pushes = _pushes_naming(frames, player_id)
    assert pushes and pushes[-1]["board"] == BOARD, f"no live push named {player_id}: {frames}"
    assert [(e["player_id"], e["score"]) for e in pushes[-1]["entries"]] == [(player_id, CLICKS)]

    # The signed receipt, shown with how to check it and saved as the file the command names, verifies against the
    # stack's log and keys.
    expect(page.get_by_test_id("receipt-facts")).to_contain_text(
        f"rank 1 of 1 with {CLICKS} on {BOARD}", timeout=STREAM_WAIT_MS
    )
    expect(page.get_by_test_id("verify-command")).to_have_text(
        f"python -m leaderboard_verify --url {stack.api} --receipt receipt.jws"
    )
    # Checked in the browser too, by the SDK's verifyReceipt against the API's published keys
    verified = page.get_by_test_id("receipt-verified")
    expect(verified).to_have_attribute("data-verified", "true")
    expect(verified).to_contain_text("verified: signed by key ")
    jwks = stack.http.get(f"{stack.api}/.well-known/jwks.json", timeout=30).json()
    expect(verified).to_contain_text(f"{jwks['keys'][0]['kid']} (current)")
    receipt = page.get_by_test_id("receipt").text_content().strip()
    with page.expect_download() as saved:
        page.get_by_test_id("receipt-download").click()
    assert saved.value.suggested_filename == "receipt.jws"
    assert Path(saved.value.path()).read_text() == receipt
    report = io.StringIO()
    assert verify(["--url", stack.api, "--receipt", receipt], report) == 0, report.getvalue()
    assert f"{player_id}: rank 1 of 1 with score {CLICKS}" in report.getvalue(), report.getvalue()
    shoot(page, "web-game", DESKTOP, full_page=True)
    no_problems(page)

    # The keys stay in the game's server: the page sent none, and nothing it was served holds one.
    assert [r.url for r in sent if "x-api-key" in r.headers] == []
    assert [r.url for r in sent if r.method == "POST" and r.url.startswith(stack.api)] == [
        f"{stack.api}/leaderboards/{BOARD}/runs",
        f"{stack.api}/leaderboards/{BOARD}/runs/{_run_id(sent)}/score",
    ]
    for path in ("", "config.json", "game.js"):
        served = stack.http.get(game.url + path, timeout=30).text
        assert API_KEY not in served and ADMIN_KEY not in served, path


def _run_id(sent) -> str:
    """The run the page submitted its score to (the URL's run id)."""
    (url,) = [r.url for r in sent if r.url.endswith("/score")]
    return url.rsplit("/", 2)[1]


def test_a_score_too_fast_for_a_person_is_held_for_review_and_shown_so(stack, new_page, game):
    page = new_page(viewport=PHONE)  # the game on a phone's screen, too
    player_id = _start(page, game, "Bot")
    # 200 hits at once (no person clicks that fast), then the page's clock past the round's end: the server
    # times the run itself, about a second, so 200 is over the board's 15 a second and the rule holds it
    page.evaluate(
        "() => { const t = document.querySelector('[data-testid=target]'); for (let i = 0; i < 200; i++) t.click(); }"
    )
    expect(page.get_by_test_id("score")).to_have_text("200")
    page.clock.fast_forward(ROUND_MS)
    expect(page.get_by_test_id("status")).to_have_text("Held for review.")
    expect(page.get_by_test_id("outcome")).to_contain_text("held for review (rule max_score_per_second)")
    expect(page.get_by_test_id("rank")).to_have_text("pending review")
    expect(page.get_by_test_id("receipt")).to_be_empty()
    # on no board: the top stays empty, on the page and in the API
    expect(page.get_by_test_id("top-empty")).to_be_visible()
    top = stack.http.get(f"{stack.api}/leaderboards/{BOARD}/top", timeout=30).json()["entries"]
    assert top == [], top
    assert player_id.startswith("web-")
    shoot(page, "web-game-held", PHONE, full_page=True)
    no_problems(page)
    # The game's server mints tokens only for ids the API takes, and says why it refuses one.
    refused = stack.http.post(f"{game.url}token", json={"player_id": "../admin"}, timeout=30)
    assert (refused.status_code, refused.json()["error"]) == (
        400,
        "player_id: 1-64 of A-Z a-z 0-9 _ . : @ - (not only dots)",
    )


def test_the_server_needs_no_admin_key_once_its_board_exists_and_says_so_when_it_does_not(stack, game, tmp_path):
    proc, log = _launch(stack, tmp_path / "game-key-only", BOARD, {"api_key": API_KEY})
    try:
        url = _started(proc, log)
        assert stack.http.post(f"{url}token", json={"player_id": "p-1"}, timeout=30).status_code == 201
    finally:
        _stop(proc)
    proc, log = _launch(stack, tmp_path / "no-board", "web-game-absent", {"api_key": API_KEY})
    assert proc.wait(30) == 1
    assert "board web-game-absent does not exist" in log.read_text(), log.read_text()
    assert stack.http.get(f"{stack.api}/leaderboards/web-game-absent", timeout=30).status_code == 404
