"""What a function's code may use of its runtime (composition.Runtime satisfies it; composition.as_port checks that
with mypy): the settings, the clock, the stores by their ports, and the caches and clients by the few calls the code
makes on them, so that nothing below the root needs to know data/ or the root's concrete classes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from ...shared.clock import Clock
from ...shared.metrics import MetricsSink
from ...shared.settings import Settings
from .. import api_key_classes, keyring, receipt_keys
from ..boards import BoardConfig
from ..digest_key import DigestKey
from . import (
    BoardStore,
    ChainStore,
    ChangeFeed,
    ClosingStore,
    CounterStore,
    EntryStore,
    ErasureStore,
    IdempotencyStore,
    LiveState,
    ModerationStore,
    PendingStore,
    RateLimitStore,
    RunStore,
    SecretStore,
    SnapshotStore,
    UnitOfWork,
)


class EventSink(Protocol):
    """Where closed periods' and held scores' events go (data/events.py: EventBridge, or a local file)."""

    def put(self, source: str, detail_type: str, detail: dict[str, Any]) -> None: ...


class LivePublisher(Protocol):
    """AppSync Events' HTTP publish (data/live_events.py)."""

    def publish(self, channel: str, events: list[dict[str, Any]]) -> None: ...


class ApiKey(Protocol):
    """The subscribe-only AppSync API key (data/live_key.py): moving its expiry."""

    def extend(self, expires: int) -> dict[str, int]: ...


class BoardCache(Protocol):
    """Stored boards' configs as this instance last read them (operations/board_catalog.py)."""

    def get(self, board_id: str) -> BoardConfig | None: ...

    def put(self, config: BoardConfig) -> None: ...

    def forget(self, board_id: str) -> None: ...


class LiveSwitch(Protocol):
    """The live kill switch as this instance last read it (operations/live_access.py)."""

    def off(self, read: Callable[[], bool]) -> bool: ...

    def forget(self) -> None: ...


class EdgeProof(Protocol):
    """The edge's proof value as this instance last read it (operations/live_access.py)."""

    def value(self, runtime: Runtime) -> str | None: ...


class Replayed(Protocol):
    """A board period's log replayed up to `seq` (operations/receipts.Standings)."""

    seq: int
    head_hash: str
    entries: dict[str, tuple[Any, str]]  # commitment -> (score, at)
    hidden: set[str]

    def total(self) -> int: ...

    def rank_of(self, player: str, order: str) -> int | None: ...


class Replays(Protocol):
    """Each board period's log replayed so far by this instance (operations/receipts.Replays)."""

    def caught_up(self, log: ChainStore, board_id: str, period_id: str, head_seq: int) -> Replayed: ...


class Runtime(Protocol):
    """composition.Runtime's attributes, each by a port or a type of shared/ and domain/ (read-only)."""

    @property
    def settings(self) -> Settings: ...
    @property
    def clock(self) -> Clock: ...
    @property
    def dynamodb(self) -> Any: ...  # the boto3 client the DynamoDB stores share (tools and tests reach it)
    @property
    def events(self) -> EventSink: ...
    @property
    def live(self) -> LivePublisher: ...
    @property
    def cursor_keys(self) -> keyring.CachedRing: ...
    @property
    def digest_key(self) -> DigestKey: ...
    @property
    def live_key(self) -> ApiKey: ...
    @property
    def token_keys(self) -> keyring.CachedRing: ...
    @property
    def api_keys(self) -> api_key_classes.KeyClasses: ...
    @property
    def receipt_keys(self) -> receipt_keys.CachedKeySet: ...
    @property
    def board_cache(self) -> BoardCache: ...
    @property
    def live_switch(self) -> LiveSwitch: ...
    @property
    def edge_proof(self) -> EdgeProof: ...
    @property
    def metrics(self) -> MetricsSink: ...
    @property
    def rate_limits(self) -> RateLimitStore: ...
    @property
    def snapshots(self) -> SnapshotStore: ...
    @property
    def closings(self) -> ClosingStore: ...
    @property
    def live_state(self) -> LiveState: ...
    @property
    def moderation(self) -> ModerationStore: ...
    @property
    def boards(self) -> BoardStore: ...
    @property
    def runs(self) -> RunStore: ...
    @property
    def pending(self) -> PendingStore: ...
    @property
    def chain(self) -> ChainStore: ...
    @property
    def idempotency(self) -> IdempotencyStore: ...
    @property
    def secrets(self) -> SecretStore: ...
    @property
    def counters(self) -> CounterStore: ...
    @property
    def erasures(self) -> ErasureStore: ...
    @property
    def entries(self) -> EntryStore: ...
    @property
    def unit_of_work(self) -> UnitOfWork: ...
    @property
    def replays(self) -> Replays: ...
    @property
    def changes(self) -> ChangeFeed: ...
