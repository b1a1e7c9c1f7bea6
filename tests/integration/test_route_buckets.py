"""A route and a bucket per caller class, on the local stack over HTTP: a score request without its
credential is answered by the gateway and never reaches the score function (the gateway's invocation count and the
tables unchanged); run-token and game-key submissions are throttled separately, with the local gateway's buckets
the template's own (stage method settings and usage plans)."""

from __future__ import annotations

import pytest
from cdk_leaderboard.props import LeaderboardProps

from cdk_leaderboard_lambda.web import routes
from local.throttles import Limit, Throttle
from tests.support.player_tokens import bearer

CLIENT = "rb-client"
GAME_ROUTE = ("POST", "/leaderboards/{board}/scores")
RUN_ROUTE = ("POST", "/leaderboards/{board}/runs/{run_id}/score")
RUN_ID = "A" * 22  # the shape of a run id (limits.RUN_ID_PATTERN): no run of that id needed to be refused


@pytest.fixture(scope="module")
def board(stack, api):
    stack.reset_tables()
    assert api.post("/leaderboards", {"board_id": CLIENT, "submissions": "client"}).status_code == 201
    return CLIENT


def a_run(api, player: str) -> dict:
    token = api.post(f"/players/{player}/tokens", {"ttl_seconds": 600}).json()["token"]
    run = api.post(f"/leaderboards/{CLIENT}/runs", key=None, headers=bearer(token))
    assert run.status_code == 201, run.text
    return run.json()


def run_score(api, run: dict, player: str, score: int, key: str | None = None):
    path = f"/leaderboards/{CLIENT}/runs/{run['run_id']}/score"
    return api.post(path, {"player_id": player, "score": score}, key=key, headers=bearer(run["run_token"]))


def score_invocations(stack) -> int:
    return stack.gateway.invocations[routes.SCORE_SUBMIT.name]


def test_a_score_request_without_its_credential_never_reaches_the_function(api, stack, board, table_state):
    """Neither credential, or a blank one: API Gateway's own answer (the run routes' 400 from the request validator,
    the game route's 403 for its key), no invocation, nothing written. A junk token does reach the function (only
    the header's presence is API Gateway's to check): the count moves, so the test can tell."""
    body = {"player_id": "p", "score": 1}
    before, invoked = table_state(), score_invocations(stack)
    refused = {
        "run score, no header": api.post(f"/leaderboards/{board}/runs/{RUN_ID}/score", body, key=None),
        "run score, blank header": api.post(
            f"/leaderboards/{board}/runs/{RUN_ID}/score", body, key=None, headers={"Authorization": ""}
        ),
        "run start, no header": api.post(f"/leaderboards/{board}/runs", key=None),
        "game score, no key": api.post(f"/leaderboards/{board}/scores", body, key=None),
        "game score, junk key": api.post(f"/leaderboards/{board}/scores", body, key="junk-key"),
        "game score, a bearer but no key": api.post(
            f"/leaderboards/{board}/scores", body, key=None, headers=bearer("some.run.token")
        ),
    }
    missing = {"error": routes.MISSING_CREDENTIALS.message}
    for name, reply in refused.items():
        expected = (401, missing) if "run" in name else (403, {"error": routes.INVALID_API_KEY.message})
        assert (reply.status_code, reply.json()) == expected, name
        assert ("run" not in name) or reply.headers["WWW-Authenticate"] == "Bearer", name
    assert score_invocations(stack) == invoked  # not one invocation for the six
    assert table_state(settle=False) == before

    junk = api.post(f"/leaderboards/{board}/runs/{RUN_ID}/score", body, key=None, headers=bearer("junk"))
    assert junk.status_code == 401 and score_invocations(stack) == invoked + 1


def test_the_game_key_and_a_run_token_together_are_a_400_on_either_route(api, board, table_state):
    run = a_run(api, "both")
    body = {"player_id": "both", "score": 3}
    before = table_state()
    with_token = api.post(f"/leaderboards/{board}/scores", body, headers=bearer(run["run_token"]))  # and the key
    assert with_token.status_code == 400 and "not both" in with_token.json()["error"]
    with_key = run_score(api, run, "both", 3, key=api.key)
    assert with_key.status_code == 400 and "not both" in with_key.json()["error"]
    assert table_state() == before
    assert run_score(api, run, "both", 3).status_code == 200  # the run, refused twice, still takes its score


