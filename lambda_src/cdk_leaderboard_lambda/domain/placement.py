"""Placement: which standings a submission takes a place in, decided before its write plan (score_writes.plan),
which writes one entry on each standing returned.

Today every board keeps one standing per period, its own (no partition), and a player's entry sits in the shard
that holds it: own_standings. A feature that places a score in more standings too (a segment such as a country, a
league group, a team) is another Placement: one made with the stores it reads (a player's league group, say), which
it may read before the plan is made, returning the board's own standings and its partitions'.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..shared.item_keys import Standing
from .boards import BoardConfig
from .periods import Period

Placed = list[tuple[Period, Standing]]  # each standing with the period it is of, in the order they are written

# (config, the periods written, player id) -> the standings of those periods a score of the player takes a place in.
Placement = Callable[[BoardConfig, Sequence[Period], str], Placed]


def standing_of(config: BoardConfig, period_id: str, player_id: str) -> Standing:
    """The board's own standing on a period, in the player's shard."""
    return Standing.of_player(config.board_id, config.generation, period_id, player_id, config.shards)


def own_standings(config: BoardConfig, periods: Sequence[Period], player_id: str) -> Placed:
    """The default placement: the board's own standing on each period, nothing else."""
    return [(p, standing_of(config, p.period_id, player_id)) for p in periods]
