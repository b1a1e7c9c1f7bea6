"""Python SDK for game servers of the cdk-leaderboard API (clients/python/README.md).

    from leaderboard_client import Leaderboard
    lb = Leaderboard("https://...", api_key=GAME_KEY)
    lb.submit("race", player_id="p1", score=123, player_name="Ada")

AsyncLeaderboard is the same for asyncio (`await lb.submit(...)`, `async for entry in lb.entries(...)`).

`leaderboard_client.generated` is written at build time by openapi-python-client from the API's OpenAPI document.
"""

from ._async_leaderboard import AsyncLeaderboard
from ._leaderboard import Leaderboard, LeaderboardError, new_idempotency_key
from ._retry import Retry, RetryInfo
from .generated.models import BoardSubmit, Bulk, Entry, Page, PendingScore, PlayerToken

__version__ = "0.1.0"

__all__ = [
    "AsyncLeaderboard",
    "BoardSubmit",
    "Bulk",
    "Entry",
    "Leaderboard",
    "LeaderboardError",
    "Page",
    "PendingScore",
    "PlayerToken",
    "Retry",
    "RetryInfo",
    "new_idempotency_key",
]
