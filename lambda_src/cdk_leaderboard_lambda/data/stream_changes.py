"""The scores table's stream records, both ways: the one module that knows their format.

Lambda hands a stream consumer DynamoDB Streams records (NEW_AND_OLD_IMAGES, the scores table's view type):
`eventID`, `eventName` (INSERT, MODIFY, REMOVE), `userIdentity` (the TTL's deletions), and under `dynamodb` the
item's `Keys`, its `NewImage` and `OldImage` and `ApproximateCreationDateTime` (epoch seconds). `entry_changes`
decodes the records about entries into domain/changes.EntryChange, which every consumer reads; `record` writes one
(the in-memory stream, data/memory_stream.py), so that the in-memory stream's records go through this same decoder.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ..domain.changes import INSERT, MODIFY, REMOVE, ChangeKind, EntryChange, Standing
from ..shared import item_keys, schema
from ..shared.attribute_values import from_item, to_item

_PK, _SK = schema.SCORES_PARTITION_KEY, schema.SCORES_SORT_KEY
_KINDS: Mapping[str, ChangeKind] = MappingProxyType({"INSERT": INSERT, "MODIFY": MODIFY, "REMOVE": REMOVE})
_EVENT_NAMES: Mapping[ChangeKind, str] = MappingProxyType({kind: name for name, kind in _KINDS.items()})
_TTL_PRINCIPAL = "dynamodb.amazonaws.com"  # the userIdentity of the table's own (TTL) deletions


class StreamChanges:
    """The change feed of the scores table's stream (domain/changes.ChangeFeed): the runtime's decoder."""

    def entry_changes(self, records: Iterable[Mapping[str, Any]]) -> list[EntryChange]:
        return entry_changes(records)


def entry_changes(records: Iterable[Mapping[str, Any]]) -> list[EntryChange]:
    """The entries' changes among these records, in their order (counters, boards and other items left out)."""
    return [change for record in records if (change := entry_change(record)) is not None]


def entry_change(record: Mapping[str, Any]) -> EntryChange | None:
    """The change one record holds, None if it is not about an entry."""
    change = record.get("dynamodb") or {}
    keys = change.get("Keys") or {}
    player = (keys.get(_PK) or {}).get("S")
    partition = (keys.get(_SK) or {}).get("S")
    if not player or not partition or not item_keys.is_entry(player):
        return None
    old, new = _standing(change.get("OldImage")), _standing(change.get("NewImage"))
    kind = _KINDS.get(record.get("eventName") or "") or (INSERT if old is None else REMOVE if new is None else MODIFY)
    evidence, period_id = item_keys.evidence_and_period(partition)
    board_id, generation = item_keys.split_evidence_id(evidence)
    created = change.get("ApproximateCreationDateTime")
    return EntryChange(
        kind=kind,
        player_id=player,
        index_partition=partition,
        board_id=board_id,
        generation=generation,
        period_id=period_id,
        shard=item_keys.shard_in(partition),
        old=old,
        new=new,
        event_id=record.get("eventID") or "",
        expired=(record.get("userIdentity") or {}).get("principalId") == _TTL_PRINCIPAL,
        written_at=float(created) if isinstance(created, (int, float)) else None,
    )


def _standing(image: Mapping[str, Any] | None) -> Standing | None:
    if not image:
        return None
    values = from_item(dict(image))
    return Standing(
        score=_int(values.get("score")),
        reached_at_ms=_int(values.get("reached_at")),
        rank_key=values.get(schema.RANK_INDEX_SORT_KEY),
        hidden=schema.HIDDEN_RANK_KEY in values,
        erasing=schema.ERASING_MARK in values,
        commitment=values.get(schema.FENCE_COMMITMENT),
        operations=frozenset(values.get("ops") or ()),
        expires_at=_int(values.get(schema.TTL_ATTRIBUTE)),
    )


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def record(
    key: tuple[str, str],
    old: dict[str, Any] | None,
    new: dict[str, Any] | None,
    event_id: str,
    sequence_number: str,
    created: float,
    source_arn: str,
) -> dict[str, Any]:
    """The record a table's stream writes for the change of the item at `key` from `old` to `new` (None: no item,
    items as stored), in the shape Lambda hands its consumers."""
    change: dict[str, Any] = {
        "Keys": to_item({_PK: key[0], _SK: key[1]}),
        "ApproximateCreationDateTime": created,
        "StreamViewType": "NEW_AND_OLD_IMAGES",
        "SequenceNumber": sequence_number,
    }
    if new is not None:
        change["NewImage"] = to_item(new)
    if old is not None:
        change["OldImage"] = to_item(old)
    kind = INSERT if old is None else REMOVE if new is None else MODIFY
    return {
        "eventID": event_id,
        "eventName": _EVENT_NAMES[kind],
        "eventSource": "aws:dynamodb",
        "dynamodb": change,
        "eventSourceARN": source_arn,
    }
