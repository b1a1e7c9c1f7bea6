"""Who may call a route."""

from __future__ import annotations

# Who may call a route. Keys are API Gateway API keys, each in its own usage plan: game servers get the
# game key (score submissions only); operators get the admin key (boards, snapshots, the simulator).
PUBLIC = "public"
GAME = "game"
ADMIN = "admin"
# Bearer tokens (tokens.py), for games that submit from players' devices. API Gateway requires no API key on these
# routes (a device holds no key): the function checks every request itself, before any work.
PLAYER = "player"  # a player token (Authorization: Bearer), which the game key mints
GAME_OR_RUN = "game-or-run"  # the game key (x-api-key, checked by value), or on a client board a run token
KEYED = (GAME, ADMIN)  # API Gateway itself requires the key (usage plan) on these
