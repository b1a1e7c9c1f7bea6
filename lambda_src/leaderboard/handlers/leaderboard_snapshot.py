"""POST /snapshot freezes a period's top N; GET /snapshots lists them newest first."""

from .. import service
from .. import validation as v
from ..http import audit, dispatch


def take(event, params):
    body = v.json_body(event)
    v.only_fields(body, {"period", "limit"})
    limit = v.bounded_int(body.get("limit"), "limit", 1, 100, default=10)
    snapshot = service.take_snapshot(body.get("period"), limit)
    audit(event, "snapshot.take", snapshot["snapshot_id"])
    return 201, snapshot


def listing(event, params):
    q = v.query(event)
    limit = v.bounded_int(q.get("limit"), "limit", 1, 50, default=10)
    return 200, service.snapshots(q.get("period"), limit)


handler = dispatch({("POST", "/snapshot"): take, ("GET", "/snapshots"): listing})
