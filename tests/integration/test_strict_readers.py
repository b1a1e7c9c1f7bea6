"""Every public route's answer stays readable by a strict reader with a depth limit of 64 (.NET's readers' default;
serde_json stops at 128, jq 1.6 lower still on deep input) after a player submits the deepest metadata the API
accepts (before, about 500 levels fitted in 1,024 bytes and came back from /top and the lookups).

The reader is written here, over the raw text (as a streaming reader counts): Python's json has no depth limit. The
routes are every public GET of the route table, so a new one is read too."""

from __future__ import annotations

import asyncio
import json
import re
import threading

import pytest

from bench.live_subscribers import Subscriber
from cdk_leaderboard_lambda.shared import limits
from cdk_leaderboard_lambda.web import routes

READER_DEPTH = 64
BOARD, PLAYER = "strict-readers", "deep-player"


def nesting(text: str) -> int:
    """The deepest nesting of objects and arrays in JSON text (brackets inside strings do not count)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def strict_read(text: str, limit: int = READER_DEPTH):
    """Parse as a reader limited to `limit` levels does: refused past it."""
    depth = nesting(text)
    if depth > limit:
        raise ValueError(f"nesting depth {depth} exceeds the reader's limit {limit}")
    return json.loads(text)


def test_the_reader_refuses_past_its_limit():
    assert nesting('{"a": "[[{{", "b": [{"c": []}]}') == 4
    with pytest.raises(ValueError, match="exceeds the reader's limit 64"):
        strict_read("[" * 65 + "]" * 65)


def deepest_metadata() -> dict:
    value: dict = {"end": "[{ not a level }]"}
    for level in range(limits.MAX_JSON_DEPTH - 1):
        value = {f"l{level}": value}
    return value


def _path(route: routes.Route, period: str) -> str:
    values = {"board": BOARD, "player_id": PLAYER, "period_id": period, "erasure_id": "0" * 26}
    return re.sub(r"\{(\w+)\}", lambda m: values[m.group(1)], route.path)


def _query(route: routes.Route) -> dict[str, str]:
    given = {"ids": PLAYER, "player_id": PLAYER, "min_score": "0", "max_score": "1000", "limit": "100"}
    return {name: given[name] for name in route.query if name in given}


@pytest.fixture
def run():
    """Run a coroutine on a background event loop (where the live subscriber lives) and return its result."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, name="test-strict-readers", daemon=True)
    thread.start()
    yield lambda coro, timeout=60: asyncio.run_coroutine_threadsafe(coro, loop).result(timeout)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)
    loop.close()


def test_every_public_answer_reads_with_a_depth_64_reader_after_the_deepest_metadata(api, stack, run):
    metadata = deepest_metadata()
    assert api.post("/leaderboards", {"board_id": BOARD, "periods": ["all-time"]}).status_code == 201
    live = {**api.get(f"/leaderboards/{BOARD}").json()["live"], "api_url": api.url}  # a token of its own there
    subscriber = run(Subscriber(live, live["channels"]["all-time"]).open())
    for path in (f"/leaderboards/{BOARD}/scores", "/leaderboards/global/scores"):
        reply = api.post(path, {"player_id": PLAYER, "score": 500, "metadata": metadata})
        assert reply.status_code == 200, reply.text
    deeper = {"one": metadata}  # a level more is refused: nothing deeper can reach the answers
    refused = api.post(f"/leaderboards/{BOARD}/scores", {"player_id": "p2", "score": 1, "metadata": deeper})
    assert refused.status_code == 400 and "at most 16 levels deep" in refused.json()["error"], refused.text
    assert api.post("/snapshot", {}).status_code in (200, 201)
    stack.settle()

    public = [r for r in routes.ROUTES if r.access == routes.PUBLIC and r.method == "GET"]
    assert len(public) >= 15
    served_back = []
    for route in public:
        path = _path(route, "all-time")
        reply = api.get(path, params=_query(route))
        assert reply.status_code < 500, (path, reply.text)
        strict_read(reply.text)  # raises past 64 levels
        if json.dumps(metadata, separators=(",", ":")) in json.dumps(reply.json(), separators=(",", ":")):
            served_back.append(route.path)
    # the answers that serve the metadata back did hold it, at its full depth: the reader read the deepest case
    assert {
        "/leaderboards/{board}/top",
        "/leaderboards/{board}/range",
        "/leaderboards/{board}/players/{player_id}",
    } <= (set(served_back)), served_back
    assert nesting(api.get(f"/leaderboards/{BOARD}/top").text) == limits.MAX_JSON_DEPTH + 3  # answer, entries, entry
    try:  # the live push: its frame, and the event the frame carries as a string
        _, event = run(subscriber.wait_for(lambda e: any(x.get("metadata") == metadata for x in e["entries"]), 30))
        frames = [frame for _, frame in subscriber.frames]
        assert frames
        for frame in frames:
            strict_read(frame)
            strict_read(json.loads(frame)["event"])
        assert nesting(json.dumps(event)) >= limits.MAX_JSON_DEPTH + 2
    finally:
        run(subscriber.close())
