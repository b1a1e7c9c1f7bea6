"""DynamoDB Local + tables + the handlers behind the local gateway: what `run` and the tests share."""

from __future__ import annotations

import itertools
import json
import os
import secrets
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from local import dynamodb_local, run_dir
from local import template as tpl
from local.appsync_authorizer import LambdaAuthorizer
from local.appsync_events import AppSyncEventsServer
from local.gateway import GatewayConfig, LocalGateway, load_handlers, routes_module
from local.keys import LocalKeys, kept_digest_key, key_titles
from local.processes import ProcessGroup
from local.schedules import SCHEDULE_SECONDS, TASK_SECONDS, ScheduledInvoker
from local.streams import LAMBDA_POLL_SECONDS, QUIET_POLL_SECONDS, StreamPoller, StreamReader, drain
from local.tables import create_tables, reset_tables
from local.throttles import Throttles
from local.throttles import from_template as throttles_from_template

STAGE = "dev"  # the stage whose synthesized template the local stack mirrors
FRESH_ENGINE_AFTER = 5000  # stream records the engine may keep before a reset starts a new one (reset_tables)


@dataclass
class Backend:
    api_key: str  # the game key: score submissions
    admin_key: str | None = None  # the admin key: boards, snapshots, the simulator (None: generated)
    api_port: int = 0  # 0: any free port
    persist_dir: Path | None = None
    cors_origins: tuple[str, ...] | None = None  # None: the template's CORS_ALLOWED_ORIGINS
    quiet: bool = False
    live_api_key: str | None = None  # the subscribe-only key discovery hands out (None: generated)
    live_port: int = 0  # the AppSync Events stand-in's port (0: any free one)
    schedule_seconds: float = SCHEDULE_SECONDS  # how often the scheduled functions run (on AWS: minutes)
    run_dir: Path = field(default_factory=run_dir)  # logs and, for `run`, nginx files and run.json
    procs: ProcessGroup = field(default_factory=ProcessGroup)
    # Where the handlers read the time (cdk_leaderboard_lambda.shared.clock: SystemClock by default; a SettableClock
    # lets a caller end a period or a minute window now instead of waiting for it).
    clock: Any = None
    # API Gateway's throttles from the template (429s): `make run --throttle`. Off for the test stacks, which call
    # the admin routes faster than the admin plan's few requests per second (a test turns them on: gateway.throttle).
    throttle: bool = False
    # Live tokens one client gets of a board per token life (None: the stack's figure, limits.LIVE_TOKENS_PER_CLIENT).
    # `make run` raises it: every viewer of a local stack is one address, 127.0.0.1 (tests keep the stack's figure).
    live_tokens_per_client: int | None = None

    def start(self) -> Backend:
        self.admin_key = self.admin_key or secrets.token_urlsafe(24)
        if self.admin_key == self.api_key:
            raise SystemExit("the admin key and the game key must differ")
        self.template = tpl.synthesized_template(STAGE)
        self.specs = tpl.table_specs(self.template)
        _check_functions(self.template)
        # The keys as AWS keeps them (API Gateway's plans, Secrets Manager), which `rotate_keys` rotates: its
        # process starts while DynamoDB Local does.
        routes = routes_module()
        values = {routes.GAME: self.api_key, routes.ADMIN: self.admin_key}
        self.keys = LocalKeys(self.procs, self.run_dir / "aws-control-plane.log", values).spawn()
        self.ddb_endpoint = dynamodb_local.start(self.procs, self._ddb_log, persist_dir=self.persist_dir)
        self.ddb = dynamodb_local.client(self.ddb_endpoint)
        create_tables(self.ddb, self.specs)
        self._records_kept = 0  # stream records of this engine's dropped tables
        self.keys.start()
        # The AppSync Events stand-in's port first: the handlers' settings name its endpoints.
        self.live_api_key = self.live_api_key or _live_key()
        # (started now: the live key's renewal, a scheduled task run once below, calls it)
        self.live = self._live_server(self.live_port).start()
        self.env = self._handler_env()
        self._saved_env = {k: os.environ.get(k) for k in [*self.env, "AWS_PROFILE"]}
        os.environ.pop("AWS_PROFILE", None)  # a developer's profile must not steer the handlers to AWS
        os.environ.update(self.env)  # before the handlers are imported: each builds its own runtime at import
        # The handlers here serve with this stack's runtime (its settings, clock and DynamoDB Local client), which
        # the stack replaces when asked to (reconfigured, reset_tables): nothing of an earlier stack is shared.
        self.runtime = self._new_runtime()
        self._built: dict[str, Callable] = {}
        self.invocations: Counter[str] = Counter()  # by handler: how often the stack invoked each function
        origins = tuple(o.strip() for o in self.env["CORS_ALLOWED_ORIGINS"].split(",") if o.strip()) or ("*",)
        timeouts = tpl.function_timeouts(self.template)
        # The template's buckets: usage plans by their construct ids (stacks/leaderboard/api_keys.py: "GamePlan").
        self.throttles: Throttles = throttles_from_template(
            self.template, {access: f"{title}Plan" for access, title in key_titles().items()}
        )
        config = GatewayConfig(
            self.api_key,
            origins,
            admin_key=self.admin_key,
            quiet=self.quiet,
            # With origins of our own, the stack's rule ("*" or the first) gives the static origin.
            gateway_origin=None if self.cors_origins else tpl.gateway_response_origin(self.template),
            timeouts={fn.name: timeouts[fn.handler] for fn in routes_module().FUNCTIONS if fn.handler in timeouts},
            request_log=self.request_log,
            key_lookup=self.keys.key_id,
            key_class=self.keys.key_class,
            throttles=self.throttles if self.throttle else None,
            deployed=tpl.deployed_methods(self.template),
            **tpl.preflight_settings(self.template),
        )
        self._rebuild_handlers()
        handlers = {name: self._dispatcher(name) for name in self._built}
        self._live_authorizer = tpl.live_authorizer(self.template)
        self.live.authorizer = self._authorizer()  # the stand-in started before the handlers existed
        self.gateway = LocalGateway(config, handlers)
        self.pollers = self._start_stream_consumers(handlers)
        self.schedules = [
            ScheduledInvoker(handler.rpartition(".")[0], handlers[handler], self.schedule_seconds)
            for handler in tpl.scheduled_handlers(self.template)
        ] + [
            # The live key's renewal (6-hourly on AWS): a minute here keeps the stand-in's 7-day key alive.
            ScheduledInvoker(handler.rpartition(".")[0], handlers[handler], TASK_SECONDS, payload=payload)
            for handler, payload in tpl.scheduled_tasks(self.template)
        ]
        for schedule in self.schedules:  # what is due already is done before the first request
            schedule.run_once()
            schedule.start()
        self.run_dir.mkdir(parents=True, exist_ok=True)
        self.request_log.write_text("")  # this run's requests only
        self.server = self.gateway.serve("127.0.0.1", self.api_port)
        self.api_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.live_url = self.live.realtime_url
        return self

    def rotate_keys(
        self,
        accesses: list[str],
        grace_s: float,
        refresh: Callable[[], None] | None = None,
        wait: Callable[[float], None] = time.sleep,
    ) -> dict[str, str]:
        """`make rotate-key` on this stack: ops/rotation.py's Rotator against its stand-ins (`refresh`: how the
        dashboard re-reads the admin key, if one runs). The new values become this stack's keys; returns the new
        keys' ids."""
        out = (lambda _: None) if self.quiet else (lambda line: print(f"keys {line}", file=sys.stderr))
        new = self.keys.rotator(self.api_url, refresh=refresh, out=out, wait=wait).rotate_keys(accesses, grace_s)
        routes = routes_module()
        self.api_key, self.admin_key = self.keys.current(routes.GAME), self.keys.current(routes.ADMIN)
        return new

    def _new_runtime(self) -> Any:
        """The handlers' runtime: this stack's environment, its clock, a client of its DynamoDB Local."""
        routes_module()  # the Lambda code asset's root on sys.path
        from cdk_leaderboard_lambda.composition import Runtime
        from cdk_leaderboard_lambda.data import dynamo
        from cdk_leaderboard_lambda.shared.settings import Settings

        client = dynamo.new_client(
            endpoint_url=self.ddb_endpoint,
            region_name=dynamodb_local.FAKE_CREDENTIALS["AWS_DEFAULT_REGION"],
            aws_access_key_id=dynamodb_local.FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=dynamodb_local.FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )
        return Runtime.build(Settings.from_environment(self.env), self.clock, client)

    def _rebuild_handlers(self) -> None:
        self._built = load_handlers(self.runtime)

    def _dispatcher(self, name: str) -> Callable:
        """The entry point the gateway, the stream pollers and the schedules call: the named function's handler
        for the runtime the stack has at the time of the call."""

        def invoke(event: Any, context: Any = None) -> Any:
            self.invocations[name] += 1
            try:
                return self._built[name](event, context)
            finally:  # whatever it wrote is on the streams now: the consumers look at once
                for poller in getattr(self, "pollers", ()):
                    poller.wake()

        invoke.__name__ = invoke.__qualname__ = name
        return invoke

    @contextmanager
    def reconfigured(self, **changes: Any) -> Iterator[Any]:
        """The functions' settings changed (e.g. bucket_capacity=4) inside the block, as a deployment with those
        settings would have them (fresh caches); the stack's own settings again afterwards."""
        before = {name: getattr(self.runtime.settings, name) for name in changes}
        self.runtime = self.runtime.with_settings(**changes)
        self._rebuild_handlers()
        try:
            yield self.runtime
        finally:  # what the block left (a reset_tables' fresh caches), with the settings of before
            self.runtime = self.runtime.with_settings(**before)
            self._rebuild_handlers()

    @contextmanager
    def serving(self) -> Iterator[Any]:
        """This stack's runtime bound to the block, for code a test runs in-process beside the handlers (a load
        written straight into the tables, a board created in-process)."""
        from local import invocation

        with invocation.serving(self.runtime) as runtime:
            yield runtime

    @property
    def _ddb_log(self) -> Path:
        return self.run_dir / "dynamodb-local.log"

    def _handler_env(self) -> dict[str, str]:
        env = tpl.function_env(self.template)
        for given in (
            "CURSOR_SECRET_ARN",
            "DIGEST_KEY_SECRET_ARN",
            "TOKEN_SIGNING_SECRET_ARN",
            "GAME_KEY_SECRET_ARN",
            "RECEIPT_SIGNING_SECRET_ARN",
        ):
            env.pop(given, None)
        env.update(dynamodb_local.handler_env(self.ddb_endpoint))
        env["ENABLE_SIMULATOR"] = "true"  # seeding goes through the simulator
        if self.live_tokens_per_client is not None:
            env["LIVE_TOKENS_PER_CLIENT"] = str(self.live_tokens_per_client)
        # No EventBridge locally: closed periods' events are appended here (and logged).
        env.pop("EVENT_BUS_NAME", None)
        env["LOCAL_EVENTS_FILE"] = str(self.events_file)
        env.setdefault("CORS_ALLOWED_ORIGINS", "*")
        # As deployed: the functions read each key class's value from its secret (current and previous: they tell
        # the classes apart by value, through rotations), here from the keys' Secrets Manager stand-in.
        assert self.live_api_key is not None  # start() set it
        env.pop("GAME_API_KEY", None)
        routes = routes_module()
        env["SECRETS_MANAGER_ENDPOINT"] = self.keys.endpoint
        env["GAME_KEY_SECRET_ARN"] = self.keys.secret_arn(routes.GAME)
        env["ADMIN_KEY_SECRET_ARN"] = self.keys.secret_arn(routes.ADMIN)
        # Live updates through the AppSync Events stand-in: the broadcaster publishes to <http url>/event (signed
        # with the fake credentials above, which the stand-in checks), discovery hands out the realtime URL and
        # the subscribe key; on AWS the stack sets the Event API's domains and its API key.
        env["LIVE_EVENTS_HTTP_URL"] = self.live.http_url
        env["LIVE_EVENTS_REALTIME_URL"] = self.live.realtime_url
        env["LIVE_EVENTS_API_KEY"] = self.live_api_key
        # The key's renewal (the period closer's second schedule) calls the stand-in's UpdateApiKey.
        env["LIVE_EVENTS_API_ID"] = self.live.key.api_id
        env["LIVE_EVENTS_API_KEY_ID"] = self.live.key.key_id
        env["LIVE_EVENTS_ADMIN_ENDPOINT"] = self.live.http_url
        if self.cors_origins:
            env["CORS_ALLOWED_ORIGINS"] = ",".join(self.cors_origins)
        if self.persist_dir is not None and not os.environ.get("DIGEST_KEY"):
            env["DIGEST_KEY"] = kept_digest_key(Path(self.persist_dir))
        return env

    def _start_stream_consumers(self, handlers: dict) -> list[StreamPoller]:
        """What Lambda's event source mappings do on AWS: the rank-counter and live-broadcaster functions fed by
        the scores stream."""
        streams = dynamodb_local.client(self.ddb_endpoint, "dynamodbstreams")
        pollers = []
        for consumer in tpl.stream_consumers(self.template):
            name = next(s.local_name for s in self.specs if s.logical_id == consumer.table_logical_id)
            arn = self.ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
            reader = StreamReader(streams, arn)
            poller = StreamPoller(
                reader,
                handlers[consumer.handler],
                consumer.batch_size,
                consumer.filter_patterns,
                consumer.retry_attempts,
                poll_seconds=LAMBDA_POLL_SECONDS,
                quiet_poll_seconds=QUIET_POLL_SECONDS,
            )
            pollers.append(poller.start())
        return pollers

    def _live_server(self, port: int = 0) -> AppSyncEventsServer:
        assert self.live_api_key is not None  # start() set it
        return AppSyncEventsServer(
            self.live_api_key,
            dynamodb_local.FAKE_CREDENTIALS["AWS_ACCESS_KEY_ID"],
            dynamodb_local.FAKE_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
            dynamodb_local.FAKE_CREDENTIALS["AWS_DEFAULT_REGION"],
            port=port,
        )

    def _authorizer(self) -> LambdaAuthorizer | None:
        """The Event API's Lambda authorizer as the template names it (the live-authorizer function, its result
        cache and its token-shape expression), or None."""
        found = getattr(self, "_live_authorizer", None)
        if found is None:
            return None
        handler, ttl, expression = found
        return LambdaAuthorizer(self._dispatcher(handler), ttl, validation=expression)

    def stop_live(self) -> None:
        """The AppSync Events stand-in down (its connections closed, as when the Event API is unreachable)."""
        self.live.stop()

    def start_live(self) -> None:
        """The stand-in back, at the same URLs and with the same key."""
        self.live = self._live_server(self.live.port).start()
        self.live.authorizer = self._authorizer()

    @property
    def request_log(self) -> Path:
        """The gateway's log: one line per request it served, "unix-time METHOD /path?query status"."""
        return self.run_dir / "api-requests.log"

    @property
    def events_file(self) -> Path:
        return self.run_dir / "events.jsonl"

    def events(self) -> list[dict]:
        """The events the functions sent (what would have gone to the EventBridge bus)."""
        path = self.events_file
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    def settle(self, timeout: float = 30.0) -> None:
        """Wait until the stream consumers have processed every write made so far (ranks and totals are exact)."""
        for poller in self.pollers:
            poller.settle(timeout)

    @contextmanager
    def consumers_by_hand(self) -> Iterator[Callable[[], None]]:
        """The stream consumers stopped; yields a function that delivers every record written before each call
        (as one poll of Lambda's would). They run in the background again afterwards."""
        self.settle()
        for poller in self.pollers:
            poller.stop()

        marks = itertools.count()
        markers = []  # (poller, its table, the marker item's key): found once, written at every call
        for p in self.pollers:
            table = p.reader.arn.split(":table/")[1].split("/stream/")[0]
            spec = next(s for s in self.specs if s.local_name == table)
            markers.append((p, table, {k["AttributeName"]: {"S": MARKER_KEY} for k in spec.create_args["KeySchema"]}))

        def consume() -> None:  # a failing batch is retried, as Lambda (and the background poller) retries it
            # A marker written now is behind every record written before the call: deliver up to it. (Record
            # times cannot tell: ApproximateCreationDateTime is approximate, and while the consumer is slower than
            # the writers a drain that waited for a newer record ran on for most of the test's budget.)
            mark = str(next(marks))
            for p, table, key in markers:
                self.ddb.put_item(TableName=table, Item={**key, "mark": {"S": mark}})
                reached = lambda records: any(_is_marker(r, mark) for r in records)  # noqa: E731
                drain(p.reader, p.handler, p.batch_size, p.patterns, lambda: True, p.retry_attempts, until=reached)

        try:
            yield consume
        finally:
            self.pollers = [p.renewed().start() for p in self.pollers]

    def table_name(self, key_attribute: str) -> str:
        """The local name of the table whose partition key is key_attribute."""
        return next(s.local_name for s in self.specs if s.create_args["KeySchema"][0]["AttributeName"] == key_attribute)

    def reset_tables(self) -> None:
        """Empty tables, with new streams the consumers start over on. The engine keeps a dropped table's stream
        records, and every later write is slower for them (after a dropped table of 30,000 writes, 200 puts on a
        new table took 3.6 s instead of 0.8 s, for good): once the streams have carried FRESH_ENGINE_AFTER records,
        an in-memory stack gets a new DynamoDB Local on the same endpoint instead (about 4 s). The scheduled
        functions are paused meanwhile and then run once, so what they find due on the fresh tables (the declared
        boards' previous periods, to close) is done before this returns, not in the middle of the next test."""
        with ExitStack() as paused:
            for schedule in self.schedules:
                paused.enter_context(schedule.paused())
            for poller in self.pollers:
                poller.stop()
            self._records_kept += sum(p.reader.records_read for p in self.pollers)
            if self.persist_dir is None and self._records_kept > FRESH_ENGINE_AFTER:
                self.procs.stop(dynamodb_local.PROCESS_NAME)
                port = urlsplit(self.ddb_endpoint).port
                dynamodb_local.start(self.procs, self._ddb_log, port=port)
                create_tables(self.ddb, self.specs)
                self._records_kept = 0
            else:
                reset_tables(self.ddb, self.specs)
            # The functions trust a stored board's config for a while (board_catalog.BOARD_CACHE_SECONDS): emptied
            # tables hold no board, so a board made again under the same id must not be read from before. A new
            # runtime (same settings) is what a new deployment's functions would have.
            self.runtime = self.runtime.with_settings()
            self._rebuild_handlers()
            self.pollers = self._start_stream_consumers(self.gateway.handlers)
            for schedule in self.schedules:
                schedule.run_once()

    def stop(self) -> None:
        for schedule in getattr(self, "schedules", []):
            schedule.stop()
        for poller in getattr(self, "pollers", []):
            poller.stop()
        live = getattr(self, "live", None)
        if live:
            live.stop()
        server = getattr(self, "server", None)
        if server:
            server.shutdown()
            server.server_close()
        self.procs.stop_all()
        for k, v in getattr(self, "_saved_env", {}).items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def _live_key() -> str:
    """A subscribe key of AppSync's shape (da2-...), made up per run."""
    return "da2-" + secrets.token_hex(13)


MARKER_KEY = "#delivery-marker"  # a key no entry, board or counter has: the consumers' filters drop it


def _is_marker(record: dict, mark: str) -> bool:
    change = record["dynamodb"]
    keys = change.get("Keys", {})
    return all(v.get("S") == MARKER_KEY for v in keys.values()) and change.get("NewImage", {}).get("mark") == {
        "S": mark
    }


def _check_functions(template: dict) -> None:
    """The template's Lambda handlers and the route table's must be the same set."""
    in_template = tpl.lambda_handlers(template)
    in_routes = {fn.handler for fn in routes_module().FUNCTIONS}
    if in_template != in_routes:
        print(
            f"warning: template handlers {sorted(in_template)} differ from routes.py {sorted(in_routes)}",
            file=sys.stderr,
        )
