"""POST /scores"""

from leaderboard import service, validation as v
from leaderboard.http import api_handler


@api_handler
def handler(event):
    body = v.json_body(event)
    v.only_fields(body, {"player_id", "score", "player_name"})
    player_id = v.player_id(body.get("player_id"))
    score = v.score(body.get("score"))
    name = v.player_name(body.get("player_name"), default=player_id)
    return 200, service.submit_score(player_id, name, score)
