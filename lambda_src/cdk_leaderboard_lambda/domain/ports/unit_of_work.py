"""One unit of work: the writes of several stores committed together, all or nothing.

Each store taking part offers its writes, with their conditions, as a value of its own (`entries.write_ops(...)`,
`pending.approval_ops(...)`); the unit of work of the same implementation commits them (data/unit_of_work.py: one
transaction on DynamoDB, one lock shared by the stores in memory). The domain never looks inside them.
"""

from __future__ import annotations

from typing import Protocol

# What one commit may hold at most: a DynamoDB transaction takes 100 writes.
MAX_ACTIONS = 100


class StoreWrites(Protocol):
    """One store's writes for a unit of work, each with its condition (opaque: only a unit of work reads them)."""

    def __len__(self) -> int:
        """How many item writes (actions) they are."""
        ...


class UnitOfWork(Protocol):
    """Commits the writes of several stores atomically."""

    def commit(self, *writes: StoreWrites) -> None:
        """Every write, or (raising) none. A failed condition raises the error its store gives it (EntryStore's
        Changed, an approval's Conflict), that of the first failing write in the order given; TransactionBusy when
        another write in progress on one of the items kept it from committing (nothing written: the same commit may
        be sent again); ValueError for more than MAX_ACTIONS writes (they could not commit at once). A single
        write is committed as that write alone (a transaction bills twice the units)."""
        ...
