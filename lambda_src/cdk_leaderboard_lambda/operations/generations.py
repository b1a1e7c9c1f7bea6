"""One generation of a board (item_keys.py, "board generations"), current or deleted: the `generation` parameter of a
board's period list, period and log routes, whose answers keep their meaning when the board is deleted or created
again under its id (docs/PROVING.md, "Deleted boards and generations")."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ..domain.boards import BoardConfig
from ..shared.clock import iso
from ..shared.errors import BadRequest, NotFound
from ..shared.limits import CLOSED, GENERATION_PATTERN
from . import board_catalog, closing

if TYPE_CHECKING:
    from ..domain.ports.runtime import Runtime

_GENERATION = re.compile(GENERATION_PATTERN)


def generation_of(runtime: Runtime, board_id: str, generation: str) -> tuple[BoardConfig, dict | None]:
    """One generation of a board: the current one (no archive record), or a deleted one within its archive
    retention (its record's view). 404 for any other; 400 for what is no generation id."""
    if not isinstance(generation, str) or not _GENERATION.fullmatch(generation):
        raise BadRequest("generation must be 0 or 8 characters of a-z and 2-7 (GET /leaderboards/{board} names it)")
    try:
        current = board_catalog.get_board(runtime, board_id)
    except NotFound:
        current = None
    if current is not None and current.generation == generation:
        return current, None
    stamp = iso(runtime.clock.now())
    for record in board_catalog.archived(runtime, board_id):
        if record["generation"] == generation and record["keep_until"] > stamp:
            return BoardConfig.from_item(record["config"]), board_catalog.archive_view(record)
    raise NotFound(f"no generation {generation} of leaderboard {board_id} (or its archive retention has ended)")


def board(runtime: Runtime, board_id: str, generation: str | None) -> BoardConfig:
    """The board's current config (generation None), or the config of the generation asked for."""
    return (
        board_catalog.get_board(runtime, board_id)
        if generation is None
        else generation_of(runtime, board_id, generation)[0]
    )


def listing(runtime: Runtime, board_id: str, generation: str | None) -> dict[str, Any]:
    """GET .../periods: a deleted generation lists its closed periods, with where and until when it is kept."""
    config, archived = (
        (board_catalog.get_board(runtime, board_id), None)
        if generation is None
        else generation_of(runtime, board_id, generation)
    )
    found = closing.listing(runtime, config)
    if archived is None:
        return found
    closed = [p for p in found["periods"] if p["status"] == CLOSED]
    return {**found, "periods": closed, "generation": config.generation, "archived": archived}


def period(runtime: Runtime, board_id: str, generation: str | None, period_ref: str) -> dict[str, Any]:
    """GET .../periods/{period_id}: a deleted generation answers its closed periods' summaries only (a period it
    did not close before its deletion has its log only)."""
    config, archived = (
        (board_catalog.get_board(runtime, board_id), None)
        if generation is None
        else generation_of(runtime, board_id, generation)
    )
    found = closing.detail(runtime, config, period_ref)
    if archived is not None and found.get("status") != CLOSED:
        raise NotFound(
            f"period {found['period_id']} of generation {config.generation} was not closed before its board was "
            f"deleted: no summary; its log is GET /leaderboards/{board_id}/periods/{found['period_id']}/log"
            f"?generation={config.generation}"
        )
    return found
