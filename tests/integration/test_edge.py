"""The edge over HTTP: Nginx's proxy cache (local/edge.conf.template) in front of the local gateway, with the rules
of the CloudFront distribution on AWS; what reaches the origin is counted from the gateway's log (one line per
request it serves)."""

from __future__ import annotations

import threading
import time
import uuid
from collections import Counter
from pathlib import Path

import pytest
import requests

from cdk_leaderboard_lambda.web import http, routes
from local import edge as local_edge

from .stack_config import ADMIN_KEY, API_KEY, OTHER_ORIGIN

pytestmark = pytest.mark.skipif(local_edge.nginx_binary() is None, reason="the local edge needs nginx")


class Edge:
    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log = log

    def get(self, target: str, **kw) -> requests.Response:
        return requests.get(self.url + target, timeout=30, **kw)

    def served(self) -> list[tuple[float, str, str]]:
        """(time, method, target) of each request the origin served, from the gateway's log."""
        lines = (line.split(" ") for line in self.log.read_text().splitlines() if line)
        return [(float(at), method, target) for at, method, target, _status in lines]

    def origin_requests(self) -> Counter:
        """(method, target) -> how many times the origin served it."""
        return Counter((method, target) for _, method, target in self.served())


@pytest.fixture(scope="module")
def edge(stack, tmp_path_factory):
    url = local_edge.start(stack.procs, tmp_path_factory.mktemp("edge"), 0, stack.api_url)
    try:
        yield Edge(url, stack.request_log)
    finally:
        stack.procs.stop(local_edge.PROCESS_NAME)


@pytest.fixture(scope="module")
def board(api):
    """A board of this module's own, so that counts and tops are not other tests' data."""
    board_id = f"edge-{uuid.uuid4().hex[:8]}"
    resp = api.post("/leaderboards", {"board_id": board_id, "name": "Edge", "periods": ["all-time", "daily"]})
    assert resp.status_code == 201, resp.text
    for i in range(5):
        assert api.post(f"/leaderboards/{board_id}/scores", {"player_id": f"p{i}", "score": 100 * i}).ok
    return board_id


# --- Cache-Control and CORS at the origin ------------------------------------------------------------------------


# The public GETs answered no-store, and why (docs/API.md, docs/PROVING.md)
PUBLIC_NOT_CACHED = {
    "/erasures/{erasure_id}": "polled while it runs",
    "/leaderboards/{board}/periods/{period_id}/log": "a receipt names a seq that an edge copy of a page may not hold",
    "/leaderboards/{board}/scores": "a live subscribe token: each one counted, never one handed to two viewers",
}


def test_every_route_states_its_caching_and_keyed_routes_are_never_cached():
    """One home: the route table. Routes that take a credential (a key or a token) are no-store whatever their field
    says; every public GET but those of PUBLIC_NOT_CACHED is cacheable."""
    for route in routes.ROUTES:
        value = http.cache_control(route, 200)
        if route.authenticated or route.method != "GET":
            assert value == "no-store", (route.method, route.path)
        elif route.path in PUBLIC_NOT_CACHED:
            assert value == "no-store", (route.method, route.path)
        else:
            assert value.startswith("public, max-age="), (route.method, route.path)
    assert http.cache_control(routes.match_route("GET", "/erasures/x")[0], 200) == "no-store"


def test_a_closed_period_is_kept_longer_than_an_open_one():
    route, _, _ = routes.match_route("GET", "/leaderboards/global/periods/daily-2026-01-01")
    assert http.cache_control(route, 200, {"status": "open"}) == "public, max-age=5, stale-while-revalidate=2"
    closed = http.cache_control(route, 200, {"status": "closed"})
    assert closed == f"public, max-age={routes.SETTLED_SECONDS}, stale-while-revalidate=2"


