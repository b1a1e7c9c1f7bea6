"""Evidence of the standings: a player's signed receipt and the keys that check it (docs/PROVING.md)."""

from __future__ import annotations

from ...shared.function_registry import LEADERBOARD_ADMIN, SCORE_SUBMIT
from .access import PLAYER, PUBLIC
from .caching import KEYS, NO_STORE
from .fields import BOARD_PERIOD
from .route import Route

# What a receipt says and costs, whichever credential fetched it.
_RECEIPT = (
    "A compact JWS (EdDSA, header kid) whose payload holds board_id, period_id, player_id, player (their commitment "
    "in the log), order, rank, score, total_players, at, iat, seq and head_hash: the standings of the log's first "
    "seq records, which anyone can recompute from GET .../periods/{period_id}/log and check against GET "
    "/.well-known/jwks.json. 404 for a period with no log or a player not in its standings (never logged, removed, "
    "hidden or erased). Cost: four reads when this instance has replayed the log before (the entry, the log's head, "
    "the player's key, the new records); a first replay of a long log reads 100 records a read, up to 20,000 "
    "records a request, then answers 409 (log catching up, retry_after_seconds) and goes on at the next request. "
    "409 log catching up too for an entry newer than the log's head (the log is appended from the table's stream). "
    "A period whose ends_at has passed: the standings at its closing summary's log_head (seq and head_hash are the "
    "summary's), whatever the log holds after it, so a receipt agrees with the signed summary; 409 "
    "(retry_after_seconds) until the summary is stored, 404 for a player not in those standings. "
    "A receipt names the player next to their commitment, so whoever holds it can link the player's log records "
    '(docs/PROVING.md, "Erasure"): it goes to the player or their game\'s server only, never through the edge.'
)

PROOF_ROUTES: tuple[Route, ...] = (
    Route(
        "GET",
        "/leaderboards/{board}/players/{player_id}/receipt",
        SCORE_SUBMIT,  # it checks player tokens and signs: a public read function holds neither key
        "player_receipt",
        access=PLAYER,
        response=(200, "Receipt"),
        cache=NO_STORE,  # each receipt says when it was issued, and a credential fetched it
        query={"period": BOARD_PERIOD},
        summary="The player's own signed receipt of their rank, score and the total, at the head of the period's log",
        description="`Authorization: Bearer <player token>` of this player (POST /players/{player_id}/tokens, which "
        "the game key mints: a game server gets any player's receipt by minting that player's token; a token "
        "limited to boards must list this one): a token of another player, or limited to other boards, is a 403; "
        "an expired or altered one is refused (401), a request without the header by API Gateway (401). " + _RECEIPT,
    ),
    Route(
        "GET",
        "/.well-known/jwks.json",
        LEADERBOARD_ADMIN,  # it reads the signing key's secret anyway (summaries); the public read functions do not
        "jwks",
        access=PUBLIC,
        response=(200, "Jwks"),
        cache=KEYS,
        summary="The public keys (JWKS, RFC 7517/8037) that check receipts and closing summaries",
        description='The current key and every retired one ("status": "retired"): a receipt signed before a '
        "rotation still verifies. A new key shows here within a minute of the functions reading it.",
    ),
)
