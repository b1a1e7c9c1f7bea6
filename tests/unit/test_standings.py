"""Standings as one typed key (item_keys.Standing) and the placement that decides which a submission writes.

The keys a Standing makes are the keys stored data already holds: each is checked against the functions that made
them before the type existed (copied here as they were, so a change to the module cannot move both sides)."""

from __future__ import annotations

import hashlib
from dataclasses import FrozenInstanceError
from datetime import UTC, datetime

import pytest

from cdk_leaderboard_lambda.domain import periods, placement, score_writes
from cdk_leaderboard_lambda.domain.boards import BoardConfig
from cdk_leaderboard_lambda.shared import item_keys
from cdk_leaderboard_lambda.shared.item_keys import Standing


# --- the encodings as they were (shared/item_keys.py before Standing), the oracle ---------------------------------
def old_leaderboard_id(board_id: str, period_id: str) -> str:
    return period_id if board_id == "global" else f"{board_id}#{period_id}"


def old_evidence_id(board_id: str, generation: str) -> str:
    return board_id if generation == "0" else f"{board_id}.{generation}"


def old_shard_of(player_id: str, shards: int) -> int:
    if shards == 1:
        return 0
    return int(hashlib.sha256(player_id.encode()).hexdigest()[:8], 16) % shards


def old_shard_partition(board_period: str, shard: int, shards: int) -> str:
    return board_period if shards == 1 else f"{board_period}!{shard}"


def old_counter_partition(partition: str, level: int) -> str:
    return ("#buckets#", "#segments#")[level] + partition


BOARDS = ["global", "race", "cup-2", "speed_run", "é-board"]
GENERATIONS = ["0", "k3f9a2mq", "a"]
PERIODS = ["all-time", "daily-2026-11-30", "weekly-2026-W48", "monthly-2026-11", "tournament"]
SHARDS = [1, 2, 3, 8, 16]
PLAYERS = ["p-ada", "bob", "", "x" * 64, "ünï", "42"]


@pytest.mark.parametrize("board_id", BOARDS)
@pytest.mark.parametrize("generation", GENERATIONS)
def test_a_standing_encodes_exactly_the_strings_the_old_functions_did(board_id, generation):
    for period_id in PERIODS:
        for shards in SHARDS:
            for player in PLAYERS:
                standing = Standing.of_player(board_id, generation, period_id, player, shards)
                evidence = old_evidence_id(board_id, generation)
                board_period = old_leaderboard_id(evidence, period_id)
                partition = old_shard_partition(board_period, old_shard_of(player, shards), shards)
                assert standing.evidence_id == evidence
                assert standing.board_period == board_period
                assert standing.index_partition == partition
                assert [standing.counter_partition(level) for level in (item_keys.BUCKETS, item_keys.BANDS)] == [
                    old_counter_partition(partition, 0),
                    old_counter_partition(partition, 1),
                ]
            every = Standing(board_id, period_id, generation, shards=shards).shard_standings()
            board_period = old_leaderboard_id(old_evidence_id(board_id, generation), period_id)
            assert [s.index_partition for s in every] == [
                old_shard_partition(board_period, k, shards) for k in range(shards)
            ]


def test_the_keys_stored_data_holds():
    """Literal keys of existing deployments (item_keys.py's docstring), whatever the oracle above says."""
    assert Standing("global", "all-time").index_partition == "all-time"
    assert Standing("global", "daily-2026-11-30").index_partition == "daily-2026-11-30"
    assert Standing("race", "weekly-2026-W48").index_partition == "race#weekly-2026-W48"
    assert Standing("race", "weekly-2026-W48", shard=3, shards=4).index_partition == "race#weekly-2026-W48!3"
    assert Standing("race", "weekly-2026-W48", "k3f9a2mq").index_partition == "race.k3f9a2mq#weekly-2026-W48"
    assert (
        Standing("race", "all-time", shard=0, shards=2).counter_partition(item_keys.BUCKETS)
        == "#buckets#race#all-time!0"
    )
    assert Standing("race", "all-time").counter_partition(item_keys.BANDS) == "#segments#race#all-time"
    assert Standing("b", "p").generation == item_keys.LEGACY_GENERATION


def test_the_standing_of_a_board_s_config_is_its_partitions(monkeypatch):
    """The placement's keys are those BoardConfig gives the rest of the package (its reads, rank and closing)."""
    for config in [
        BoardConfig("global", "Global"),
        BoardConfig("race", "Race", shards=8),
        BoardConfig("cup", "Cup", shards=3, generation="k3f9a2mq"),
    ]:
        for period_id in PERIODS:
            for player in PLAYERS:
                standing = placement.standing_of(config, period_id, player)
                assert standing.index_partition == config.player_partition(period_id, player)
                assert standing.board_period == config.leaderboard_id(period_id)
            assert [s.index_partition for s in standing.shard_standings()] == config.partitions(period_id)


def test_a_standing_is_a_frozen_value_and_a_partition_has_no_key_yet():
    standing = Standing("race", "all-time")
    with pytest.raises(FrozenInstanceError):
        standing.period_id = "daily"  # type: ignore[misc]
    assert standing == Standing("race", "all-time") and len({standing, Standing("race", "all-time")}) == 1
    segment = Standing("race", "all-time", partition="DE")
    with pytest.raises(ValueError, match="partition 'DE'"):
        segment.index_partition  # noqa: B018 - no feature writes a segment yet: no key is made up for one


def test_the_default_placement_is_the_board_s_own_standing_on_each_period():
    config = BoardConfig("race", "Race", shards=4)
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    current = config.current_periods(now)
    placed = placement.own_standings(config, current, "p-ada")
    assert [p for p, _ in placed] == current
    assert all(s.partition is None and s.board_id == "race" for _, s in placed)
    assert [s.index_partition for _, s in placed] == [config.player_partition(p.period_id, "p-ada") for p in current]


def test_the_write_plan_writes_one_entry_on_each_standing_placed():
    """A placement that adds a standing (as a league or a segment would) gets an entry written there too: the plan
    is built from the keys placement returns, not from the board's periods."""
    config = BoardConfig("race", "Race", periods=(periods.ALL_TIME,), operator="latest")
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    (period,) = config.current_periods(now)
    other = Standing("race", "all-time", "g2")
    placed = [*placement.own_standings(config, [period], "ada"), (period, other)]
    writes, rows = score_writes.plan(
        config, placed, score_writes.Submission("ada", "Ada", 7), {}, 1, retention_days=1, operation_expires=2
    )
    assert [w.entry.leaderboard_id for w in writes] == ["race#all-time", "race.g2#all-time"]
    assert [r.leaderboard_id for r in rows] == ["race#all-time", "race.g2#all-time"] and all(r.changed for r in rows)
