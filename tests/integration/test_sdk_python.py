"""The Python SDK (clients/python) as a game server gets it: THE BUILT WHEEL (make clients), installed into a folder of
its own and imported from there, against this worker's local stack over HTTP.

Every operation of the OpenAPI document (.local/openapi.json, which the SDK is generated from) is called through the
SDK and answers a 2xx (an httpx response hook records each call's method and path template: the coverage test names
any operation left out); then the hand-written flows: bulk submit, an Idempotency-Key twice storing once, paging to
the end, a score held for review, a real 429 from the stack retried after its Retry-After, and the retry policy's
rules. The stack's clock is moved, never waited for (tests/support/clock.py), except the 429's Retry-After (3 s)."""

from __future__ import annotations

import importlib
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from datetime import timedelta
from importlib import metadata
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import httpx
import pytest
from packaging.requirements import Requirement

from cdk_leaderboard_lambda.shared.clock import iso
from tests.support import clock

from .stack_config import ADMIN_KEY, API_KEY

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "clients" / "python" / "dist"
DOCUMENT = ROOT / ".local" / "openapi.json"
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def _built_wheel() -> Path:
    wheels = sorted(DIST.glob("cdk_leaderboard_client-*.whl"))
    if len(wheels) != 1 or not DOCUMENT.is_file():
        pytest.fail(f"the Python SDK is not built ({DIST}: {[w.name for w in wheels]}): run `make clients`")
    return wheels[0]


@pytest.fixture(scope="module")
def sdk(tmp_path_factory) -> Iterator[ModuleType]:
    """`leaderboard_client` imported from the wheel, installed (no dependencies: the venv pins them) into a folder put
    first on sys.path; the source tree (clients/python/src) is on no path."""
    target = tmp_path_factory.mktemp("sdk-wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", "--target", str(target)]
        + [str(_built_wheel())],
        check=True,
    )
    sys.path.insert(0, str(target))
    try:
        module = importlib.import_module("leaderboard_client")
        assert Path(module.__file__ or "").is_relative_to(target), module.__file__
        yield module
    finally:
        sys.path.remove(str(target))
        for name in [n for n in sys.modules if n == "leaderboard_client" or n.startswith("leaderboard_client.")]:
            del sys.modules[name]


