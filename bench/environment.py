"""DynamoDB Local with the stack's tables, and the handlers' environment pointing at it.

Reuses the local stack's pieces: the jar runner, the synthesized template (table schema and
the functions' environment) and the table creation. Fake credentials only: nothing here can
reach AWS.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from local import dynamodb_local
from local import template as tpl
from local.processes import ProcessGroup
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

    def stop(self) -> None:
        self.procs.stop_all()


def start(log_dir: Path | None = None) -> BenchEnvironment:
    template = tpl.synthesized_template(STAGE)
    specs = tpl.table_specs(template)
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix="leaderboard-bench-"))
    log = log_dir / "dynamodb-local.log"
    procs = ProcessGroup()
    endpoint = dynamodb_local.start(procs, log)  # in memory, on a free port
    create_tables(dynamodb_local.client(endpoint), specs)

    env = tpl.function_env(template)
    env.update(dynamodb_local.FAKE_CREDENTIALS)
    env.update(
        AWS_REGION=dynamodb_local.FAKE_CREDENTIALS["AWS_DEFAULT_REGION"],
        AWS_ENDPOINT_URL_DYNAMODB=endpoint,
        AWS_EC2_METADATA_DISABLED="true",  # never look for real credentials
    )
    os.environ.pop("AWS_PROFILE", None)
    os.environ.pop("AWS_SESSION_TOKEN", None)
    os.environ.update(env)  # before the first store.client() and get_settings()

    from leaderboard import store
    from leaderboard.settings import get_settings

    store.client.cache_clear()
    get_settings.cache_clear()
    return BenchEnvironment(endpoint, get_settings().scores_table, template, procs, log)
