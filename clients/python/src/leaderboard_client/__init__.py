"""Python SDK for game servers of the cdk-leaderboard API (clients/python/README.md).

    from leaderboard_client import Leaderboard
    lb = Leaderboard("https://...", api_key=GAME_KEY)
    lb.submit("race", player_id="p1", score=123, player_name="Ada")

AsyncLeaderboard is the same for asyncio (`await lb.submit(...)`, `async for entry in lb.entries(...)`).

`leaderboard_client.generated` is written at build time by openapi-python-client from the API's OpenAPI document.
"""

from ._async_leaderboard import AsyncLeaderboard
from ._leaderboard import Leaderboard, LeaderboardError, Run, error_code, new_idempotency_key, token_subject
from ._receipts import ReceiptError, VerifiedReceipt, verify_receipt
from ._retry import Retry, RetryInfo
from .generated.models import (
    Around,
    Board,
    BoardSubmit,
    Bulk,
    Entry,
    Jwks,
    Page,
    PendingScore,
    PlayerBoards,
    PlayerToken,
    Receipt,
)

__version__ = "0.1.0"

__all__ = [
    "Around",
    "AsyncLeaderboard",
    "Board",
    "BoardSubmit",
    "Bulk",
    "Entry",
    "Jwks",
    "Leaderboard",
    "LeaderboardError",
    "Page",
    "PendingScore",
    "PlayerBoards",
    "PlayerToken",
    "Receipt",
    "ReceiptError",
    "Retry",
    "RetryInfo",
    "Run",
    "VerifiedReceipt",
    "error_code",
    "new_idempotency_key",
    "token_subject",
    "verify_receipt",
]
