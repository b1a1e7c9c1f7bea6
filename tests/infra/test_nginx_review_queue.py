"""The dashboard's review queue through the real Nginx (dashboard_ec2/nginx.conf.template): a board's pending list
(GET) and a decision on one (POST approve or reject) reach the API with the admin key, signed in only; anything
else under .../pending does not, and a decision from another site is refused before it reaches anything."""

from __future__ import annotations

import json

from tests.infra.test_nginx_conf import (  # noqa: F401 (fixtures: local_nginx, upstream)
    ADMIN_PASSWORD,
    ADMIN_USER,
    API_KEY,
    local_nginx,
    needs_nginx,
    upstream,
    upstream_requests,
)

ADMIN = (ADMIN_USER, ADMIN_PASSWORD)
PENDING_ID = "1796169288000-Ab_-9xYz"  # the API's pattern: submission ms (13 digits), then 8 random characters


@needs_nginx
def test_live_the_pending_list_passes_with_its_query_and_the_key(local_nginx):  # noqa: F811 (fixtures)
    path = "/admin-api/leaderboards/race/pending?limit=10&cursor=abc"
    assert local_nginx.request(path)[0] == 401
    status, _, body = local_nginx.request(path, auth=ADMIN)
    assert status == 200, body
    echoed = json.loads(body)
    assert (echoed["method"], echoed["path"]) == ("GET", "/leaderboards/race/pending?limit=10&cursor=abc")
    assert echoed["headers"]["x-api-key"] == API_KEY and "authorization" not in echoed["headers"]
    assert local_nginx.request("/admin-api/leaderboards/race/pending", method="POST", auth=ADMIN)[0] == 403


@needs_nginx
def test_live_approve_and_reject_pass_with_the_key_and_nothing_else_does(local_nginx, upstream):  # noqa: F811 (fixtures)
    for decision in ("approve", "reject"):
        path = f"/admin-api/leaderboards/race/pending/{PENDING_ID}/{decision}"
        assert local_nginx.request(path, method="POST")[0] == 401
        status, _, body = local_nginx.request(path, method="POST", auth=ADMIN)
        assert status == 200, body
        echoed = json.loads(body)
        assert (echoed["method"], echoed["path"]) == ("POST", f"/leaderboards/race/pending/{PENDING_ID}/{decision}")
        assert echoed["headers"]["x-api-key"] == API_KEY and "authorization" not in echoed["headers"]
        assert local_nginx.request(path, auth=ADMIN)[0] == 403  # GET is not a decision
    before = len(upstream_requests(upstream))
    for other in (
        f"/admin-api/leaderboards/race/pending/{PENDING_ID}/delete",
        f"/admin-api/leaderboards/race/pending/{PENDING_ID}",
        "/admin-api/leaderboards/race/pending/not-an-id/approve",
        f"/admin-api/leaderboards/Race/pending/{PENDING_ID}/approve",
    ):
        assert local_nginx.request(other, method="POST", auth=ADMIN)[0] == 404, other
    assert len(upstream_requests(upstream)) == before


@needs_nginx
def test_live_a_decision_from_another_site_is_refused(local_nginx, upstream):  # noqa: F811 (fixtures)
    path = f"/admin-api/leaderboards/race/pending/{PENDING_ID}/approve"
    before = len(upstream_requests(upstream))
    for headers in ({"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}, {"Origin": "null"}):
        status, _, body = local_nginx.request(path, method="POST", auth=ADMIN, headers=headers)
        assert status == 403, (headers, body)
        assert "same origin" in json.loads(body)["error"]
    assert len(upstream_requests(upstream)) == before
    own = {"Sec-Fetch-Site": "same-origin", "Origin": local_nginx.base}
    assert local_nginx.request(path, method="POST", auth=ADMIN, headers=own)[0] == 200


@needs_nginx
def test_live_the_admin_limit_counts_a_session_check_once_and_stops_a_flood(local_nginx):  # noqa: F811 (fixtures)
    """Each client address has a bucket of 40 admin requests (refilled at 5 a second). The silent session check
    asks /admin-api/ping through Nginx itself: that hop is not counted again (else every visitor's page load
    would share the server's one bucket), so 30 checks in a row all answer; a flood past the bucket gets 429."""
    answers = [local_nginx.request("/admin-api/session")[0] for _ in range(30)]
    assert answers == [401] * 30  # counted twice, the bucket of 40 would have run out at about the 21st
    flood = [local_nginx.request("/admin-api/ping", auth=ADMIN)[0] for _ in range(100)]
    assert set(flood) == {204, 429} and flood[0] == 204, flood  # 100 at once outrun 10 left plus 5 a second
