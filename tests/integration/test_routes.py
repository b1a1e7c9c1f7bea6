"""The default board's routes answering as docs/API.md says, through the local gateway (the
many-boards routes are in test_boards.py)."""

from __future__ import annotations

from cdk_leaderboard_lambda.web import routes

# The routes tested here, in test_boards.py, in test_players.py, in test_season.py (a board's periods and
# their closing), in test_client_submissions.py (player tokens and runs), in test_quarantine.py (rules and the
# review queue), in test_period_log.py (a period's hash-chained log) and in test_receipts.py (the JWKS and signed
# receipts).
COVERED = {
    ("POST", "/scores"),
    ("GET", "/leaderboard"),
    ("GET", "/player"),
    ("POST", "/snapshot"),
    ("GET", "/snapshots"),
    ("POST", "/simulate"),
    ("POST", "/leaderboards"),
    ("GET", "/leaderboards"),
    ("GET", "/leaderboards/{board}"),
    ("DELETE", "/leaderboards/{board}"),
    ("POST", "/leaderboards/{board}/scores"),
    ("POST", "/leaderboards/{board}/scores/bulk"),
    ("GET", "/leaderboards/{board}/top"),
    ("GET", "/leaderboards/{board}/range"),
    ("GET", "/leaderboards/{board}/players/{player_id}"),
    ("GET", "/openapi.json"),
    # test_players.py
    ("GET", "/leaderboards/{board}/players"),
    ("GET", "/players/{player_id}/boards"),
    ("DELETE", "/leaderboards/{board}/players/{player_id}"),
    ("DELETE", "/players/{player_id}"),
    ("GET", "/erasures/{erasure_id}"),
    ("PUT", "/leaderboards/{board}/players/{player_id}/hidden"),
    ("GET", "/leaderboards/{board}/hidden"),
    ("DELETE", "/leaderboards/{board}/players/{player_id}/hidden"),
    # test_season.py
    ("GET", "/leaderboards/{board}/periods"),
    ("GET", "/leaderboards/{board}/periods/{period_id}"),
    ("POST", "/leaderboards/{board}/periods/{period_id}/close"),
    # test_client_submissions.py
    ("POST", "/players/{player_id}/tokens"),
    ("POST", "/leaderboards/{board}/runs"),
    ("POST", "/leaderboards/{board}/runs/{run_id}/score"),
    # test_quarantine.py
    ("PATCH", "/leaderboards/{board}"),
    ("GET", "/leaderboards/{board}/pending"),
    ("POST", "/leaderboards/{board}/pending/{pending_id}/approve"),
    ("POST", "/leaderboards/{board}/pending/{pending_id}/reject"),
    # test_period_log.py
    ("GET", "/leaderboards/{board}/periods/{period_id}/log"),
    ("GET", "/.well-known/jwks.json"),
    ("GET", "/leaderboards/{board}/players/{player_id}/receipt"),
    # test_privacy.py
    ("GET", "/players/{player_id}"),
    # test_live.py (the live subscribe token)
    ("GET", "/leaderboards/{board}/scores"),
}


def test_every_route_of_the_route_table_has_a_test():
    """A route added to routes.py without an integration test fails this."""
    assert {(r.method, r.path) for r in routes.ROUTES} - COVERED == set()


def test_post_scores_keeps_the_best_on_all_three_boards(api, clean):
    """POST /scores fans out to all-time, daily and weekly; a lower score improves nothing."""
    first = api.post("/scores", {"player_id": "ada", "score": 500, "player_name": "Ada"})
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["player_id"], body["player_name"], body["score"]) == ("ada", "Ada", 500)
    assert sorted(b["period"] for b in body["boards"]) == ["all-time", "daily", "weekly"]
    assert all(b["improved"] and b["best_score"] == 500 for b in body["boards"])

    lower = api.post("/scores", {"player_id": "ada", "score": 20}).json()
    assert all(not b["improved"] and b["best_score"] == 500 for b in lower["boards"])


