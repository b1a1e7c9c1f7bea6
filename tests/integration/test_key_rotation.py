"""Keys by class through rotation: the local stack rotates its keys through ops/rotation.py's Rotator (the
code `make rotate-key` runs) against its API Gateway and Secrets Manager stand-ins. A rotated key works on every
route of its class at once (the FULL route table), and the old one is refused after exactly the grace asked for on
every keyed route (API Gateway: out of its plan), and within api_key_classes.REFRESH_SECONDS more where API Gateway
checks no key (the functions' cached ring: docs/DESIGN.md, "Key classes through rotation").

Each test puts the stack's original keys back afterwards (LocalKeys.restore): the package's other tests use them.
"""

from __future__ import annotations

import time

import pytest
import requests

from cdk_leaderboard_lambda.domain import api_key_classes
from cdk_leaderboard_lambda.web import routes
from local import dashboard, edge
from local.dynamodb_local import free_port
from local.processes import accepts

from .stack_config import ADMIN_KEY, API_KEY
from .test_keys import BODIES, _path

CLASS_ROUTES = {
    routes.GAME: [r for r in routes.ROUTES if r.access == routes.GAME],
    routes.ADMIN: [r for r in routes.ROUTES if r.access == routes.ADMIN],
}
GRACE_S = 2.0


def test_every_keyed_route_is_in_one_class_here():
    keyed = {(r.method, r.path) for r in routes.ROUTES if r.access in routes.KEYED}
    assert keyed == {(r.method, r.path) for rs in CLASS_ROUTES.values() for r in rs}


@pytest.fixture
def rotating(stack, clean):
    """The stack's keys put back as they were, and its functions' caches fresh, after the test."""
    yield stack
    stack.keys.restore({routes.GAME: API_KEY, routes.ADMIN: ADMIN_KEY})
    stack.api_key, stack.admin_key = API_KEY, ADMIN_KEY
    with stack.reconfigured():  # what new instances would read: the original values
        pass


def _request(stack, route: routes.Route, key: str) -> requests.Response:
    body = BODIES.get((route.method, route.path))
    return requests.request(
        route.method, stack.api_url + _path(route), json=body, headers={"x-api-key": key}, timeout=60
    )


def _refusals(stack, access: str, key: str) -> dict[str, str]:
    """The routes of the class that refuse `key` (403), with why; {} when the key opens every one."""
    out = {}
    for route in CLASS_ROUTES[access]:
        reply = _request(stack, route, key)
        if reply.status_code == 403:
            out[f"{route.method} {route.path}"] = reply.json().get("error", "")
        else:
            assert reply.status_code < 500, (route.method, route.path, reply.status_code, reply.text)
    return out


def _assert_old_refused_everywhere(stack, access: str, old: str, retired_at: float) -> None:
    """Every route that takes a key is keyed at API Gateway, the score route too: API Gateway's 403 at
    once, on every one (no function's cached ring can keep the old value alive past the grace)."""
    for route in CLASS_ROUTES[access]:
        reply = _request(stack, route, old)
        assert reply.json() == {"error": routes.INVALID_API_KEY.message}, (route.path, reply.text)
    assert time.monotonic() - retired_at < api_key_classes.REFRESH_SECONDS  # not waited out: refused at once


def _rotate(stack, access: str, grace_s: float, old: str) -> tuple[str, list[dict[str, str]]]:
    """One `make rotate-key --key access --grace-seconds grace_s`; what the old key met during the grace."""
    during: list[dict[str, str]] = []

    def grace(seconds: float) -> None:
        started = time.monotonic()
        if seconds == grace_s and grace_s > 0:  # the grace itself (not the rotation's pickup pause)
            during.append(_refusals(stack, access, old))
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))

    stack.rotate_keys([access], grace_s, wait=grace)
    return stack.keys.current(access), during


