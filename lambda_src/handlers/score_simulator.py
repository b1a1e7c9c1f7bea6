"""POST /simulate {"players": N}: demo data, only where the stage enables it."""

from leaderboard import simulation
from leaderboard import validation as v
from leaderboard.errors import Forbidden
from leaderboard.http import api_handler
from leaderboard.settings import get_settings


@api_handler
def handler(event):
    if not get_settings().enable_simulator:
        raise Forbidden("the simulator is disabled on this stage")
    body = v.json_body(event)
    v.only_fields(body, {"players"})
    return 200, simulation.simulate(v.bounded_int(body.get("players"), "players", 1, 1000, default=25))
