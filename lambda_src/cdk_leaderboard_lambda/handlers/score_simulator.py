"""POST /simulate {"players": N}: demo data, only where the stage enables it."""

from ..composition import Handler, Runtime
from ..domain import simulation
from ..shared import limits
from ..shared.errors import Forbidden
from ..web import routes
from ..web import validation as v
from ..web.http import Call, audit, function_handler


def simulate(call: Call):
    if not call.runtime.settings.enable_simulator:
        raise Forbidden("the simulator is disabled on this stage")
    body = call.body()
    v.only_fields(body, routes.SIMULATE_BODY.fields)
    players = v.bounded_int(
        body.get("players"), "players", 1, limits.MAX_SIMULATED_PLAYERS, default=limits.DEFAULT_SIMULATED_PLAYERS
    )
    rt = call.runtime
    result = simulation.simulate(rt.entries, players, rt.clock.now(), rt.settings.period_retention_days)
    audit(call.event, "simulator.run", {"players": players, "writes": result.get("writes")}, call.runtime.clock.now())
    return 200, result


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""
    return function_handler(routes.SCORE_SIMULATOR, globals(), runtime)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
