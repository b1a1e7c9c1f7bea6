"""The ports: every store the domain and the operations reach, in the domain's words, with the values they exchange
and the outcomes they answer. Each has a DynamoDB (the secrets: Secrets Manager) and an in-memory implementation in
data/, held to one behaviour by tests/contract; no port names a DynamoDB item, action or transaction.

One module per concern, all listed here (import them from `domain.ports`). The Runtime protocol, what a function's
code may use of the composition root's runtime, is `domain.ports.runtime` (not imported here: it names domain
modules that import these ports).
"""

from .boards import (
    BUSY,
    CREATED,
    DELETED,
    EXISTS,
    FULL,
    MISSING,
    BoardStore,
    ClosingStore,
    LiveState,
    SnapshotStore,
    Taken,
)
from .changes import ChangeFeed
from .entries import (
    CounterStore,
    EntryStore,
    ErasureKey,
    ErasureStore,
    KeptBest,
    Pairs,
    Purged,
    SubmissionRead,
)
from .evidence import ChainStore, Head, SecretStore, Version
from .submissions import (
    Approval,
    IdempotencyStore,
    ModerationStore,
    PendingStore,
    RateLimitStore,
    RecordKey,
    RunStore,
)
from .unit_of_work import MAX_ACTIONS, StoreWrites, UnitOfWork

__all__ = [
    "BUSY",
    "CREATED",
    "DELETED",
    "EXISTS",
    "FULL",
    "MAX_ACTIONS",
    "MISSING",
    "Approval",
    "BoardStore",
    "ChainStore",
    "ChangeFeed",
    "ClosingStore",
    "CounterStore",
    "EntryStore",
    "ErasureKey",
    "ErasureStore",
    "Head",
    "IdempotencyStore",
    "KeptBest",
    "LiveState",
    "ModerationStore",
    "Pairs",
    "PendingStore",
    "Purged",
    "RateLimitStore",
    "RecordKey",
    "RunStore",
    "SecretStore",
    "SnapshotStore",
    "StoreWrites",
    "SubmissionRead",
    "Taken",
    "UnitOfWork",
    "Version",
]
