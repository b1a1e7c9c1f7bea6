"""Who may call a route."""

from __future__ import annotations

# Who may call a route. Keys are API Gateway API keys, each in its own usage plan: game servers get the
# game key (score submissions only); operators get the admin key (boards, snapshots, the simulator).
PUBLIC = "public"
GAME = "game"
ADMIN = "admin"
# Bearer tokens (tokens.py), for games that submit from players' devices. API Gateway requires no API key on these
# routes (a device holds no key) but does require the Authorization header (its request validator: a request
# without one is its 400 and invokes nothing); the function verifies the token itself, before any work.
PLAYER = "player"  # a player token (Authorization: Bearer), which the game key mints
RUN = "run"  # a run token (Authorization: Bearer), which a player token's run start mints: one score
KEYED = (GAME, ADMIN)  # API Gateway itself requires the key (usage plan) on these
BEARER = (PLAYER, RUN)  # API Gateway itself requires the Authorization header on these