@pytest.mark.parametrize(
    "target, expected",
    [
        ("/leaderboard?limit=3", "public, max-age=5, stale-while-revalidate=2"),
        ("/leaderboards/global/top", "public, max-age=5, stale-while-revalidate=2"),
        ("/snapshots", "public, max-age=60, stale-while-revalidate=2"),
        ("/openapi.json", f"public, max-age={routes.SETTLED_SECONDS}, stale-while-revalidate=2"),
        # a public read's 404 and 400 may be kept as briefly as a live answer
        ("/player?player_id=nobody-here", "public, max-age=5, stale-while-revalidate=2"),
        ("/leaderboards/global/top?limit=0", "public, max-age=5, stale-while-revalidate=2"),
        ("/erasures/" + "0" * 16, "no-store"),
    ],
)
def test_public_reads_answer_their_routes_cache_control_for_any_origin(api, target, expected):
    resp = requests.get(api.url + target, headers={"Origin": "https://anyone.example"}, timeout=30)
    assert resp.headers["Cache-Control"] == expected, (resp.status_code, resp.text)
    # One cached answer serves every origin: "*" (no credentials), and nothing varies by Origin.
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    assert "Origin" not in resp.headers.get("Vary", "")


def test_keyed_answers_are_no_store_and_keep_their_origin_rules(api):
    answers = [
        api.get("/leaderboards/global/hidden", key="default", headers={"Origin": OTHER_ORIGIN}),
        api.post("/scores", {"player_id": "edge-keyed", "score": 1}, headers={"Origin": OTHER_ORIGIN}),
        api.post("/snapshot", {}, headers={"Origin": OTHER_ORIGIN}),
        api.get("/leaderboards/global/hidden", key=API_KEY, headers={"Origin": OTHER_ORIGIN}),  # wrong class: 403
    ]
    assert [r.status_code for r in answers] == [200, 200, 201, 403]
    for resp in answers:
        assert resp.headers["Cache-Control"] == "no-store"
        assert resp.headers["Access-Control-Allow-Origin"] == OTHER_ORIGIN and "Origin" in resp.headers["Vary"]


# --- the edge ----------------------------------------------------------------------------------------------------


def test_equal_queries_share_one_entry_and_other_queries_do_not(edge, board):
    """Order and parameters no route takes do not matter (CloudFront: the allow-list and the sorting function)."""
    before = edge.origin_requests()
    answers = [
        edge.get(f"/leaderboards/{board}/top?limit=3&period=all-time"),
        edge.get(f"/leaderboards/{board}/top?period=all-time&limit=3"),
        edge.get(f"/leaderboards/{board}/top?utm_source=x&period=all-time&limit=3&_=123"),
        edge.get(f"/leaderboards/{board}/top?limit=2&period=all-time"),
    ]
    assert [r.status_code for r in answers] == [200] * 4
    assert [r.headers["X-Cache"] for r in answers] == ["MISS", "HIT", "HIT", "MISS"]
    assert answers[0].json() == answers[2].json() and len(answers[3].json()["entries"]) == 2
    reached = edge.origin_requests() - before
    # The origin gets the normalized query: sorted, without what no route takes.
    assert reached == Counter(
        {
            ("GET", f"/leaderboards/{board}/top?limit=3&period=all-time"): 1,
            ("GET", f"/leaderboards/{board}/top?limit=2&period=all-time"): 1,
        }
    )


def test_no_store_answers_are_never_kept(edge):
    """A public no-store route: every request reaches the origin."""
    before = edge.origin_requests()
    target = "/erasures/" + "1" * 16
    statuses = {edge.get(target).status_code for _ in range(3)}
    assert statuses == {404}
    assert (edge.origin_requests() - before)[("GET", target)] == 3


def test_an_admin_answer_is_never_served_from_the_cache(api, edge, board):
    """The edge forwards no x-api-key (as CloudFront, which forwards no header): an admin read through it is the
    gateway's 403 each time, every one reaching the origin; the hidden list the admin sees at the API never leaks."""
    assert api.put(f"/leaderboards/{board}/players/p1/hidden").status_code == 200
    target = f"/leaderboards/{board}/hidden"
    direct = api.get(target, key=ADMIN_KEY)
    assert direct.status_code == 200 and direct.headers["Cache-Control"] == "no-store"
    assert [p["player_id"] for p in direct.json()["players"]] == ["p1"]
    before = edge.origin_requests()
    through_edge = [edge.get(target, headers={"x-api-key": ADMIN_KEY}), edge.get(target), edge.get(target)]
    assert [r.status_code for r in through_edge] == [403, 403, 403]
    assert all("p1" not in r.text for r in through_edge)
    assert (edge.origin_requests() - before)[("GET", target)] == 3  # nothing kept
    assert api.delete(f"/leaderboards/{board}/players/p1/hidden").status_code == 200


