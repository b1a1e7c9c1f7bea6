"""A player's token over HTTP (the local stack's `api`), and the header every bearer credential travels in.
In process, the unit tests mint theirs with tests/support/lambda_api.player_token."""

from __future__ import annotations

from typing import Any


def bearer(token: str) -> dict[str, str]:
    """The header of a player or run token (RFC 6750)."""
    return {"Authorization": f"Bearer {token}"}


def player_token(api: Any, player: str, **body: Any) -> str:
    """A player token of `player`, minted with the game key (POST /players/{player_id}/tokens)."""
    reply = api.post(f"/players/{player}/tokens", body)
    assert reply.status_code == 201, reply.text
    return str(reply.json()["token"])
