"""Where moto spends the unit suite's CPU for nothing, cut in one place (loaded by tests/unit/conftest.py).

moto 5.2's TransactWriteItems backs up every table a transaction names with `copy.deepcopy(table)` before it starts,
to put the backup in the table's place if the transaction is cancelled. The copy includes the table's stream shard,
which keeps every stream record written since the table was made: a test's tables grow a record per write, so each
transaction copied all of them again (a cProfile of two tests of tests/unit/test_players.py: 12 of their 23 s in
`copy.deepcopy`, ~60,000 objects copied per transaction). A stream record is never changed once written (moto builds
its dict in `StreamRecord.__init__` and only reads it after), so the backup can share the records with the table and
deep-copy the rest as before: the items, the indexes, the shard object and its list (a cancelled transaction still
gets back exactly the items and stream records it had). Second, moto's response serializer remembers which attribute
names a dict's member may have (see `_possible_keys` below). Nothing else of moto changes.

`install()` checks that moto still has the shape this relies on and fails loudly if not (a moto upgrade then has
to look at this file again); tests/unit/test_moto_speedups.py checks that a cancelled transaction still leaves the
table and its stream as they were, that a backup still copies the items, and that the remembered names are moto's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from moto.core.serialize import DEFAULT_ALIAS_PROVIDERS, AttributePickerContext, XFormedAttributePicker
from moto.dynamodb.models.table import StreamRecord, StreamShard, Table


def _table_deepcopy(self: Table, memo: dict[int, Any]) -> Table:
    shard = getattr(self, "stream_shard", None)
    if isinstance(shard, StreamShard):
        for record in shard.items:  # shared, not copied: immutable once written
            memo[id(record)] = record
    # What copy.deepcopy does for a plain object (copyreg.__newobj__, then its __dict__ copied), moto's
    # BaseModel.__new__ included (it tracks the instance)
    clone = type(self).__new__(type(self))
    memo[id(self)] = clone
    clone.__dict__.update(copy.deepcopy(self.__dict__, memo))
    return clone


def install() -> None:
    """Make moto's per-transaction table backup share the (immutable) stream records, and its serializer remember
    which attribute names a dict's member may have. Idempotent."""
    if getattr(Table, "__deepcopy__", None) is _table_deepcopy:
        return
    if hasattr(Table, "__deepcopy__") or hasattr(StreamRecord, "__deepcopy__"):
        raise RuntimeError("moto's Table or StreamRecord now copies itself: review tests/support/moto_speedups.py")
    if "record" not in StreamRecord.__init__.__code__.co_names or "items" not in StreamShard.__init__.__code__.co_names:
        raise RuntimeError("moto's stream shard changed shape: review tests/support/moto_speedups.py")
    Table.__deepcopy__ = _table_deepcopy  # type: ignore[attr-defined]
    XFormedAttributePicker.get_possible_keys = _cached_possible_keys(ORIGINAL_POSSIBLE_KEYS)  # type: ignore[method-assign]


# moto 5.2's response serializer asks, for every member of every structure it writes, which attribute names may hold
# it (six alias providers, each a new object, and botocore's xform_name): ~10 % of a unit test's CPU. For a dict (what
# moto's DynamoDB responses are made of) the answer depends on the member's name and shape only (no `Meta`, class
# name `dict`), so it is computed once per (name, shape). A slot keeps its shape alive, so its id is not reused.
_possible_keys: dict[tuple[str, int], tuple[Any, tuple[str, ...]]] = {}
ORIGINAL_POSSIBLE_KEYS = XFormedAttributePicker.get_possible_keys


def _cached_possible_keys(original: Callable[..., Iterator[str]]) -> Callable[..., Iterator[str]]:
    def get_possible_keys(self: XFormedAttributePicker, context: AttributePickerContext) -> Iterator[str]:
        if type(context.obj) is not dict or self.alias_providers is not DEFAULT_ALIAS_PROVIDERS:
            yield from original(self, context)
            return
        slot = (context.key, id(context.shape))
        found = _possible_keys.get(slot)
        if found is None or found[0] is not context.shape:
            found = _possible_keys[slot] = (context.shape, tuple(original(self, context)))
        yield from found[1]

    return get_possible_keys