def test_a_players_own_reads_are_never_answered_or_kept_at_the_edge(api, edge, board):
    """A receipt and a player's held scores need their player token, which the edge does not forward (nor
    does CloudFront): through it they are API Gateway's 401 (the header is required) each time, every one reaching
    the origin, so the edge never holds a player's answer for the next viewer."""
    token = api.post("/players/p3/tokens", {}).json()["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    for target in (f"/leaderboards/{board}/players/p3/receipt", "/players/p3"):
        assert api.get(target, headers=bearer).status_code in (200, 409), target  # direct: the player's (409: log)
        before = edge.origin_requests()
        through_edge = [edge.get(target, headers=bearer) for _ in range(3)]
        assert [r.status_code for r in through_edge] == [401, 401, 401], target
        assert all("Authorization" in r.json()["error"] and "receipt" not in r.json() for r in through_edge)
        assert (edge.origin_requests() - before)[("GET", target)] == 3  # nothing kept


def test_writes_are_refused_at_the_edge_and_never_reach_the_origin(edge, board):
    before = edge.origin_requests()
    resp = requests.post(
        f"{edge.url}/leaderboards/{board}/scores",
        json={"player_id": "via-edge", "score": 1},
        headers={"x-api-key": API_KEY},
        timeout=30,
    )
    assert resp.status_code == 403
    assert edge.origin_requests() - before == Counter()


def test_edge_compresses_json(edge):
    resp = edge.get("/openapi.json", headers={"Accept-Encoding": "gzip"}, stream=True)
    assert resp.status_code == 200 and resp.headers["Content-Encoding"] == "gzip"
    assert resp.headers["Access-Control-Allow-Origin"] == "*"


def test_a_new_score_shows_at_the_edge_within_max_age_plus_2_seconds(api, edge, board):
    """A reader polling the edge sees a submission within the route's max-age + 2 s (stale-while-revalidate is 2 s),
    counted from the submission's answer to the first edge answer that shows it. The edge keeps the answer it held
    at most max-age (see the next test), then serves it while one request refreshes it: the 2 s are for that
    request and the reader's polls (every 50 ms)."""
    target = f"/leaderboards/{board}/top?limit=1"
    assert edge.get(target).status_code == 200 and edge.get(target).headers["X-Cache"] == "HIT"
    resp = api.post(f"/leaderboards/{board}/scores", {"player_id": "fresh", "score": 10_000})
    assert resp.status_code == 200, resp.text
    accepted = time.monotonic()
    max_age = routes.match_route("GET", f"/leaderboards/{board}/top")[0].cache.max_age
    seen_after = None
    while time.monotonic() - accepted < max_age + 10:
        if edge.get(target).json()["entries"][0]["player_id"] == "fresh":
            seen_after = time.monotonic() - accepted
            break
        time.sleep(0.05)
    print(f"a new top score showed at the edge {seen_after} s after it was accepted (max-age {max_age} s)")
    assert seen_after is not None and seen_after <= max_age + 2


def test_the_edge_never_serves_an_answer_as_fresh_past_its_max_age(edge, board):
    """Nginx counts a cache entry's lifetime in whole seconds (it would keep an answer up to max-age + 1 s); the
    local edge states each max-age m to its cache as m - 1 s (X-Accel-Expires, local/edge.conf.template), so no
    request that reaches it max-age after the answer was stored is a HIT. Failed before: HITs up to 1 s later."""
    target = f"/leaderboards/{board}/top?limit=4"  # read by this test only
    max_age = routes.match_route("GET", f"/leaderboards/{board}/top")[0].cache.max_age
    time.sleep(1.05 - time.time() % 1)  # just after a second starts: the rounding would add most of a second
    assert edge.get(target).headers["X-Cache"] == "MISS"
    stored_by = time.monotonic()  # the entry was stored before its answer arrived
    last_hit = 0.0  # until the first answer that is not a HIT (the one that starts a refresh)
    while (started := time.monotonic()) - stored_by < max_age + 1.5:
        if edge.get(target).headers["X-Cache"] != "HIT":
            break
        last_hit = started - stored_by
        time.sleep(0.05)
    print(f"the last HIT was asked {last_hit:.2f} s after the answer was stored (max-age {max_age} s)")
    assert 0 < last_hit < max_age + 0.1  # 0.1 s: nginx reads its clock once per event loop turn


def test_the_socket_between_the_cache_and_the_origin_fits_a_long_run_directory():
    """A unix socket's path holds 108 bytes: a run directory too long for it puts the socket in the temp directory."""
    short, long_ = Path("/tmp/run/edge"), Path("/tmp/" + "d" * 120 + "/edge")
    assert local_edge.origin_socket(short) == short / "origin.sock"
    assert len(str(local_edge.origin_socket(long_))) <= 100
    assert local_edge.origin_socket(long_) != local_edge.origin_socket(Path("/tmp/" + "e" * 120 + "/edge"))
    assert f"unix:{local_edge.origin_socket(long_)};" in local_edge.render("127.0.0.1:1", "http://127.0.0.1:2", long_)


def test_a_reader_after_a_quiet_spell_gets_a_fresh_answer_not_a_stale_one(api, edge, board):
    """Stale answers are served while one request revalidates, never to the first reader after a quiet spell: no
    answer is older than max-age + stale-while-revalidate."""
    target = f"/leaderboards/{board}/top?limit=1&period=daily"
    assert edge.get(target).headers["X-Cache"] == "MISS"
    assert api.post(f"/leaderboards/{board}/scores", {"player_id": "quiet", "score": 20_000}).status_code == 200
    caching = routes.match_route("GET", f"/leaderboards/{board}/top")[0].cache
    time.sleep(caching.max_age + caching.stale_seconds + 0.5)
    resp = edge.get(target)
    assert resp.json()["entries"][0]["player_id"] == "quiet", resp.headers["X-Cache"]


LOAD_CLIENTS = 64
# Long enough for each URL's cache entry to expire and be refetched several times (max-age is about a second);
# the busiest second is the check, and it is the same in 6 s as in 20 (20 cost 14 s more of two busy cores).
LOAD_SECONDS = 6


def test_64_clients_on_three_urls_for_6_seconds_reach_the_origin_at_most_3_times_a_second_per_url(edge, board):
    """The launch spike: every answer a 200, and the origin serves each URL about once per max-age."""
    urls = [
        f"/leaderboards/{board}/top?limit=25",
        f"/leaderboards/{board}/players/p3?window=2",
        f"/leaderboards/{board}",
    ]
    statuses: Counter = Counter()
    counted = threading.Lock()
    before = edge.origin_requests()
    started = time.monotonic()
    deadline = started + LOAD_SECONDS

    def client(n: int) -> None:
        mine: Counter = Counter()
        with requests.Session() as session:
            i = n
            while time.monotonic() < deadline:
                try:
                    mine[session.get(edge.url + urls[i % 3], timeout=30).status_code] += 1
                except requests.RequestException as err:
                    mine[type(err).__name__] += 1
                i += 1
        with counted:
            statuses.update(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(LOAD_CLIENTS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    reached = edge.origin_requests() - before
    per_url = {url: reached[("GET", url)] for url in urls}
    # The busiest second of each URL at the origin (only this test reads these URLs).
    per_second = Counter((target, int(at)) for at, _, target in edge.served())
    busiest = {url: max((n for (target, _), n in per_second.items() if target == url), default=0) for url in urls}
    total = sum(statuses.values())
    print(
        f"{total} edge requests in {elapsed:.1f} s ({total / elapsed:.0f}/s); origin requests per URL: {per_url}, "
        f"in the busiest second: {busiest}"
    )
    assert set(statuses) == {200}, statuses
    assert sum(reached.values()) == sum(per_url.values())  # nothing else reached the origin
    for url, count in per_url.items():
        # within the whole window, the requests still in flight at the deadline included
        assert 1 <= count <= 3 * (int(elapsed) + 1), (url, count)
        assert busiest[url] <= 3, (url, busiest[url])
