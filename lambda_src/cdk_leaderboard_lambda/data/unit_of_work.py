"""The unit of work (ports.UnitOfWork) on DynamoDB and in memory, and the writes a store offers to each.

On DynamoDB a commit is ONE TransactWriteItems of every store's actions (or, for a single action, that action's own
request: a transaction bills twice the write units); a cancellation is told back in the domain's words, from its
per-action reasons: the first failed condition raises its store's error, a TransactionConflict alone TransactionBusy.
In memory the stores taking part share one lock (composition.in_memory_stores) that the unit of work holds while it
checks every condition of every store and then, only if all hold, applies every write: a failed condition leaves
every store as it was. tests/contract/test_unit_of_work.py holds both to the same behaviour.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..domain.ports.unit_of_work import MAX_ACTIONS, StoreWrites
from ..shared.errors import TransactionBusy
from . import dynamo

Refusal = Callable[[], Exception]  # the domain's error for a write whose condition failed


@dataclass(frozen=True)
class DynamoAction:
    """One TransactWriteItems action ({"Update": {...}}, {"Put": ...}, {"Delete": ...}, {"ConditionCheck": ...})
    and the error its failed condition means."""

    action: dict[str, Any]
    refused: Refusal


@dataclass(frozen=True)
class DynamoWrites:
    """A store's writes for a DynamoDB unit of work; `what` names their items in a TransactionBusy."""

    actions: tuple[DynamoAction, ...]
    what: str

    def __len__(self) -> int:
        return len(self.actions)


_SINGLE = ("Update", "Put", "Delete")  # an action that has a request of its own: update_item, put_item, delete_item


def _limited(count: int) -> None:
    if count > MAX_ACTIONS:
        raise ValueError(f"{count} writes cannot commit at once (at most {MAX_ACTIONS})")


class DynamoUnitOfWork:
    """Commits on one DynamoDB client (the runtime's, which every store shares)."""

    def __init__(self, client: Any) -> None:
        self._client = client

    def commit(self, *writes: StoreWrites) -> None:
        ours = [w for w in writes if isinstance(w, DynamoWrites)]
        if len(ours) < len(writes):
            raise TypeError("only DynamoDB stores' writes commit in a DynamoDB transaction")
        actions = [a for w in ours for a in w.actions]
        _limited(len(actions))
        if not actions:
            return
        (kind, body), *_ = actions[0].action.items()
        if len(actions) == 1 and kind in _SINGLE:
            try:
                getattr(self._client, f"{kind.lower()}_item")(**body)
            except self._client.exceptions.ConditionalCheckFailedException as err:
                raise actions[0].refused() from err
            return
        try:
            dynamo.transact([a.action for a in actions], on=self._client)
        except dynamo.Cancelled as err:
            failed = [a for a, reason in zip(actions, err.reasons, strict=False) if reason == "ConditionalCheckFailed"]
            if failed:
                raise failed[0].refused() from err
            if err.conflict:  # another transaction on one of the items (DynamoDB Local never shows it)
                raise TransactionBusy(" or ".join(dict.fromkeys(w.what for w in ours))) from err
            raise


@dataclass(frozen=True)
class MemoryWrites:
    """A store's writes for an in-memory unit of work: its conditions (each None while it holds, else the error
    its failure means) and the change that applies them, both called under `lock`, the one the store shares with
    the unit of work."""

    lock: Any
    checks: tuple[Callable[[], Exception | None], ...]
    apply: Callable[[], None]
    count: int = field(default=0)

    def __len__(self) -> int:
        return self.count


class MemoryUnitOfWork:
    """Commits in memory under the lock the stores taking part share."""

    def __init__(self, lock: Any | None = None) -> None:
        self.lock = lock if lock is not None else threading.RLock()

    def commit(self, *writes: StoreWrites) -> None:
        ours = [w for w in writes if isinstance(w, MemoryWrites) and w.lock is self.lock]
        if len(ours) < len(writes):
            raise TypeError("a store takes part in an in-memory unit of work only under the lock they share")
        _limited(sum(len(w) for w in ours))
        with self.lock:
            for w in ours:
                for check in w.checks:
                    refusal = check()
                    if refusal is not None:
                        raise refusal  # nothing applied yet: every store as it was
            for w in ours:
                w.apply()