def _template_limits(template: dict) -> tuple[dict[tuple[str, str], Limit], dict[str, Limit]]:
    """The stage's method settings by (method, path) (the default under ("*", "/*")) and the plans' throttles by
    the plan's logical id, read here from the template as CloudFormation would."""
    (stage,) = [r for r in template["Resources"].values() if r["Type"] == "AWS::ApiGateway::Stage"]
    methods = {
        (s["HttpMethod"], s["ResourcePath"]): Limit(s["ThrottlingRateLimit"], s["ThrottlingBurstLimit"])
        for s in stage["Properties"]["MethodSettings"]
        if "ThrottlingRateLimit" in s
    }
    plans = {
        k: Limit(r["Properties"]["Throttle"]["RateLimit"], r["Properties"]["Throttle"]["BurstLimit"])
        for k, r in template["Resources"].items()
        if r["Type"] == "AWS::ApiGateway::UsagePlan"
    }
    return methods, plans


def test_the_local_gateways_buckets_are_the_templates(stack):
    """Every route's method bucket and each key class's plan, as the local gateway meters them, are the template's
    stage method settings and usage plans; the two score routes are two methods (two buckets), the run route's as
    large as the game key's plan (props.throttles)."""
    methods, plans = _template_limits(stack.template)
    local = stack.throttles
    for route in routes.ROUTES:
        resource_path = "/" + route.path.replace("~", "~0").replace("/", "~1")
        expected = methods.get((route.method, resource_path), methods[("*", "/*")])
        assert local.method_limit(route.method, route.path) == expected, route.path
    assert sorted(local.plans) == sorted([routes.GAME, routes.ADMIN])
    for access, limit in local.plans.items():
        ((_, in_template),) = [(k, v) for k, v in plans.items() if f"{access.title()}Plan" in k]
        assert limit == in_template, access
    throttles = LeaderboardProps().throttles
    game_plan = Limit(throttles.game_key_rate_limit, throttles.game_key_burst_limit)
    assert local.plans[routes.GAME] == game_plan
    assert local.method_limit(*RUN_ROUTE) == game_plan  # its own bucket, as large
    assert RUN_ROUTE in local.methods  # a method setting of its own, not the stage's default


@pytest.fixture
def throttled(stack):
    """The stack's gateway throttling with the template's buckets on a clock that stands still (no refill), for the
    test; off again after."""
    now = [1000.0]
    stack.gateway.throttle = Throttle(stack.throttles, clock=lambda: now[0])
    yield stack.gateway.throttle
    stack.gateway.throttle = None


def _empty_the_bucket(api, stack, path: str, tokens: int, refused: int, **kw) -> None:
    """`tokens` requests that the gateway refuses itself (`refused`: 401 for a missing Authorization header, 400 for
    an invalid body, after the throttle as on API Gateway), then its 429: the bucket's tokens all taken, and no
    invocation for any of it."""
    invoked = score_invocations(stack)
    statuses = {api.post(path, {"junk": "flood"}, **kw).status_code for _ in range(tokens)}
    assert statuses == {refused}
    assert api.post(path, {"junk": "flood"}, **kw).json() == {"error": routes.THROTTLED.message}
    assert score_invocations(stack) == invoked


def test_a_flood_on_the_run_route_leaves_game_servers_their_bucket(api, stack, board, throttled):
    """Junk without a credential on the run route (API Gateway's 401s, no invocation) takes that method's tokens:
    run-token scores are then 429, and the game servers' score route still answers (its own method, its key's
    plan)."""
    run = a_run(api, "flooded")
    burst = stack.throttles.method_limit(*RUN_ROUTE).burst
    _empty_the_bucket(api, stack, f"/leaderboards/{board}/runs/{RUN_ID}/score", burst, 401, key=None)
    assert run_score(api, run, "flooded", 5).status_code == 429
    by_server = api.post(f"/leaderboards/{board}/scores", {"player_id": "server", "score": 5})
    assert by_server.status_code == 200, by_server.text
    assert a_run(api, "another")["run_token"]  # the run start: another method, another bucket


def test_a_game_server_past_its_bucket_leaves_players_theirs(api, stack, board, throttled):
    """The other way: the game route's buckets empty (its key's plan and its method: the smaller burst of the two),
    game servers get 429, and a run token's score still answers."""
    run = a_run(api, "player")  # its player token took one token of the game key's plan (the mint is keyed)
    plan, method = stack.throttles.plans[routes.GAME].burst - 1, stack.throttles.method_limit(*GAME_ROUTE).burst
    _empty_the_bucket(api, stack, f"/leaderboards/{board}/scores", min(plan, method), 400)
    game = api.post(f"/leaderboards/{board}/scores", {"player_id": "server", "score": 5})
    assert game.status_code == 429
    played = run_score(api, run, "player", 5)
    assert played.status_code == 200, played.text
