"""POST /simulate {"players": N}: demo data, only where the stage enables it."""

from .. import simulation
from .. import validation as v
from ..errors import Forbidden
from ..http import api_handler, audit
from ..settings import get_settings


@api_handler
def handler(event):
    if not get_settings().enable_simulator:
        raise Forbidden("the simulator is disabled on this stage")
    body = v.json_body(event)
    v.only_fields(body, {"players"})
    players = v.bounded_int(body.get("players"), "players", 1, 1000, default=25)
    result = simulation.simulate(players)
    audit(event, "simulator.run", {"players": players, "writes": result.get("writes")})
    return 200, result