def test_get_leaderboard_ranks_best_first_for_every_period(api, clean):
    """GET /leaderboard returns the top N best first; equal scores rank who reached them first."""
    for pid, score in [("p1", 10), ("p2", 30), ("p3", 20), ("p4", 30)]:
        assert api.post("/scores", {"player_id": pid, "score": score}).status_code == 200
    for period in ("all-time", "daily", "weekly"):
        resp = api.get("/leaderboard", params={"period": period, "limit": 3})
        assert resp.status_code == 200, resp.text
        body = resp.json()
        assert body["period"] == period
        assert [(e["rank"], e["player_id"], e["score"]) for e in body["entries"]] == [
            (1, "p2", 30),
            (2, "p4", 30),
            (3, "p3", 20),
        ]
    default = api.get("/leaderboard").json()
    assert default["leaderboard_id"] == "all-time" and len(default["entries"]) == 4


def test_get_player_gives_rank_total_and_percentile(api, stack, clean):
    """GET /player: one entry per board with rank, board size and percentile (once the rank counters have
    caught up with the writes); 404 when absent."""
    for pid, score in [("a", 100), ("b", 300), ("c", 200), ("d", 50)]:
        api.post("/scores", {"player_id": pid, "score": score, "player_name": f"name-{pid}"})
    stack.settle()
    resp = api.get("/player", params={"player_id": "c"})
    assert resp.status_code == 200, resp.text
    body = resp.json()
    assert body["player_name"] == "name-c"
    assert [b["period"] for b in body["boards"]] == ["all-time", "daily", "weekly"]
    for board in body["boards"]:
        assert (board["score"], board["rank"], board["total_players"], board["percentile"]) == (200, 2, 4, 50.0)
    missing = api.get("/player", params={"player_id": "nobody"})
    assert missing.status_code == 404 and "error" in missing.json()


def test_post_snapshot_and_get_snapshots_newest_first(api, clean):
    """POST /snapshot freezes the top N (201); GET /snapshots lists them newest first."""
    for pid, score in [("x", 1), ("y", 2), ("z", 3)]:
        api.post("/scores", {"player_id": pid, "score": score})
    first = api.post("/snapshot", {"limit": 2})
    assert first.status_code == 201, first.text
    snap = first.json()
    assert snap["period"] == "all-time" and [e["player_id"] for e in snap["entries"]] == ["z", "y"]
    api.post("/scores", {"player_id": "w", "score": 9})
    second = api.post("/snapshot", {"period": "weekly"}).json()
    assert second["period"] == "weekly" and second["entries"][0]["player_id"] == "w"
    api.post("/snapshot", {})

    listed = api.get("/snapshots").json()
    assert listed["period"] == "all-time"
    taken = [s["taken_at"] for s in listed["snapshots"]]
    assert len(taken) == 2 and taken == sorted(taken, reverse=True)
    assert listed["snapshots"][-1]["snapshot_id"] == snap["snapshot_id"]
    assert len(api.get("/snapshots", params={"period": "weekly", "limit": 1}).json()["snapshots"]) == 1


def test_post_simulate_seeds_players_on_every_board(api, clean):
    """POST /simulate writes N players x 3 boards and they show up ranked."""
    resp = api.post("/simulate", {"players": 30})
    assert resp.status_code == 200, resp.text
    assert resp.json()["players"] == 30 and resp.json()["writes"] == 90
    for period in ("all-time", "daily", "weekly"):
        entries = api.get("/leaderboard", params={"period": period, "limit": 100}).json()["entries"]
        assert len(entries) == 30
        scores = [e["score"] for e in entries]
        assert scores == sorted(scores, reverse=True)
    default = api.post("/simulate")  # no body: the documented default of 25 players
    assert default.status_code == 200 and default.json()["players"] == 25