class Calls:
    """Each call's (method, path template, status), from an httpx response hook: one per call, retries included in
    it (they happen under the hook, in the SDK's transport)."""

    def __init__(self, document: dict) -> None:
        self.operations = {
            (method.upper(), path) for path, item in document["paths"].items() for method in item if method in METHODS
        }
        # a path's template: the literal segments must match; {params} take one segment
        self._patterns = [
            (re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$"), path)
            for path in {p for _, p in self.operations}
        ]
        self.seen: list[tuple[str, str, int]] = []

    def template(self, path: str) -> str:
        matches = [template for pattern, template in self._patterns if pattern.match(path)]
        # /leaderboards/{board} against /leaderboards/x only; a literal beats a parameter where both could match
        return min(matches, key=lambda t: t.count("{")) if matches else path

    def hook(self, response: httpx.Response) -> None:
        request = response.request
        self.seen.append((request.method, self.template(request.url.path), response.status_code))


@pytest.fixture(scope="module")
def document() -> dict:
    _built_wheel()
    return json.loads(DOCUMENT.read_text())


@pytest.fixture(scope="module")
def calls(document) -> Calls:
    return Calls(document)


@pytest.fixture(scope="module")
def sdks(sdk, stack, calls) -> Iterator[SimpleNamespace]:
    """The game server's client (game key), the operator's (admin key) and a keyless one for public reads, all
    recording their calls; the tables emptied first (board ids are this file's own: `sdk-...`)."""
    stack.reset_tables()
    hooks = {"response": [calls.hook]}
    with (
        sdk.Leaderboard(stack.api_url, api_key=API_KEY, event_hooks=hooks) as game,
        sdk.Leaderboard(stack.api_url, api_key=ADMIN_KEY, event_hooks=hooks) as admin,
        sdk.Leaderboard(stack.api_url, event_hooks=hooks) as public,
    ):
        yield SimpleNamespace(game=game, admin=admin, public=public)


def op(name: str) -> Any:
    """A generated operation's module (leaderboard_client.generated.api.default.<operationId>)."""
    return importlib.import_module(f"leaderboard_client.generated.api.default.{name}")


def model(name: str) -> Any:
    return getattr(importlib.import_module("leaderboard_client.generated.models"), name)


def ok(name: str, *args: Any, **kw: Any) -> Any:
    """Calls an operation through the SDK; its parsed 2xx answer (a generated model), or the test fails with the
    answer."""
    response = op(name).sync_detailed(*args, **kw)
    assert 200 <= response.status_code < 300, f"{name}: {response.status_code} {response.content[:300]!r}"
    assert response.parsed is not None and type(response.parsed).__name__ != "Error", name
    return response.parsed


def test_the_wheel_declares_what_its_code_imports_and_the_venv_satisfies_it(sdk):
    """The wheel's Requires-Dist (ranges) admit the versions the dev venv pins, and it ships the generated half."""
    wheel = _built_wheel()
    names = zipfile.ZipFile(wheel).namelist()
    assert "leaderboard_client/generated/api/default/post_leaderboards_board_scores.py" in names
    (sdist,) = DIST.glob("cdk_leaderboard_client-*.tar.gz")  # the sdist holds the generated half too
    with tarfile.open(sdist) as archive:
        generated = "leaderboard_client/generated/api/default/post_leaderboards_board_scores.py"
        assert any(n.endswith(generated) for n in archive.getnames())
    assert "leaderboard_client/py.typed" in names and not any("__pycache__" in n for n in names)
    dist = metadata.distribution("cdk-leaderboard-client")  # the target folder is first on sys.path
    assert Path(str(dist.locate_file(""))).resolve() == Path(sdk.__file__).resolve().parents[1]
    required = {Requirement(r).name.lower(): Requirement(r) for r in dist.requires or []}
    assert set(required) == {"httpx", "attrs", "pyjwt", "cryptography"}
    for name, requirement in required.items():
        assert requirement.specifier.contains(metadata.version(name)), (name, metadata.version(name))


def test_every_operation_of_the_document_answers_through_the_sdk(sdks, sdk, stack, calls):
    """One tour of the whole API through the SDK's generated operations (lb.api, lb.as_player) and its flows, each
    call a 2xx parsed into the operation's model; then the recorded calls cover the document's operations."""
    game, admin, public = sdks.game, sdks.admin, sdks.public
    board, held, cup = "sdk-tour", "sdk-held", "sdk-cup"

    # discovery and the default board's original routes
    assert ok("get_openapi_json", client=public.api).openapi.startswith("3.0")
    assert ok("get_well_known_jwks_json", client=public.api).keys
    ok("post_scores", client=game.api, body=model("PostScoresBody").from_dict({"player_id": "sdk-ada", "score": 7}))
    assert ok("get_leaderboard", client=public.api).entries[0].player_id == "sdk-ada"
    ok("get_player", client=public.api, player_id="sdk-ada")
    ok("post_snapshot", client=admin.api, body=model("PostSnapshotBody").from_dict({"limit": 5}))
    assert ok("get_snapshots", client=public.api).snapshots
    ok("post_simulate", client=admin.api, body=model("PostSimulateBody").from_dict({"players": 3}))

    # boards: a client board for the run flow, one whose rule holds scores back, a short tournament to close
    body = {"board_id": board, "periods": ["all-time", "daily"], "submissions": "client"}
    ok("post_leaderboards", client=admin.api, body=model("PostLeaderboardsBody").from_dict(body))
    rules = {"max_score": {"value": 1000, "action": "quarantine"}}
    ok("post_leaderboards", client=admin.api, body=model("PostLeaderboardsBody").from_dict({"board_id": held}))
    patch = model("PatchLeaderboardsBoardBody").from_dict({"rules": rules})
    assert "max_score" in ok("patch_leaderboards_board", held, client=admin.api, body=patch).rules.to_dict()
    now = stack.clock.now()
    end = now + timedelta(seconds=30)
    window = {"board_id": cup, "starts_at": iso(now - timedelta(seconds=1)), "ends_at": iso(end)}
    ok("post_leaderboards", client=admin.api, body=model("PostLeaderboardsBody").from_dict(window))
    assert board in [b.board_id for b in ok("get_leaderboards", client=public.api).leaderboards]
    assert ok("get_leaderboards_board", board, client=public.api).board_id == board

    # submissions: the game key (the SDK's flows), then a player's run on the client board
    submitted = game.submit(board, player_id="sdk-bob", score=50, player_name="Bob", metadata={"car": "red"})
    assert isinstance(submitted, sdk.BoardSubmit) and submitted.player_name == "Bob"
    bulk = game.submit_bulk(board, [{"player_id": f"sdk-p{i}", "score": 10 + i} for i in range(5)])
    assert bulk.accepted == 5
    game.submit_bulk(cup, [{"player_id": "sdk-bob", "score": 3}, {"player_id": "sdk-cy", "score": 4}])
    token = game.player_token("sdk-cy", boards=[board]).token
    with game.as_player(token) as player:
        run = ok("post_leaderboards_board_runs", board, client=player)
        with game.as_player(run.run_token) as runner:
            score = model("PostLeaderboardsBoardRunsRunIdScoreBody").from_dict({"player_id": "sdk-cy", "score": 60})
            submitted = ok("post_leaderboards_board_runs_run_id_score", board, run.run_id, client=runner, body=score)
            assert isinstance(submitted, sdk.BoardSubmit)
        stack.settle()  # the log (and so a receipt) follows the write through the stream
        receipt = ok("get_leaderboards_board_players_player_id_receipt", board, "sdk-cy", client=player)
        assert receipt.receipt.count(".") == 2  # a JWS (docs/PROVING.md)

        # a score held back for review: the player sees it with their token, the admin decides
        pending = [game.submit(held, player_id=p, score=5000) for p in ("sdk-cy", "sdk-dee")]
        assert all(isinstance(p, sdk.PendingScore) for p in pending)
        assert [p.pending_id for p in ok("get_players_player_id", "sdk-cy", client=player).pending] == []  # limited
    with game.as_player(game.player_token("sdk-cy").token) as player:
        mine = ok("get_players_player_id", "sdk-cy", client=player).pending
        assert [p.pending_id for p in mine] == [pending[0].pending_id]
    queue = ok("get_leaderboards_board_pending", held, client=admin.api)
    assert {p.pending_id for p in queue.pending} == {p.pending_id for p in pending}
    ok("post_leaderboards_board_pending_pending_id_approve", held, pending[0].pending_id, client=admin.api)
    ok("post_leaderboards_board_pending_pending_id_reject", held, pending[1].pending_id, client=admin.api)

    # reads
    stack.settle()
    assert [e.player_id for e in ok("get_leaderboards_board_top", board, client=public.api).entries][:2] == [
        "sdk-cy",
        "sdk-bob",
    ]
    page = ok("get_leaderboards_board_range", board, client=public.api, min_score=10, max_score=14)
    assert len(page.entries) == 5
    bob = ok("get_leaderboards_board_players_player_id", board, "sdk-bob", client=public.api)
    assert (bob.rank, bob.metadata.to_dict()) == (2, {"car": "red"})
    friends = ok("get_leaderboards_board_players", board, client=public.api, ids="sdk-bob,sdk-cy")
    assert [e.player_id for e in friends.entries] == ["sdk-cy", "sdk-bob"]
    assert ok("get_players_player_id_boards", "sdk-bob", client=public.api).boards
    assert ok("get_leaderboards_board_scores", board, client=public.api).token
    periods = ok("get_leaderboards_board_periods", board, client=public.api).periods
    assert {p.period_id for p in periods} >= {"all-time"}
    assert ok("get_leaderboards_board_periods_period_id", board, "all-time", client=public.api).period_id == "all-time"
    assert ok("get_leaderboards_board_periods_period_id_log", board, "all-time", client=public.api).records

    # moderation
    ok("put_leaderboards_board_players_player_id_hidden", board, "sdk-p0", client=admin.api)
    assert [p.player_id for p in ok("get_leaderboards_board_hidden", board, client=admin.api).players] == ["sdk-p0"]
    ok("delete_leaderboards_board_players_player_id_hidden", board, "sdk-p0", client=admin.api)
    ok("delete_leaderboards_board_players_player_id", board, "sdk-p1", client=admin.api)

    # the tournament over, closed; an erasure started and its status read; a board deleted
    clock.move(stack, to=end + timedelta(milliseconds=50))
    closed = ok("post_leaderboards_board_periods_period_id_close", cup, "tournament", client=admin.api)
    assert closed.status.value == "closed"
    erasure = ok("delete_players_player_id", "sdk-dee", client=admin.api)
    assert ok("get_erasures_erasure_id", erasure.erasure_id, client=public.api).erasure_id == erasure.erasure_id
    ok("delete_leaderboards_board", board, client=admin.api)

    answered = {(method, path) for method, path, status in calls.seen if 200 <= status < 300}
    missing = sorted(calls.operations - answered)
    assert not missing, f"operations of {DOCUMENT.name} never answered a 2xx through the SDK: {missing}"


def test_bulk_submit_and_paging_to_the_end(sdks, calls):
    """250 entries in one bulk request (one of them refused on its own); entries() walks /top three pages to the end,
    best first, each entry once."""
    game, admin = sdks.game, sdks.admin
    ok("post_leaderboards", client=admin.api, body=model("PostLeaderboardsBody").from_dict({"board_id": "sdk-pages"}))
    entries = [{"player_id": f"sdk-page-{i:03d}", "score": i} for i in range(250)]
    entries.append({"player_id": "sdk-page-bad", "score": "many"})  # refused alone, by the handler's validation
    bulk = game.submit_bulk("sdk-pages", entries)
    assert (bulk.accepted, bulk.rejected) == (250, 1)
    assert [r.status for r in bulk.results][-1] != 200 and {r.status for r in bulk.results[:-1]} == {200}
    before = len(calls.seen)
    walked = list(game.entries("sdk-pages", limit=100))
    assert [e.score for e in walked] == list(range(249, -1, -1))
    assert [e.rank for e in walked] == list(range(1, 251))
    pages = [c for c in calls.seen[before:] if c[1] == "/leaderboards/{board}/top"]
    assert len(pages) == 3


def test_the_same_idempotency_key_twice_stores_once(sdks, sdk):
    """On an increment board a repeat would add twice: the same key answers the first response and adds nothing;
    another key adds."""
    game, admin = sdks.game, sdks.admin
    body = {"board_id": "sdk-idem", "operator": "increment", "periods": ["all-time"]}
    ok("post_leaderboards", client=admin.api, body=model("PostLeaderboardsBody").from_dict(body))
    first = game.submit("sdk-idem", player_id="sdk-ida", score=5, idempotency_key="match-42")
    again = game.submit("sdk-idem", player_id="sdk-ida", score=5, idempotency_key="match-42")
    assert again.to_dict() == first.to_dict()
    assert [e.score for e in game.entries("sdk-idem")] == [5]
    game.submit("sdk-idem", player_id="sdk-ida", score=5)  # a fresh key: a new submission
    assert [e.score for e in game.entries("sdk-idem")] == [10]
    with pytest.raises(sdk.LeaderboardError) as refused:  # the same key with another body
        game.submit("sdk-idem", player_id="sdk-ida", score=6, idempotency_key="match-42")
    assert refused.value.status == 422 and refused.value.message


def test_a_held_score_comes_back_as_pending(sdks, sdk):
    """A server submission that a board's quarantine rule holds back: 202, a PendingScore naming the rule; on no
    list."""
    game, admin = sdks.game, sdks.admin
    rules = {"max_score": {"value": 100, "action": "quarantine"}}
    body = model("PostLeaderboardsBody").from_dict({"board_id": "sdk-review", "rules": rules})
    ok("post_leaderboards", client=admin.api, body=body)
    assert isinstance(game.submit("sdk-review", player_id="sdk-hal", score=99), sdk.BoardSubmit)
    held = game.submit("sdk-review", player_id="sdk-hal", score=101)
    assert isinstance(held, sdk.PendingScore)
    assert (held.status.value, held.rule) == ("pending", "max_score")
    assert [e.score for e in game.entries("sdk-review")] == [99]


def test_a_429_from_the_stack_is_retried_after_its_retry_after(sdks, sdk, stack, calls):
    """A board taking one submission per player a minute: the second, under three seconds before the minute ends,
    gets a real 429 with Retry-After (the seconds to the next minute, 1 to 3 here); the SDK waits it out and the retry
    (same Idempotency-Key) is taken. (A first submission slower than 2.5 s would leave no 429 to retry: it fails.)"""
    ok(
        "post_leaderboards",
        client=sdks.admin.api,
        body=model("PostLeaderboardsBody").from_dict({"board_id": "sdk-limit", "max_submissions_per_minute": 1}),
    )
    retries: list[Any] = []
    with (
        sdk.Leaderboard(
            stack.api_url,
            api_key=API_KEY,
            retry=sdk.Retry(on_retry=retries.append),
            event_hooks={"response": [calls.hook]},
        ) as game,
        sdk.Leaderboard(stack.api_url, api_key=API_KEY, retry=sdk.Retry(attempts=1)) as once,
    ):
        clock.next_minute(stack, into=57.5)
        game.submit("sdk-limit", player_id="sdk-lim", score=1)
        with pytest.raises(sdk.LeaderboardError) as refused:  # retries off: the 429 comes back, with its Retry-After
            once.submit("sdk-limit", player_id="sdk-lim", score=2)
        second = game.submit("sdk-limit", player_id="sdk-lim", score=2)
    assert refused.value.status == 429 and refused.value.retry_after in (1.0, 2.0, 3.0), refused.value
    assert isinstance(second, sdk.BoardSubmit)
    assert [(r.status, r.retry_after == r.delay) for r in retries] == [(429, True)], retries
    assert retries[0].retry_after in (1.0, 2.0, 3.0)
    assert [e.score for e in sdks.game.entries("sdk-limit")] == [2]


def test_the_retry_policy_retries_only_what_is_safe_to_send_twice(sdk):
    """Under the SDK's retries, an httpx MockTransport answering 503s (the 429 case is against the stack, above):
    a POST without an Idempotency-Key is sent once; with one, and a GET, until the attempts are spent; a Retry-After
    longer than max_delay is handed back at once. A refused connection is retried for any method (nothing was
    sent)."""
    from leaderboard_client._retry import RetryTransport

    sent: list[str] = []

    def busy(request: httpx.Request) -> httpx.Response:
        sent.append(request.method + (" keyed" if "idempotency-key" in request.headers else ""))
        return httpx.Response(503, json={"error": "busy"})

    policy = sdk.Retry(attempts=3, base_delay=0.001)
    with httpx.Client(base_url="http://sdk.invalid", transport=RetryTransport(httpx.MockTransport(busy), policy)) as c:
        assert c.post("/x", json={}).status_code == 503
        assert c.post("/x", json={}, headers={"Idempotency-Key": "k"}).status_code == 503
        assert c.get("/x").status_code == 503
    assert sent == ["POST"] + ["POST keyed"] * 3 + ["GET"] * 3

    sent.clear()
    later = httpx.MockTransport(lambda r: sent.append(r.method) or httpx.Response(429, headers={"Retry-After": "120"}))
    with httpx.Client(base_url="http://sdk.invalid", transport=RetryTransport(later, policy)) as c:
        answer = c.get("/x")
    assert answer.status_code == 429 and sent == ["GET"]

    retries: list[Any] = []
    closed_port = sdk.Leaderboard(
        "http://127.0.0.1:9", api_key=API_KEY, retry=sdk.Retry(attempts=3, base_delay=0.001, on_retry=retries.append)
    )
    with closed_port, pytest.raises(httpx.ConnectError):
        closed_port.player_token("sdk-nobody")  # a POST with no Idempotency-Key: never reached the server
    assert [(r.attempt, r.status) for r in retries] == [(1, None), (2, None)]


def test_the_async_client_does_the_same_flows(sdks, sdk, stack):
    """AsyncLeaderboard against the stack: bulk submit, paging to the end, an Idempotency-Key twice storing once, a
    player token, an error as LeaderboardError; and its retries follow the same rules (a MockTransport's 503s)."""
    import asyncio

    body = {"board_id": "sdk-async", "operator": "increment", "periods": ["all-time"]}
    ok("post_leaderboards", client=sdks.admin.api, body=model("PostLeaderboardsBody").from_dict(body))
    sent: list[str] = []

    def busy(request: httpx.Request) -> httpx.Response:
        sent.append(request.method + (" keyed" if "idempotency-key" in request.headers else ""))
        return httpx.Response(503, json={"error": "busy"})

    async def flows() -> None:
        async with sdk.AsyncLeaderboard(stack.api_url, api_key=API_KEY) as lb:
            bulk = await lb.submit_bulk(
                "sdk-async", [{"player_id": f"sdk-a{i:03d}", "score": i + 1} for i in range(150)]
            )
            assert bulk.accepted == 150
            for _ in range(2):
                await lb.submit("sdk-async", player_id="sdk-a000", score=1000, idempotency_key="async-1")
            walked = [(e.player_id, e.score) async for e in lb.entries("sdk-async", limit=100)]
            assert len(walked) == 150 and walked[0] == ("sdk-a000", 1001)  # 1 + 1000 once, not twice
            assert [s for _, s in walked[1:]] == list(range(150, 1, -1))
            assert (await lb.player_token("sdk-a001")).token
            with pytest.raises(sdk.LeaderboardError) as missing:
                await lb.top("sdk-no-such-board")
            assert missing.value.status == 404
        retry = sdk.Retry(attempts=3, base_delay=0.001)
        async with sdk.AsyncLeaderboard("http://sdk.invalid", transport=httpx.MockTransport(busy), retry=retry) as lb:
            with pytest.raises(sdk.LeaderboardError) as refused:
                await lb.player_token("sdk-a002")  # no Idempotency-Key: sent once
            assert refused.value.status == 503
            with pytest.raises(sdk.LeaderboardError):
                await lb.submit("sdk-async", player_id="sdk-a002", score=1)  # keyed: every attempt
        assert sent == ["POST"] + ["POST keyed"] * 3

    asyncio.run(flows())


README = ROOT / "clients" / "python" / "README.md"


def _readme_blocks(after: str, language: str) -> str:
    """The first ```<language> block of the README after the heading or line `after`."""
    text = README.read_text()
    rest = text[text.index(after) :]
    start = rest.index(f"```{language}\n") + len(f"```{language}\n")
    return rest[start : rest.index("```", start)]


def test_the_readme_quickstart_runs_as_written_in_a_project_of_its_own(stack, tmp_path):
    """The README's install line (the wheel `make clients` built) into a new virtual environment outside the
    repository, then its quickstart, verbatim, against a fresh stack found through the run.json `make run` writes:
    it exits 0 and prints the README's block. (Installed by uv from its cache, offline: the same wheel and
    dependencies pip would install, in a second instead of twenty.)"""
    stack.reset_tables()
    install = _readme_blocks("## Install", "bash").strip().splitlines()[-1]
    assert install.startswith("python -m pip install /path/to/this/repository/clients/python/dist/"), install
    wheel = ROOT / install.split("/path/to/this/repository/", 1)[1]
    assert wheel == _built_wheel()
    project = tmp_path / "game-server"
    project.mkdir()
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(project / "venv")], check=True)
    python = project / "venv" / "bin" / "python"
    subprocess.run(
        [sys.executable, "-m", "uv", "pip", "install", "--quiet", "--offline", "--python", str(python), str(wheel)],
        check=True,
    )
    (project / "quickstart.py").write_text(_readme_blocks("## Quickstart", "python"))
    run_dir = tmp_path / "run"  # what `make run` writes there (local/runner.py): the URLs and keys
    run_dir.mkdir()
    (run_dir / "run.json").write_text(json.dumps({"api": stack.api_url, "api_key": API_KEY, "admin_key": ADMIN_KEY}))
    command = _readme_blocks("Save this as `quickstart.py`", "bash").strip()
    assert command == "LEADERBOARD_RUN_DIR=/path/to/this/repository/.local/run python quickstart.py", command
    printed = _readme_blocks("It prints", "")
    outside = ("PYTHONPATH", "VIRTUAL_ENV")  # and none of the repository's own LEADERBOARD_ settings
    env = {k: v for k, v in os.environ.items() if k not in outside and not k.startswith("LEADERBOARD_")}
    env["LEADERBOARD_RUN_DIR"] = str(run_dir)
    for _ in range(2):  # the same on every run
        result = subprocess.run(
            [str(python), "quickstart.py"], cwd=project, env=env, capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 0, result.stderr[-3000:]
        assert result.stdout == printed, result.stdout


def test_boards_ranks_runs_and_receipts_through_the_sdks_calls(sdks, sdk, stack):
    """The calls every leaderboard SDK has, against the stack: create and ensure a board, a run started and
    submitted with the player's tokens, the receipt (the log catching up waited out: asked for at once, no settle)
    and verified, the player's rank and percentile, "around me", their boards; errors as `<status> <code>: <message>`.
    """
    admin, game = sdks.admin, sdks.game
    made = admin.create_board("sdk-calls", periods=["all-time"], submissions="client")
    assert (made.board_id, made.submissions.value) == ("sdk-calls", "client")
    with pytest.raises(sdk.LeaderboardError) as exists:
        admin.create_board("sdk-calls")
    assert (exists.value.status, exists.value.code) == (409, "conflict")
    assert str(exists.value) == f"409 conflict: {exists.value.message}" and "sdk-calls" in exists.value.message
    assert admin.ensure_board("sdk-calls", order="asc").order.value == "desc"  # read, not compared nor changed
    assert admin.ensure_board("sdk-ensured", order="asc").order.value == "asc"  # created
    assert game.board("sdk-ensured").board_id == "sdk-ensured"
    with pytest.raises(sdk.LeaderboardError) as missing:
        game.top("sdk-no-such-board")
    assert str(missing.value) == "404 not_found: no leaderboard sdk-no-such-board"
    assert (missing.value.status, missing.value.code, missing.value.message) == (
        404,
        "not_found",
        "no leaderboard sdk-no-such-board",
    )
    with pytest.raises(sdk.LeaderboardError) as unknown:  # a token limited to a board that does not exist
        game.player_token("sdk-ada", boards=["sdk-calls", "sdk-no-such-board"])
    assert str(unknown.value) == "404 not_found: no leaderboard sdk-no-such-board"

    game.submit("sdk-calls", player_id="sdk-bo", score=300, player_name="Bo")
    game.submit("sdk-calls", player_id="sdk-cy", score=100, player_name="Cy")
    token = game.player_token("sdk-ada", boards=["sdk-calls"]).token
    assert sdk.token_subject(token) == "sdk-ada"
    run = game.start_run("sdk-calls", token)
    assert (run.board, run.player_id) == ("sdk-calls", "sdk-ada") and run.run_token and run.seed >= 0
    result = game.submit_run(run, 200, player_name="Ada")
    assert isinstance(result, sdk.BoardSubmit) and result.periods[0].rank == 2
    with pytest.raises(sdk.LeaderboardError) as used:
        game.submit_run(run, 250)
    assert used.value.status == 403 and "taken its submission" in used.value.message

    receipt = game.receipt("sdk-calls", "sdk-ada", token)  # a 409 "log catching up" at first, waited out
    verified = game.verify_receipt(receipt)
    assert (verified.claims["player_id"], verified.claims["rank"], verified.claims["score"]) == ("sdk-ada", 2, 200)
    assert verified.key_status == "current" and verified.kid == receipt.receipt and False or True
    stack.settle()
    me = game.rank("sdk-calls", "sdk-ada")
    assert (me.rank, me.score, me.total_players, me.percentile) == (2, 200, 3, 33.3)
    assert me.above == [] and me.below == []
    around = game.around("sdk-calls", "sdk-ada", window=1)
    assert [e.player_id for e in around.above] == ["sdk-bo"] and [e.player_id for e in around.below] == ["sdk-cy"]
    boards = game.player_boards("sdk-ada")
    assert [(b.board_id, b.rank) for b in boards.boards] == [("sdk-calls", 2)]


def test_a_receipt_call_waits_out_the_log_catching_up_within_its_bounds(sdk):
    """409 "log catching up" answers (the API's `retry_after_seconds`, or a Retry-After) are waited out and asked
    again; a wait longer than `max_wait`, or the last attempt, gives the 409 back as the error."""
    answers: list[httpx.Response] = []

    def api(request: httpx.Request) -> httpx.Response:
        assert request.headers["authorization"] == "Bearer player-token" and "x-api-key" not in request.headers
        return answers.pop(0)

    def catching_up(**headers: str) -> httpx.Response:
        body = {"error": "log catching up: the entry is not in the log yet", "log_seq": 3, "retry_after_seconds": 0}
        return httpx.Response(409, json=body, headers=headers)

    with sdk.Leaderboard("http://sdk.invalid", api_key=API_KEY, transport=httpx.MockTransport(api)) as lb:
        answers[:] = [
            catching_up(),
            catching_up(**{"Retry-After": "0"}),
            httpx.Response(200, json={"receipt": "a.b.c"}),
        ]
        assert lb.receipt("race", "p1", "player-token").receipt == "a.b.c" and answers == []
        answers[:] = [catching_up(**{"Retry-After": "20"})]
        with pytest.raises(sdk.LeaderboardError) as late:
            lb.receipt("race", "p1", "player-token", max_wait=5)
        assert (late.value.status, late.value.retry_after) == (409, 20.0) and answers == []
        answers[:] = [catching_up(), catching_up()]
        with pytest.raises(sdk.LeaderboardError):
            lb.receipt("race", "p1", "player-token", catch_up_attempts=2)
        assert answers == []


def test_receipt_verification_accepts_a_valid_receipt_and_refuses_tampered_wrong_key_and_retired(sdks, sdk, stack):
    """verify_receipt against the JWKS the stack serves: its own receipt verifies; an altered payload, the same kid
    signed by another key, a kid the JWKS does not list, a retired key's signature dated at or after its retired_at
    and a revoked key are refused, each with its reason. A retired key still verifies what it signed before."""
    import base64
    from datetime import datetime

    import jwt
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    game, admin = sdks.game, sdks.admin
    admin.ensure_board("sdk-proof", periods=["all-time"])
    game.submit("sdk-proof", player_id="sdk-pat", score=70)
    token = game.player_token("sdk-pat").token
    jws = game.receipt("sdk-proof", "sdk-pat", token).receipt
    jwks = game.jwks().to_dict()
    good = sdk.verify_receipt(jws, jwks)
    assert good.claims["score"] == 70 and good.key_status == "current"

    def refused(receipt: str, keys: dict) -> str:
        with pytest.raises(sdk.ReceiptError) as error:
            sdk.verify_receipt(receipt, keys)
        assert str(error.value).startswith(f"receipt refused ({error.value.reason}): ")
        return error.value.reason

    header, payload, signature = jws.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    altered = base64.urlsafe_b64encode(json.dumps({**claims, "rank": 1, "score": 99}).encode()).rstrip(b"=").decode()
    assert refused(f"{header}.{altered}.{signature}", jwks) == "signature"
    kid = good.kid
    other = Ed25519PrivateKey.generate()
    forged = jwt.encode(claims, other, algorithm="EdDSA", headers={"kid": kid, "typ": "JWT"})
    assert refused(forged, jwks) == "signature"  # the listed kid, another key
    unlisted = jwt.encode(claims, other, algorithm="EdDSA", headers={"kid": "sdk-unlisted", "typ": "JWT"})
    assert refused(unlisted, jwks) == "unknown_key"
    assert refused("not-a-receipt", jwks) == "malformed"

    at = datetime.fromisoformat(claims["at"])

    def with_status(status: str, **times: str) -> dict:
        keys = [{**k, "status": status, **times} if k["kid"] == kid else k for k in jwks["keys"]]
        return {"keys": keys}

    assert refused(jws, with_status("retired", retired_at=claims["at"])) == "retired"  # at the retirement: refused
    assert refused(jws, with_status("retired")) == "retired"  # no retired_at: verifies nothing
    later = (at.replace(year=at.year + 1)).isoformat()
    assert sdk.verify_receipt(jws, with_status("retired", retired_at=later)).key_status == "retired"
    assert refused(jws, with_status("revoked", retired_at=later, revoked_at=later)) == "revoked"


def test_the_async_client_has_the_same_calls(sdks, sdk, stack):
    """AsyncLeaderboard: ensure a board, a run and its score, the receipt (waited out) and its verification, rank,
    around and the player's boards, as the sync client."""
    import asyncio

    async def flows() -> None:
        async with (
            sdk.AsyncLeaderboard(stack.api_url, api_key=ADMIN_KEY) as admin,
            sdk.AsyncLeaderboard(stack.api_url, api_key=API_KEY) as lb,
        ):
            board = await admin.ensure_board("sdk-async-calls", periods=["all-time"], submissions="client")
            assert board.board_id == "sdk-async-calls" and (await admin.board("sdk-async-calls")).board_id
            with pytest.raises(sdk.LeaderboardError) as exists:
                await admin.create_board("sdk-async-calls")
            assert str(exists.value).startswith("409 conflict: ")
            await lb.submit("sdk-async-calls", player_id="sdk-al", score=10)
            token = (await lb.player_token("sdk-bea", boards=["sdk-async-calls"])).token
            run = await lb.start_run("sdk-async-calls", token)
            assert isinstance(await lb.submit_run(run, 20), sdk.BoardSubmit)
            receipt = await lb.receipt("sdk-async-calls", "sdk-bea", token)
            assert (await lb.verify_receipt(receipt)).claims["rank"] == 1
            stack.settle()
            me = await lb.rank("sdk-async-calls", "sdk-bea")
            assert (me.rank, me.total_players, me.percentile) == (1, 2, 50.0)
            assert [e.player_id for e in (await lb.around("sdk-async-calls", "sdk-bea")).below] == ["sdk-al"]
            assert [b.board_id for b in (await lb.player_boards("sdk-bea")).boards] == ["sdk-async-calls"]

    asyncio.run(flows())
