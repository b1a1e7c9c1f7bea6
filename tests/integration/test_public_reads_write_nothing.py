"""The public read functions (leaderboard-query, player-stats) make no write to DynamoDB, metered on DynamoDB Local:
every route they serve, with cursors, a player on several boards, a period log and a deleted board's generation.
Their statements on the shared role allow no write to the scores table (tests/infra/test_function_access.py): this
shows the functions never needed one, so the narrower grant breaks no read."""

from __future__ import annotations

from bench.metering import WRITE_OPS
from cdk_leaderboard_lambda.web import routes

from .test_write_budgets import metered

BOARD, GONE = "reads-only", "reads-only-gone"


def _public_read_calls(api, generation: str) -> list[tuple[str, dict]]:
    top = api.get(f"/leaderboards/{BOARD}/top", params={"limit": 2}).json()
    return [
        ("/leaderboard", {}),
        ("/leaderboard", {"period": "daily", "rank_mode": "competition"}),
        ("/player", {"player_id": "r1"}),
        ("/player", {"player_id": "nobody"}),
        (f"/leaderboards/{BOARD}/top", {"limit": 2}),
        (f"/leaderboards/{BOARD}/top", {"limit": 2, "cursor": top["next_cursor"]}),
        (f"/leaderboards/{BOARD}/top", {"period": "daily"}),
        (f"/leaderboards/{BOARD}/range", {"min_score": 1, "max_score": 50, "limit": 2}),
        (f"/leaderboards/{BOARD}/players/r1", {"window": 2}),
        (f"/leaderboards/{BOARD}/players/nobody", {}),
        (f"/leaderboards/{BOARD}/players", {"ids": "r1,r2,nobody"}),
        ("/players/r1/boards", {"limit": 1}),
        ("/players/nobody/boards", {}),
        (f"/leaderboards/{BOARD}/periods/all-time/log", {"limit": 2}),
        (f"/leaderboards/{GONE}/periods/all-time/log", {"generation": generation}),
        ("/leaderboards/no-such-board/top", {}),
    ]


def test_the_public_read_functions_write_nothing(api, stack, clean):
    for board in (BOARD, GONE):
        body = {"board_id": board, "periods": ["all-time", "daily"]}
        assert api.post("/leaderboards", body).status_code == 201
    for i in range(1, 6):
        for board in (BOARD, GONE):
            reply = api.post(f"/leaderboards/{board}/scores", {"player_id": f"r{i}", "score": i * 10})
            assert reply.status_code == 200, reply.text
        assert api.post("/scores", {"player_id": f"r{i}", "score": i}).status_code == 200
    stack.settle()
    deleted = api.delete(f"/leaderboards/{GONE}")
    assert deleted.status_code == 200, deleted.text
    stack.settle()
    readers = (routes.LEADERBOARD_QUERY, routes.PLAYER_STATS)
    served = {(r.method, r.path) for r in routes.ROUTES if r.function in readers}
    calls = _public_read_calls(api, deleted.json()["archived"]["generation"])
    seen = set()
    for path, params in calls:
        with metered() as meter:
            reply = api.get(path, params=params)
        assert reply.status_code in (200, 404), (path, reply.text)
        usage = meter.take()
        assert usage.requests, path  # the meter saw the function's reads
        assert not set(usage.by_operation) & WRITE_OPS, (path, usage.by_operation)
        seen |= {(r.method, r.path) for r in routes.ROUTES if r.method == "GET" and _matches(r.path, path)}
    assert served <= seen, served - seen


def _matches(template: str, path: str) -> bool:
    parts, given = template.split("/"), path.split("/")
    return len(parts) == len(given) and all(p == g or p.startswith("{") for p, g in zip(parts, given, strict=True))
