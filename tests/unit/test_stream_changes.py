"""The change feed's decoder (data/stream_changes.py) on records no write of the contract suite makes: a sharded
board of a later generation, the table's own TTL deletions, other items. tests/contract/test_entry_stream.py holds
the decoded changes of DynamoDB Local's stream and the in-memory one to each other."""

from __future__ import annotations

from cdk_leaderboard_lambda.data.stream_changes import entry_change, entry_changes, record
from cdk_leaderboard_lambda.domain.changes import INSERT, MODIFY, REMOVE, EntryChange, Standing
from cdk_leaderboard_lambda.shared import item_keys, schema

SHARDED = "cup.k3f9a2mq#weekly-2026-W48!3"  # shard 3 of a board of generation k3f9a2mq
ARN = "arn:aws:dynamodb:memory:000000000000:table/scores/stream/memory"


def stored(score: int, **more) -> dict:
    return {"score": score, "reached_at": 1000 + score, "rank_key": f"{score:016d}#x", "expires_at": 1_900_000, **more}


def test_a_sharded_entry_of_a_later_generation_decodes_to_its_board_generation_period_and_shard():
    written = record(("ada", SHARDED), stored(4), stored(9, ops={"approve-1": 1}), "e1", "7", 1_800_000.5, ARN)
    assert entry_change(written) == EntryChange(
        kind=MODIFY,
        player_id="ada",
        index_partition=SHARDED,
        board_id="cup",
        generation="k3f9a2mq",
        period_id="weekly-2026-W48",
        shard=3,
        old=Standing(score=4, reached_at_ms=1004, rank_key=f"{4:016d}#x", expires_at=1_900_000),
        new=Standing(9, 1009, f"{9:016d}#x", operations=frozenset({"approve-1"}), expires_at=1_900_000),
        event_id="e1",
    )
    assert entry_change(written).written_at == 1_800_000.5  # type: ignore[union-attr]
    assert item_keys.shard_in("all-time") == 0 and item_keys.shard_in("race#all-time!0") == 0


def test_the_kind_is_the_record_s_and_a_ttl_deletion_is_marked_expired():
    removed = record(("bo", "race#daily-2026-12-01"), stored(3), None, "e2", "8", 1.0, ARN)
    by_ttl = {**removed, "userIdentity": {"type": "Service", "principalId": "dynamodb.amazonaws.com"}}
    assert [(c.kind, c.expired, c.new) for c in entry_changes([removed, by_ttl])] == [
        (REMOVE, False, None),
        (REMOVE, True, None),
    ]
    inserted = record(("bo", "race#daily-2026-12-01"), None, stored(3), "e3", "9", 1.0, ARN)
    assert inserted["eventName"] == "INSERT" and entry_change(inserted).kind == INSERT  # type: ignore[union-attr]


def test_a_fence_is_no_entry_and_other_items_are_not_in_the_feed():
    fence = {schema.ERASING_MARK: 12, schema.FENCE_COMMITMENT: "c0ffee"}
    fenced = entry_change(record(("cy", "all-time"), stored(5), fence, "e4", "10", 1.0, ARN))
    assert fenced is not None and fenced.new == Standing(erasing=True, commitment="c0ffee")
    assert not fenced.new.is_entry and fenced.old is not None and fenced.old.is_entry
    counter = record(("#buckets#all-time", "0"), None, {"count": 3}, "e5", "11", 1.0, ARN)
    board = record(item_keys.board_key("race"), None, {"name": "Race"}, "e6", "12", 1.0, ARN)
    assert entry_changes([counter, board, {"dynamodb": {}}, {}]) == []
