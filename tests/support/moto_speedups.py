"""Where moto spends the unit suite's CPU for nothing, cut in one place (loaded by tests/unit/conftest.py).

moto 5.2's TransactWriteItems backs up every table a transaction names with `copy.deepcopy(table)` before it starts, to
put the backup in the table's place if the transaction is cancelled. The copy includes the table's stream shard, which
keeps every stream record written since the table was made: a test's tables grow a record per write, so each transaction
copied all of them again (a cProfile of two tests of tests/unit/test_players.py: 12 of their 23 s in `copy.deepcopy`,
~60,000 objects copied per transaction). A stream record is never changed once written (moto builds its dict in
`StreamRecord.__init__` and only reads it after), so the backup can share the records with the table and deep-copy the
rest as before: the items, the indexes, the shard object and its list (a cancelled transaction still gets back exactly
the items and stream records it had). Moreover moto makes that backup once per item of the transaction, not once per
table: a rank counters' split of 100 items copied its table 100 times, all before the first write, so all the same. A
transaction now copies each table once (`_backups_of_this_transaction`). Second, moto's response serializer remembers
which attribute names a dict's member may have (see `_possible_keys` below). Third, a Query on an index or a Scan sorts
every item of the table by its keys (`Table.all_items`), comparing `DynamoType`s whose `cast_value` is recomputed
through five type tests at every comparison: in tests/unit/test_rank_modes.py's oracle, whose examples share one table,
20 of 54 s of CPU went to `cast_value`. The sort now computes each item's key once (the same values, so the same order),
and `cast_value` answers a string, binary or boolean at once (what the type tests end in for those). Nothing else of
moto changes.

`install()` checks that moto still has the shape this relies on and fails loudly if not (a moto upgrade then has to look
at this file again); tests/unit/test_moto_speedups.py checks that a cancelled transaction still leaves the table and its
stream as they were, that a backup still copies the items and is made once per table and transaction, that the
remembered names are moto's, and that the cast values and the item order are moto's.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

from moto.core.serialize import DEFAULT_ALIAS_PROVIDERS, AttributePickerContext, XFormedAttributePicker
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DDBType, DynamoType
from moto.dynamodb.models.table import Item, StreamRecord, StreamShard, Table

# The backups made by the TransactWriteItems call running now, by id of the table copied (None outside one): moto
# copies every table before its first write, so a second copy of a table in one call is the first one again
_backups_of_this_transaction: dict[int, Table] | None = None


def _table_deepcopy(self: Table, memo: dict[int, Any]) -> Table:
    if _backups_of_this_transaction is not None and id(self) in _backups_of_this_transaction:
        return _backups_of_this_transaction[id(self)]
    shard = getattr(self, "stream_shard", None)
    if isinstance(shard, StreamShard):
        for record in shard.items:  # shared, not copied: immutable once written
            memo[id(record)] = record
    # What copy.deepcopy does for a plain object (copyreg.__newobj__, then its __dict__ copied), moto's
    # BaseModel.__new__ included (it tracks the instance)
    clone = type(self).__new__(type(self))
    memo[id(self)] = clone
    clone.__dict__.update(copy.deepcopy(self.__dict__, memo))
    if _backups_of_this_transaction is not None:
        _backups_of_this_transaction[id(self)] = clone
    return clone


def _backing_up_each_table_once(transact_write_items: Callable[..., None]) -> Callable[..., None]:
    def each_table_once(self: Any, transact_items: list[dict[str, Any]]) -> None:
        global _backups_of_this_transaction
        _backups_of_this_transaction = {}
        try:
            transact_write_items(self, transact_items)
        finally:
            _backups_of_this_transaction = None

    return each_table_once


def install() -> None:
    """Make moto's per-transaction table backup one copy per table that shares the (immutable) stream records, its
    serializer remember which attribute names a dict's member may have, and its item sort and cast values take the
    short way. Idempotent."""
    if getattr(Table, "__deepcopy__", None) is _table_deepcopy:
        return
    if hasattr(Table, "__deepcopy__") or hasattr(StreamRecord, "__deepcopy__"):
        raise RuntimeError("moto's Table or StreamRecord now copies itself: review tests/support/moto_speedups.py")
    if "record" not in StreamRecord.__init__.__code__.co_names or "items" not in StreamShard.__init__.__code__.co_names:
        raise RuntimeError("moto's stream shard changed shape: review tests/support/moto_speedups.py")
    backup_loop = ORIGINAL_TRANSACT_WRITE_ITEMS.__code__
    if backup_loop.co_names.count("deepcopy") != 1 or "original_table_state" not in backup_loop.co_varnames:
        raise RuntimeError("moto's TransactWriteItems backs up otherwise: review tests/support/moto_speedups.py")
    if (
        "sorted" not in ORIGINAL_ALL_ITEMS.__code__.co_names
        or "range_key_attr" not in ORIGINAL_ALL_ITEMS.__code__.co_names
    ):
        raise RuntimeError("moto's Table.all_items changed: review tests/support/moto_speedups.py")
    if (
        not isinstance(ORIGINAL_CAST_VALUE, property)
        or hasattr(DynamoType, "__bool__")
        or hasattr(DynamoType, "__len__")
    ):
        raise RuntimeError("moto's DynamoType changed shape: review tests/support/moto_speedups.py")
    Table.__deepcopy__ = _table_deepcopy  # type: ignore[attr-defined]
    DynamoDBBackend.transact_write_items = _backing_up_each_table_once(ORIGINAL_TRANSACT_WRITE_ITEMS)  # type: ignore[method-assign]
    XFormedAttributePicker.get_possible_keys = _cached_possible_keys(ORIGINAL_POSSIBLE_KEYS)  # type: ignore[method-assign]
    Table.all_items = _all_items_keyed_once  # type: ignore[method-assign]
    DynamoType.cast_value = property(_cast_value)  # type: ignore[method-assign,assignment]


ORIGINAL_TRANSACT_WRITE_ITEMS = DynamoDBBackend.transact_write_items
ORIGINAL_ALL_ITEMS = Table.all_items
ORIGINAL_CAST_VALUE = DynamoType.__dict__["cast_value"]
_AS_IS = frozenset({DDBType.STRING, DDBType.BINARY, DDBType.BOOLEAN})  # cast_value's last branch: the value itself


def _cast_value(self: DynamoType) -> Any:
    if self.type in _AS_IS:
        return self.value
    if self.type == DDBType.NUMBER:
        return Decimal(self.value)
    return ORIGINAL_CAST_VALUE.fget(self)


def _item_key(item: Item) -> tuple[Any, ...]:
    # moto's key, (hash, range) or hash alone, as the values DynamoType compares by (one type per key attribute)
    hash_value = item.hash_key.cast_value
    return (hash_value, item.range_key.cast_value) if item.range_key else (hash_value,)


def _all_items_keyed_once(self: Table) -> list[Item]:
    items: list[Item] = []
    for hash_set in self.items.values():
        if self.range_key_attr:
            items.extend(hash_set.values())
        else:
            items.append(hash_set)  # type: ignore[arg-type]
    return sorted(items, key=_item_key)


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
