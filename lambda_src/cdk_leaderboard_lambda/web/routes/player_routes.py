"""A player's entries, moderation, player tokens and erasure."""

from __future__ import annotations

from ...shared import limits
from ...shared.function_registry import LEADERBOARD_ADMIN, SCORE_SUBMIT
from .access import ADMIN, GAME, PLAYER, PUBLIC
from .bodies import TOKEN_BODY
from .caching import NO_STORE
from .fields import _limit, cursor_of
from .route import Route

PLAYER_ROUTES: tuple[Route, ...] = (
    Route(
        "DELETE",
        "/leaderboards/{board}/players/{player_id}",
        LEADERBOARD_ADMIN,
        "remove_player",
        access=ADMIN,
        response=(200, "PlayerRemoval"),
        summary="Delete a player's entries on every open period of a board",
        description="Deleting a player who has no entry on the board deletes nothing (200, deleted_entries 0). "
        "Ranks and totals follow within the rank counters' usual delay. A period whose ends_at has passed keeps "
        "its entries as it closed (its closing signs them): only an erasure removes the player from it.",
    ),
    Route(
        "PUT",
        "/leaderboards/{board}/players/{player_id}/hidden",
        LEADERBOARD_ADMIN,
        "hide_player",
        access=ADMIN,
        response=(200, "Moderation"),
        summary="Hide a player on a board (moderation): gone from every list, rank and total others see",
        description="On every open period of the board, now and later, until shown again; a period whose ends_at "
        "has passed stays as it closed (its closing signs its standings). A lookup of the player by id "
        "still answers, marked hidden, with the rank they would have. Idempotent. Counters stay exact: a hidden "
        "entry leaves the rank index and the counters are recounted, within their usual delay.",
    ),
    Route(
        "GET",
        "/leaderboards/{board}/hidden",
        LEADERBOARD_ADMIN,
        "list_hidden",
        access=ADMIN,  # moderation decisions are not public
        response=(200, "HiddenPlayers"),
        query={
            "limit": _limit(limits.MAX_PAGE, limits.DEFAULT_PAGE),
            "cursor": cursor_of("the same board's hidden players"),
        },
        summary="The players hidden on a board, in player-id order, a page at a time",
        description="Cost: one Query of the board's hidden-player items, whatever the page size. hidden_at is when "
        "the player was last hidden. A cursor stays valid while players are hidden or shown meanwhile: the next page "
        "starts after the last player id listed.",
    ),
    Route(
        "DELETE",
        "/leaderboards/{board}/players/{player_id}/hidden",
        LEADERBOARD_ADMIN,
        "show_player",
        access=ADMIN,
        response=(200, "Moderation"),
        summary="Show a hidden player again, in their place",
        description="Their entries of the open periods return where their scores and times put them (ended "
        "periods stay as they closed). Idempotent.",
    ),
    Route(
        "POST",
        "/players/{player_id}/tokens",
        SCORE_SUBMIT,
        "issue_token",
        access=GAME,
        response=(201, "PlayerToken"),
        body=TOKEN_BODY,
        summary="Mint a player token: the game's backend lets one player's device start runs",
        description=f"It lives ttl_seconds ({limits.MIN_PLAYER_TOKEN_SECONDS} s to 24 h, "
        f"{limits.DEFAULT_PLAYER_TOKEN_SECONDS} s by default), limited to the boards listed if any. Signed (HS256) "
        "with the deployment's token key, which rotates: see docs/API.md.",
    ),
    Route(
        "GET",
        "/players/{player_id}",
        SCORE_SUBMIT,  # it checks player tokens; the public reads (player-stats) show no held score
        "player_pending",
        access=PLAYER,
        response=(200, "PlayerPending"),
        summary="The player's own submissions a board's rule holds back for review, on every board",
        description="`Authorization: Bearer <player token>` of this player: another player's token is a 403, an "
        "expired or altered one is refused (401), a request without the header by API Gateway (401); a token "
        "limited to boards sees those boards' only. By "
        "board id, then oldest first; [] when none. Nobody else sees them but the admin (the review queue, GET "
        "/leaderboards/{board}/pending, player_id). Cost: one Query of the player's pointers.",
    ),
    Route(
        "DELETE",
        "/players/{player_id}",
        LEADERBOARD_ADMIN,
        "erase_player",
        access=ADMIN,
        response=(200, "Erasure"),
        summary="Erase a player: every board, period, idempotency record, and their place in snapshots",
        description="Entries and counters go at once; idempotency records (the last 24 h) and the snapshot history "
        "are searched in steps: while some remain the answer is 202 with a status_url, and DELETE again goes on. "
        "Snapshots keep the erased player's rank and score under a placeholder id and name. The audit record keeps "
        "the erasure's id and times, not the player.",
    ),
    Route(
        "GET",
        "/erasures/{erasure_id}",
        LEADERBOARD_ADMIN,
        "erasure_status",
        access=PUBLIC,  # like every read: the id is an unguessable token and the record names no player
        response=(200, "Erasure"),
        cache=NO_STORE,  # a status polled while an erasure runs: always fresh
        summary="The status of an erasure",
        description="Its id, status and times only: never the player.",
    ),
)