@pytest.mark.parametrize("grace_s", [0.0, GRACE_S], ids=["grace-0", f"grace-{GRACE_S:.0f}s"])
def test_a_rotated_key_opens_every_route_of_its_class_and_the_old_one_ends_with_the_grace(rotating, grace_s):
    stack = rotating
    new_game, during = _rotate(stack, routes.GAME, grace_s, old=API_KEY)
    retired_at = time.monotonic()
    assert new_game != API_KEY
    assert during == ([{}] if grace_s else [])  # the old game key worked on every route of its class until then
    assert _refusals(stack, routes.GAME, new_game) == {}  # the new one, everywhere, as the rotation returns
    _assert_old_refused_everywhere(stack, routes.GAME, API_KEY, retired_at)
    assert _refusals(stack, routes.ADMIN, ADMIN_KEY) == {}  # the other class untouched

    new_admin, during = _rotate(stack, routes.ADMIN, grace_s, old=ADMIN_KEY)
    retired_at = time.monotonic()
    assert during == ([{}] if grace_s else [])
    assert _refusals(stack, routes.ADMIN, new_admin) == {}
    _assert_old_refused_everywhere(stack, routes.ADMIN, ADMIN_KEY, retired_at)
    # each new key stays in its class: the function's 403 naming the class needed
    assert set(_refusals(stack, routes.ADMIN, new_game).values()) == {
        "this route needs the admin key; the x-api-key given is of another class"
    }
    game_keyed = [r for r in CLASS_ROUTES[routes.GAME] if r.access == routes.GAME]
    for route in game_keyed:
        assert "needs the game key" in _request(stack, route, new_admin).json()["error"]


def test_with_no_grace_the_old_key_goes_only_once_the_new_one_answers(rotating):
    """The API Gateway stand-in honours a key only HONOUR_S after it joined its plan (API Gateway may take seconds):
    the rotation with no grace waits until the new key answers through the gateway, and at the moment the old key
    leaves its plan the new one already opens every route of its class."""
    stack = rotating
    honour_s = 1.5
    at_retirement: list[dict[str, str]] = []

    def retiring(**_) -> None:
        at_retirement.append(_refusals(stack, routes.GAME, stack.keys.current(routes.GAME)))

    stack.keys.honour_after_s = honour_s
    stack.keys.control.meta.events.register("before-parameter-build.apigateway.DeleteUsagePlanKey", retiring)
    try:
        started = time.monotonic()
        stack.rotate_keys([routes.GAME], 0.0)
        took = time.monotonic() - started
    finally:
        stack.keys.control.meta.events.unregister("before-parameter-build.apigateway.DeleteUsagePlanKey", retiring)
        stack.keys.honour_after_s = 0.0
    assert at_retirement == [{}]  # the old game key left its plan once the new one opened every game route
    assert took >= honour_s
    _assert_old_refused_everywhere(stack, routes.GAME, API_KEY, time.monotonic())


def test_a_redeploy_after_a_rotation_keeps_the_new_keys(rotating):
    """New function instances (what a redeploy starts: the stack's environment names the secrets, not keys) read
    the rotated values: nothing to mend."""
    stack = rotating
    new_game, _ = _rotate(stack, routes.GAME, 0.0, old=API_KEY)
    new_admin, _ = _rotate(stack, routes.ADMIN, 0.0, old=ADMIN_KEY)
    with stack.reconfigured():
        assert _refusals(stack, routes.GAME, new_game) == {}
        assert _refusals(stack, routes.ADMIN, new_admin) == {}


@pytest.mark.skipif(edge.nginx_binary() is None, reason="the dashboard's Nginx config needs nginx")
def test_the_dashboards_admin_area_sends_the_new_admin_key_after_a_rotation(rotating, tmp_path):
    """The Nginx config adds the admin key under /admin-api/: the rotation refreshes it (on EC2 through SSM, here
    by rendering the config again and reloading Nginx) before the old key goes; with no grace, a request through
    the dashboard succeeds only with the new key."""
    stack = rotating
    port, password = free_port(), "rotation-test-password"
    dashboard.start(stack.procs, tmp_path, port, stack.api_url, ADMIN_KEY, password)
    url, auth = f"http://127.0.0.1:{port}/admin-api/snapshot", (dashboard.ADMIN_USER, password)
    try:
        assert accepts(port)
        assert requests.post(url, json={}, auth=auth, timeout=30).status_code == 201
        refreshed = []

        def refresh() -> None:  # what leaderboard-secrets.service does: the key read from its secret
            refreshed.append(stack.keys.current(routes.ADMIN))
            dashboard.refresh_admin_key(stack.procs, tmp_path, refreshed[-1])

        stack.rotate_keys([routes.ADMIN], 0.0, refresh=refresh)
        assert refreshed == [stack.keys.current(routes.ADMIN)] != [ADMIN_KEY]
        assert requests.post(stack.api_url + "/snapshot", json={}, headers={"x-api-key": ADMIN_KEY}).status_code == 403
        reply = requests.post(url, json={}, auth=auth, timeout=30)
        assert reply.status_code == 201, reply.text
    finally:
        stack.procs.stop("nginx")
