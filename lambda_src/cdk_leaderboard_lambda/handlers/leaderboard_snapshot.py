"""POST /snapshot freezes a period's top N; GET /snapshots lists them newest first."""

from ..composition import Handler, Runtime
from ..operations import snapshots
from ..shared import limits
from ..web import routes
from ..web import validation as v
from ..web.http import Call, audit, function_handler


def take(call: Call):
    body = call.body()
    v.only_fields(body, routes.SNAPSHOT_BODY.fields)
    limit = v.bounded_int(body.get("limit"), "limit", 1, limits.MAX_PAGE, default=limits.DEFAULT_SNAPSHOT)
    snapshot = snapshots.take_snapshot(call.runtime, body.get("period"), limit)
    audit(call.event, "snapshot.take", snapshot["snapshot_id"], call.runtime.clock.now())
    return 201, snapshot


def listing(call: Call):
    return 200, snapshots.snapshots(call.runtime, call.query["period"], call.query["limit"])


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""
    return function_handler(routes.LEADERBOARD_SNAPSHOT, globals(), runtime)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
