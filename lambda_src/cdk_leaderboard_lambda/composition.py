"""The composition root: everything a function's code depends on, built once per cold start and handed to it.

A handler module builds its runtime at import, from the function's environment (`Runtime.from_environment()`), and
hands it down to the code it calls as an argument (a route's `call.runtime`). Tests and the local stack build their own
(other settings, a settable clock, DynamoDB Local or moto) and get the handlers for it from the handler module's
`handler_for(runtime)`: no module holds a client, a cache or a setting of its own, so nothing needs resetting.

What a runtime holds that changes (the board cache, the key rings, the metrics not yet flushed, the clients'
connections) belongs to it and lives as long as it: one function instance, one test, one local stack.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any

from .data import dynamo
from .data.boards import DynamoBoards, MemoryBoards
from .data.chain import DynamoChain, MemoryChain
from .data.closings import DynamoClosings, MemoryClosings
from .data.counters import DynamoCounters, MemoryCounters
from .data.entries import DynamoEntries
from .data.erasures import DynamoErasures, MemoryErasures
from .data.events import EventSink
from .data.idempotency import DynamoRecords, MemoryRecords
from .data.live_events import LivePublisher
from .data.live_key import AppSyncApiKey
from .data.live_key import new_client as new_appsync_client
from .data.live_state import DynamoLiveState, MemoryLiveState
from .data.memory_entries import MemoryEntries
from .data.memory_stream import MemoryStream
from .data.moderation import DynamoModeration, MemoryModeration
from .data.pending import DynamoPending, MemoryPending
from .data.rate_limits import DynamoRateLimits, MemoryRateLimits
from .data.runs import DynamoRuns, MemoryRuns
from .data.secrets import MemorySecrets, SecretsManagerSecrets, new_client
from .data.snapshots import DynamoSnapshots, MemorySnapshots
from .data.stream_changes import StreamChanges
from .data.unit_of_work import DynamoUnitOfWork, MemoryUnitOfWork
from .domain import api_key_classes, cursors, digest_key, keyring, receipt_keys
from .domain.digest_key import DigestKey
from .domain.ports import (
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
from .domain.ports import runtime as port
from .operations.board_catalog import BoardCache
from .operations.live_access import EdgeProof, LiveSwitch
from .shared.clock import Clock, SystemClock
from .shared.metrics import MetricsSink
from .shared.settings import Settings

if TYPE_CHECKING:
    from .operations.receipts import Replays


_STORE = "store"  # a Runtime field's metadata key: the store's implementations and how it is built on DynamoDB


@dataclass(frozen=True)
class Wiring:
    """What a store's DynamoDB implementation is built from (Runtime.build): the runtime's settings, clock, client
    and digest key."""

    settings: Settings
    clock: Clock
    dynamodb: Any
    digest: DigestKey | None  # None only for the secrets, which the digest key is read from


def _scores(w: Wiring) -> tuple[Any, ...]:
    return w.dynamodb, w.settings.scores_table


def _keyed_scores(w: Wiring) -> tuple[Any, ...]:  # the items' keys hash player ids with the digest key
    return w.dynamodb, w.settings.scores_table, w.digest


def store(on_dynamodb: type, in_memory: type, args: Callable[[Wiring], tuple[Any, ...]] = _scores) -> Any:
    """A store of the runtime, registered where its field is declared: its DynamoDB implementation, built as
    `on_dynamodb(*args(wiring))` unless Runtime.build is given one, and its in-memory one (in_memory_stores);
    tests/contract holds both to one contract (test_every_store_has_a_contract.py checks there is one)."""
    return field(metadata={_STORE: (on_dynamodb, in_memory, args)})


@dataclass(frozen=True)
class Runtime:
    settings: Settings
    clock: Clock  # where the domain reads the time (SystemClock on AWS)
    dynamodb: Any  # the boto3 DynamoDB client every store uses
    events: EventSink  # closed periods' events: EventBridge, or a local file
    live: LivePublisher  # AppSync Events publishes (the live broadcaster)
    cursor_keys: keyring.CachedRing  # sign and verify page cursors (rotate: the previous one verifies a while)
    digest_key: DigestKey  # keys the hashes that name players' items (never rotates)
    live_key: AppSyncApiKey  # the subscribe-only key's expiry, renewed by the period closer's schedule
    token_keys: keyring.CachedRing  # signs and verifies player and run tokens
    api_keys: api_key_classes.KeyClasses  # the game and admin keys' values: which class a key given is of
    receipt_keys: receipt_keys.CachedKeySet  # signs receipts and closing summaries (Ed25519), lists the JWKS
    board_cache: BoardCache  # stored boards' configs, trusted BOARD_CACHE_SECONDS
    live_switch: LiveSwitch  # the live kill switch as last read, trusted LIVE_SWITCH_CACHE_SECONDS
    edge_proof: EdgeProof  # the edge's proof value as last read (live tokens: who the client is)
    metrics: MetricsSink  # this instance's metrics until the next flush
    replays: Replays  # each board period's log replayed so far, for receipts and closings (receipts.py)
    changes: ChangeFeed  # the stream's records decoded into entries' changes (the stream consumers read these)
    # The stores that are classes (the others are data/ modules on `dynamodb`), each registered here and nowhere
    # else (STORES lists them): a DynamoDB (the secrets: Secrets Manager) and an in-memory implementation that
    # tests/contract holds to the same behaviour. Its port is a property of domain/ports/runtime.py's Runtime.
    rate_limits: RateLimitStore = store(DynamoRateLimits, MemoryRateLimits, _keyed_scores)  # per player and minute
    snapshots: SnapshotStore = store(
        DynamoSnapshots, MemorySnapshots, lambda w: (w.dynamodb, w.settings.snapshots_table)
    )  # the append-only snapshot archive
    closings: ClosingStore = store(DynamoClosings, MemoryClosings)  # closed periods' summaries
    live_state: LiveState = store(DynamoLiveState, MemoryLiveState)  # what was last published live per board period
    moderation: ModerationStore = store(DynamoModeration, MemoryModeration)  # the hidden players' decisions
    boards: BoardStore = store(DynamoBoards, MemoryBoards)  # stored boards' configs and their count
    runs: RunStore = store(DynamoRuns, MemoryRuns, _keyed_scores)  # client runs, each used by one submission
    pending: PendingStore = store(DynamoPending, MemoryPending, _keyed_scores)  # quarantined submissions
    chain: ChainStore = store(DynamoChain, MemoryChain, _keyed_scores)  # board periods' logs, commitment keys
    idempotency: IdempotencyStore = store(DynamoRecords, MemoryRecords)  # Idempotency-Key's records (Powertools)
    counters: CounterStore = store(DynamoCounters, MemoryCounters)  # the rank counters (counter_upkeep.py)
    # Secrets Manager's values of the secrets the settings name (read by the key rings and the digest key above)
    secrets: SecretStore = store(
        SecretsManagerSecrets,
        MemorySecrets,
        lambda w: (functools.partial(new_client, w.settings.secrets_manager_endpoint),),
    )
    erasures: ErasureStore = store(DynamoErasures, MemoryErasures)  # erasures' items, audit records, schedule
    # The players' entries and the rank index over them (they read the moderation, boards and erasures stores)
    entries: EntryStore = store(
        DynamoEntries,
        MemoryEntries,
        lambda w: (w.dynamodb, w.settings.scores_table, w.settings.rank_index, w.clock, w.digest),
    )
    # Commits writes of several stores at once: one transaction on DynamoDB, one lock the stores share in memory
    unit_of_work: UnitOfWork = store(DynamoUnitOfWork, MemoryUnitOfWork, lambda w: (w.dynamodb,))

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None, clock: Clock | None = None) -> Runtime:
        """The runtime of a function: its environment's settings (default: the process's) and the real clock."""
        return cls.build(Settings.from_environment(env), clock)

    @classmethod
    def build(cls, settings: Settings, clock: Clock | None = None, dynamodb: Any = None, **stores: Any) -> Runtime:
        """A runtime for these settings: a new DynamoDB client unless one is given (tests: moto's; locally one for
        DynamoDB Local), Secrets Manager read only where the settings name a secret, on first use (its client made
        then); the stores (STORES, by name) on DynamoDB (the secrets on Secrets Manager) unless given
        (in_memory_stores() gives an in-memory one of each, and the unit of work under the lock they share). A store
        given that reads the runtime's clock and digest key (the in-memory entries) is bound to this runtime's."""
        stores = {name: given for name, given in stores.items() if given is not None}  # None: the default one
        unknown = set(stores) - {name for name, _, _ in STORES}
        if unknown:
            raise TypeError(f"no store of the runtime is named {', '.join(sorted(unknown))}")
        dynamodb = dynamo.new_client() if dynamodb is None else dynamodb
        clock = clock or SystemClock()
        # First the secrets: the digest key, which other stores' DynamoDB implementations take, is read from them.
        secrets: SecretStore = stores.get("secrets") or _built("secrets", Wiring(settings, clock, dynamodb, None))
        stores["secrets"] = secrets
        digest = DigestKey(lambda: digest_key.load(settings, secrets))
        wiring = Wiring(settings, clock, dynamodb, digest)
        built = {
            name: _bound(stores[name], wiring) if name in stores else _built(name, wiring) for name, _, _ in STORES
        }
        return cls(
            settings=settings,
            clock=clock,
            dynamodb=dynamodb,
            events=EventSink(settings),
            live=LivePublisher(settings.live_events_http_url),
            cursor_keys=cursors.keys(settings, secrets),
            digest_key=digest,
            live_key=AppSyncApiKey(
                settings.live_events_api_id,
                settings.live_events_api_key_id,
                functools.partial(new_appsync_client, settings.live_events_admin_endpoint),
            ),
            token_keys=keyring.CachedRing(lambda: _token_ring(settings, secrets)),
            api_keys=_key_classes(settings, secrets),
            receipt_keys=receipt_keys.CachedKeySet(lambda: receipt_keys.load(settings, secrets)),
            board_cache=BoardCache(),
            live_switch=LiveSwitch(),
            edge_proof=EdgeProof(),
            metrics=MetricsSink(settings.function_name),
            replays=_replays(),
            changes=StreamChanges(),
            **built,
        )

    def with_settings(self, **changes: Any) -> Runtime:
        """The same clients, clock and in-memory stores with some settings changed (see rebuilt)."""
        return self.rebuilt(replace(self.settings, **changes))

    def rebuilt(self, settings: Settings | None = None, clock: Clock | None = None) -> Runtime:
        """The same clients and in-memory stores with these settings and this clock (default: this runtime's), and
        fresh caches and DynamoDB stores, which depend on them (a table's name is a setting)."""
        kept = {
            name: getattr(self, name)
            for name, on_dynamodb, _ in STORES
            if not isinstance(getattr(self, name), on_dynamodb)
        }
        return Runtime.build(settings or self.settings, clock or self.clock, self.dynamodb, **kept)


def as_port(runtime: Runtime) -> port.Runtime:
    """The runtime as what the code below the root may use of it (domain.ports.runtime.Runtime): mypy checks here
    that this class satisfies that protocol, attribute by attribute (tests/unit/test_ports.py, that they list the
    same ones)."""
    return runtime


# Each store of a runtime: its field, its DynamoDB implementation, its in-memory one (tests/contract runs the same
# cases against both), as its field declares them (store()).
STORES: tuple[tuple[str, type, type], ...] = tuple(
    (f.name, *f.metadata[_STORE][:2]) for f in fields(Runtime) if _STORE in f.metadata
)


def _built(name: str, wiring: Wiring) -> Any:
    """The store's DynamoDB (or Secrets Manager) implementation, as its field declares it."""
    on_dynamodb, _, args = next(f.metadata[_STORE] for f in fields(Runtime) if f.name == name)
    return on_dynamodb(*args(wiring))


def _bound(given: Any, wiring: Wiring) -> Any:
    """A store given to Runtime.build, bound to the runtime's clock and digest key if it reads them (the in-memory
    entries, made by in_memory_stores() before any runtime exists)."""
    if isinstance(given, MemoryEntries) and wiring.digest is not None:
        return given.bound_to(wiring.clock, wiring.digest)
    return given


def in_memory_stores() -> dict[str, Any]:
    """A new in-memory implementation of every store, as keyword arguments of Runtime.build (domain tests that
    need no engine for these). The entries read the same runtime's moderation, boards and erasures, as DynamoDB
    reads their items in the submission's request, and write their changes to a stream of their own (`.stream`,
    what the stream consumers read). The stores that commit together (an approval: the entries and the pending
    submissions) share one lock with the unit of work, which holds it while it checks and applies their writes."""
    shared = threading.RLock()
    made_here = {"entries", "pending", "unit_of_work"}  # the others take nothing
    stores: dict[str, Any] = {name: in_memory() for name, _, in_memory in STORES if name not in made_here}
    stores["pending"] = MemoryPending(shared)
    stores["entries"] = MemoryEntries(
        stores["moderation"], stores["boards"], stores["erasures"], MemoryStream(), shared
    )
    stores["unit_of_work"] = MemoryUnitOfWork(shared)
    return stores


def _replays() -> Replays:
    from .operations.receipts import Replays

    return Replays()


def _key_classes(settings: Settings, secrets: SecretStore) -> api_key_classes.KeyClasses:
    def ring(access: str) -> keyring.CachedRing:
        return keyring.CachedRing(
            lambda: api_key_classes.load_ring(settings, secrets, access),
            min_chars=api_key_classes.MIN_CHARS,
            refresh_seconds=api_key_classes.REFRESH_SECONDS,
            min_refresh_seconds=api_key_classes.MIN_REFRESH_SECONDS,
        )

    accesses = (api_key_classes.GAME, api_key_classes.ADMIN)
    return api_key_classes.KeyClasses(
        {a: ring(a) for a in accesses}, {a: api_key_classes.configured(settings, a) for a in accesses}
    )


def _token_ring(settings: Settings, secrets: SecretStore) -> keyring.Ring:
    # Imported on first use: PyJWT costs cold-start time that functions which never see a token need not pay.
    from .domain import tokens

    return tokens.load_ring(settings, secrets)


Handler = Callable[[Any, Any], Any]


def entry_point(runtime: Runtime, work: Handler) -> Handler:
    """A Lambda handler `(event, context)` running `work`, which has `runtime` from its handler module's
    handler_for(runtime) and hands it down, flushing the runtime's metrics after every invocation, failed or not."""

    @functools.wraps(work)
    def handler(event: Any, context: Any = None) -> Any:
        try:
            return work(event, context)
        finally:
            runtime.metrics.flush(context)

    return handler
