"""The launch test's operations: one name each, in Locust's figures, the cost measurements and the JSON."""

BOARD = "global"  # the default board: what POST /scores writes (its three periods)
TOP_PATH = f"/leaderboards/{BOARD}/top"
TOP_QUERY = "limit=25"

READ_TOP, READ_RANK = "read_top", "read_rank"  # public, through the edge
SUBMIT_NOT_IMPROVING, SUBMIT_IMPROVING, SUBMIT_NEW = "submit_not_improving", "submit_improving", "submit_new_player"
LIVE_SUBSCRIBE, LIVE_PUSH = "live_subscribe", "live_push"  # the WebSocket API
READS = (READ_TOP, READ_RANK)
SUBMISSIONS = (SUBMIT_NOT_IMPROVING, SUBMIT_IMPROVING, SUBMIT_NEW)
HTTP = READS + SUBMISSIONS
ALL = HTTP + (LIVE_SUBSCRIBE, LIVE_PUSH)
# --each-first: a live follower, once subscribed, submits a new leader and waits this long for the top it makes (a
# loaded 2-core machine took more than a 6 s run to push one); Locust's stop timeout is this much longer then
FIRST_PUSH_SECONDS = 30


def rank_path(player_id: str) -> str:
    return f"/leaderboards/{BOARD}/players/{player_id}"


def classify(method: str, path: str) -> str | None:
    """The operation a request the origin served belongs to (submissions are one POST /scores: "submit")."""
    if method == "GET" and path == TOP_PATH:
        return READ_TOP
    if method == "GET" and path.startswith(rank_path("")) and "/" not in path[len(rank_path("")) :]:
        return READ_RANK
    if method == "POST" and path == "/scores":
        return "submit"
    return None
