"""DynamoDB Local with the stack's tables, and the handlers' environment pointing at it.

Reuses the local stack's pieces: the jar runner, the synthesized template (table schema and
the functions' environment) and the table creation. Fake credentials only: nothing here can
reach AWS.
"""

from __future__ import annotations

import os
import platform
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from local import ROOT, dynamodb_local
from local import template as tpl
from local.processes import ProcessGroup
from local.streams import StreamPoller, StreamReader
from local.tables import create_tables

STAGE = "dev"  # the stage the local stack mirrors


@dataclass
class BenchEnvironment:
    endpoint: str
    scores_table: str
    template: dict
    procs: ProcessGroup
    log: Path

    def new_client(self):
        """A separate client on the same engine (the baseline's own)."""
        return dynamodb_local.client(self.endpoint)

    @property
    def specs(self) -> list[tpl.TableSpec]:
        return tpl.table_specs(self.template)

    @property
    def client(self):
        return dynamodb_local.client(self.endpoint)

    def stream_reader(self) -> StreamReader:
        arn = self.client.describe_table(TableName=self.scores_table)["Table"]["LatestStreamArn"]
        return StreamReader(dynamodb_local.client(self.endpoint, "dynamodbstreams"), arn)

    def start_consumer(self) -> StreamPoller:
        """The rank-counter function on the scores table's stream, as Lambda's event source mapping runs it.

        The poller's `oldest_record_age` is how old (since its write, by the entry's reached_at) the oldest
        record was when it was handed to the function: the counters' lag."""
        from cdk_leaderboard_lambda.handlers import rank_counter
        from cdk_leaderboard_lambda.web import routes

        # the live broadcaster, the stream's other consumer, has no subscribers here: it would only read the top
        (consumer,) = [c for c in tpl.stream_consumers(self.template) if c.handler == routes.RANK_COUNTER.handler]
        poller: StreamPoller
        from local import invocation

        counter = rank_counter.handler_for(invocation.runtime())

        def handler(event, context):
            now_ms = time.time() * 1000
            ages = [
                now_ms - int(r["dynamodb"]["NewImage"]["reached_at"]["N"])
                for r in event["Records"]
                if "reached_at" in (r["dynamodb"].get("NewImage") or {})
            ]
            poller.oldest_record_age = max([poller.oldest_record_age, *(a / 1000 for a in ages)])
            return counter(event, context)

        poller = StreamPoller(
            self.stream_reader(), handler, consumer.batch_size, consumer.filter_patterns, consumer.retry_attempts
        )
        poller.oldest_record_age = 0.0
        return poller.start()

    def stop(self) -> None:
        self.procs.stop_all()


def start(log_dir: Path | None = None) -> BenchEnvironment:
    """DynamoDB Local in memory on a free port, the stack's tables, and this process pointed at it."""
    template = tpl.synthesized_template(STAGE)
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix="leaderboard-bench-"))
    log = log_dir / "dynamodb-local.log"
    procs = ProcessGroup()
    endpoint = dynamodb_local.start(procs, log)
    create_tables(dynamodb_local.client(endpoint), tpl.table_specs(template))
    return connect(endpoint, template, procs, log)


def connect(endpoint: str, template: dict | None = None, procs: ProcessGroup | None = None, log: Path | None = None):
    """Point this process's handler code at a running engine (another process may have started it)."""
    template = template or tpl.synthesized_template(STAGE)
    env = tpl.function_env(template)
    env.pop("CURSOR_SECRET_ARN", None)
    env.pop("DIGEST_KEY_SECRET_ARN", None)
    env.update(dynamodb_local.handler_env(endpoint))
    os.environ.pop("AWS_PROFILE", None)
    os.environ.pop("AWS_SESSION_TOKEN", None)
    os.environ.update(env)  # before the handlers are imported: each builds its own runtime at import

    from cdk_leaderboard_lambda.composition import Runtime
    from local import invocation

    # One runtime for the whole benchmark process (one deployment): the handlers it calls, the loads it writes
    # in-process and the meters on its DynamoDB client all use it. Bound here for the rest of the process's main
    # thread; worker threads carry it (invocation.carried).
    runtime = Runtime.from_environment()
    invocation.serve_from_now_on(runtime)
    return BenchEnvironment(endpoint, runtime.settings.scores_table, template, procs or ProcessGroup(), log or Path())


def meta() -> dict:
    """Where and on what a run was measured: timings from another machine (or a busy one) do not compare."""

    def git(*args: str) -> str:
        try:
            return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            return ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown"
    if git("status", "--porcelain", "--", "lambda_src"):
        commit += " + uncommitted changes in lambda_src"
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "dynamodb_local": dynamodb_local.NPM_PACKAGE,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "commit": commit,
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "load_average": load,
    }
