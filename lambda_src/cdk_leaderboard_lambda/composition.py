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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
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
from .domain import api_key_classes, cursors, digest_key, keyring, receipt_keys
from .domain.digest_key import DigestKey
from .domain.ports import (
    BoardStore,
    ChainStore,
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
)
from .domain.ports import runtime as port
from .operations.board_catalog import BoardCache
from .operations.live_access import LiveSwitch
from .shared.clock import Clock, SystemClock
from .shared.metrics import MetricsSink
from .shared.settings import Settings

if TYPE_CHECKING:
    from .operations.receipts import Replays


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
    metrics: MetricsSink  # this instance's metrics until the next flush
    # The stores that are classes (the others are data/ modules on `dynamodb`): each has a DynamoDB (the
    # secrets: Secrets Manager) and an in-memory implementation that tests/contract holds to the same behaviour
    # (STORES lists them).
    rate_limits: RateLimitStore  # per-player submission counts per minute
    snapshots: SnapshotStore  # the append-only snapshot archive
    closings: ClosingStore  # closed periods' summaries
    live_state: LiveState  # what the live broadcaster last published for each board period
    moderation: ModerationStore  # the hidden players' decisions
    boards: BoardStore  # stored boards' configs and their count
    runs: RunStore  # client runs, each used by one submission
    pending: PendingStore  # quarantined submissions awaiting a decision
    chain: ChainStore  # each board period's hash-chained log, and the players' commitment keys
    idempotency: IdempotencyStore  # Idempotency-Key's records, behind Powertools' persistence layer
    secrets: SecretStore  # Secrets Manager's values of the secrets the settings name (read by the caches above)
    counters: CounterStore  # the rank counters the rank and percentile math reads (rank_counter_upkeep.py keeps them)
    erasures: ErasureStore  # erasures' items (their fences), audit records and the scheduled job's list
    entries: EntryStore  # the players' entries and the rank index over them
    replays: Replays  # each board period's log replayed so far, for receipts and closings (receipts.py)

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None, clock: Clock | None = None) -> Runtime:
        """The runtime of a function: its environment's settings (default: the process's) and the real clock."""
        return cls.build(Settings.from_environment(env), clock)

    @classmethod
    def build(
        cls,
        settings: Settings,
        clock: Clock | None = None,
        dynamodb: Any = None,
        *,
        rate_limits: RateLimitStore | None = None,
        snapshots: SnapshotStore | None = None,
        closings: ClosingStore | None = None,
        live_state: LiveState | None = None,
        moderation: ModerationStore | None = None,
        boards: BoardStore | None = None,
        runs: RunStore | None = None,
        pending: PendingStore | None = None,
        chain: ChainStore | None = None,
        idempotency: IdempotencyStore | None = None,
        counters: CounterStore | None = None,
        secrets: SecretStore | None = None,
        erasures: ErasureStore | None = None,
        entries: EntryStore | None = None,
    ) -> Runtime:
        """A runtime for these settings: a new DynamoDB client unless one is given (tests: moto's; locally one for
        DynamoDB Local), Secrets Manager read only where the settings name a secret, on first use (its client made
        then); the stores on DynamoDB (the secrets on Secrets Manager) unless given (in_memory_stores() gives an
        in-memory one of each)."""
        dynamodb = dynamo.new_client() if dynamodb is None else dynamodb
        secret_store = secrets or SecretsManagerSecrets(
            functools.partial(new_client, settings.secrets_manager_endpoint)
        )
        clock = clock or SystemClock()
        digest = DigestKey(lambda: digest_key.load(settings, secret_store))
        return cls(
            settings=settings,
            clock=clock,
            dynamodb=dynamodb,
            events=EventSink(settings),
            live=LivePublisher(settings.live_events_http_url),
            cursor_keys=cursors.keys(settings, secret_store),
            digest_key=digest,
            live_key=AppSyncApiKey(
                settings.live_events_api_id,
                settings.live_events_api_key_id,
                functools.partial(new_appsync_client, settings.live_events_admin_endpoint),
            ),
            token_keys=keyring.CachedRing(lambda: _token_ring(settings, secret_store)),
            api_keys=_key_classes(settings, secret_store),
            receipt_keys=receipt_keys.CachedKeySet(lambda: receipt_keys.load(settings, secret_store)),
            board_cache=BoardCache(),
            live_switch=LiveSwitch(),
            metrics=MetricsSink(settings.function_name),
            rate_limits=rate_limits or DynamoRateLimits(dynamodb, settings.scores_table, digest),
            snapshots=snapshots or DynamoSnapshots(dynamodb, settings.snapshots_table),
            closings=closings or DynamoClosings(dynamodb, settings.scores_table),
            live_state=live_state or DynamoLiveState(dynamodb, settings.scores_table),
            moderation=moderation or DynamoModeration(dynamodb, settings.scores_table),
            boards=boards or DynamoBoards(dynamodb, settings.scores_table),
            runs=runs or DynamoRuns(dynamodb, settings.scores_table, digest),
            pending=pending or DynamoPending(dynamodb, settings.scores_table, digest),
            chain=chain or DynamoChain(dynamodb, settings.scores_table, digest),
            idempotency=idempotency or DynamoRecords(dynamodb, settings.scores_table),
            counters=counters or DynamoCounters(dynamodb, settings.scores_table),
            secrets=secret_store,
            erasures=erasures or DynamoErasures(dynamodb, settings.scores_table),
            entries=_entries(entries, dynamodb, settings, clock, digest),
            replays=_replays(),
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
# cases against both). A store added here is built by Runtime.build and kept by with_settings.
STORES: tuple[tuple[str, type, type], ...] = (
    ("rate_limits", DynamoRateLimits, MemoryRateLimits),
    ("snapshots", DynamoSnapshots, MemorySnapshots),
    ("closings", DynamoClosings, MemoryClosings),
    ("live_state", DynamoLiveState, MemoryLiveState),
    ("moderation", DynamoModeration, MemoryModeration),
    ("boards", DynamoBoards, MemoryBoards),
    ("runs", DynamoRuns, MemoryRuns),
    ("pending", DynamoPending, MemoryPending),
    ("chain", DynamoChain, MemoryChain),
    ("idempotency", DynamoRecords, MemoryRecords),
    ("counters", DynamoCounters, MemoryCounters),
    ("secrets", SecretsManagerSecrets, MemorySecrets),  # not DynamoDB: Secrets Manager (its contract runs on moto)
    ("erasures", DynamoErasures, MemoryErasures),
    ("entries", DynamoEntries, MemoryEntries),  # reads the moderation, boards and erasures stores (in_memory_stores)
)


def in_memory_stores() -> dict[str, Any]:
    """A new in-memory implementation of every store, as keyword arguments of Runtime.build (domain tests that
    need no engine for these). The entries read the same runtime's moderation, boards and erasures, as DynamoDB
    reads their items in the submission's request, and write their changes to a stream of their own (`.stream`,
    what the stream consumers read)."""
    stores = {name: in_memory() for name, _, in_memory in STORES if in_memory is not MemoryEntries}
    stores["entries"] = MemoryEntries(
        stores["moderation"], stores["boards"], stores["erasures"], MemoryStream(), stores["pending"]
    )
    return stores


def _entries(
    given: EntryStore | None, dynamodb: Any, settings: Settings, clock: Clock, digest: DigestKey
) -> EntryStore:
    """The entries on DynamoDB, or the in-memory ones given, bound to this runtime's clock and digest key."""
    if isinstance(given, MemoryEntries):
        return given.bound_to(clock, digest)
    return given or DynamoEntries(dynamodb, settings.scores_table, settings.rank_index, clock, digest)


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
