"""A key of the wrong class: every keyed route answers 403 with a JSON error that names the key class it needs,
and does nothing. (A 429, as a usage plan's zero throttle answers, would tell a misconfigured client to retry.)"""

from __future__ import annotations

import pytest
import requests

from cdk_leaderboard_lambda.web import routes

from .stack_config import ADMIN_KEY, API_KEY

KEYS = {routes.GAME: API_KEY, routes.ADMIN: ADMIN_KEY}
# The class of key a route takes
NEEDS = {routes.GAME: routes.GAME, routes.ADMIN: routes.ADMIN}
PATH_VALUES = {
    "board": "global",
    "player_id": "a",
    "period_id": "daily",
    "erasure_id": "x",
    "pending_id": "1764600000000-abcdefgh",
}
# A body each route would act on with the right key (API Gateway validates bodies before the function runs).
BODIES = {
    ("POST", "/scores"): {"player_id": "wrong-key", "score": 1},
    ("POST", "/snapshot"): {},
    ("POST", "/simulate"): {"players": 1},
    ("POST", "/leaderboards"): {"board_id": "wrong-key"},
    ("POST", "/leaderboards/{board}/scores"): {"player_id": "wrong-key", "score": 1},
    ("POST", "/leaderboards/{board}/scores/bulk"): {"entries": [{"player_id": "wrong-key", "score": 1}]},
    ("POST", "/players/{player_id}/tokens"): {},
    ("PATCH", "/leaderboards/{board}"): {"rules": {}},
}
KEYED = [r for r in routes.ROUTES if r.access in NEEDS]


def _path(route: routes.Route) -> str:
    return "/".join(PATH_VALUES[p[1:-1]] if p.startswith("{") else p for p in route.path.split("/"))


def test_every_keyed_route_with_a_body_has_one_here():
    assert {(r.method, r.path) for r in KEYED if r.body_schema} == set(BODIES)


@pytest.fixture(scope="module")
def seeded(stack, api):
    """A player, a snapshot and a hidden player already there, so 'nothing changed' means something."""
    stack.reset_tables()
    assert api.post("/scores", {"player_id": "a", "score": 5}).status_code == 200
    assert api.post("/snapshot", {}).status_code == 201
    assert api.put("/leaderboards/global/players/b/hidden").status_code == 200


@pytest.mark.parametrize("route", KEYED, ids=[f"{r.method} {r.path}" for r in KEYED])
def test_the_other_classs_key_is_403_naming_the_class_needed_and_does_nothing(api, seeded, table_state, route):
    wrong = next(key for access, key in KEYS.items() if access != NEEDS[route.access])
    before = table_state()
    body = BODIES.get((route.method, route.path))
    reply = requests.request(route.method, api.url + _path(route), json=body, headers={"x-api-key": wrong}, timeout=60)
    assert reply.status_code == 403, reply.text
    assert reply.headers["Content-Type"].startswith("application/json")
    assert f"needs the {NEEDS[route.access]} key" in reply.json()["error"]
    assert table_state() == before
