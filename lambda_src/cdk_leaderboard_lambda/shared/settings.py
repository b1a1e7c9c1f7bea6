"""The one place that reads the environment: what a function's environment variables say, read once per cold
start by the composition root (composition.py)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import limits, schema
from .limits import DEFAULT_MAX_BOARDS


@dataclass(frozen=True)
class Settings:
    scores_table: str
    snapshots_table: str
    rank_index: str
    cors_allowed_origins: tuple[str, ...]
    enable_simulator: bool
    period_retention_days: int
    bucket_capacity: int  # a rank bucket splits past this many entries
    band_capacity: int  # a counter band splits past this many buckets
    recount_threads: int  # the rank-counter function's recounts side by side (1 under moto: it is not thread-safe)
    declared_boards: tuple[dict, ...]  # boards from the stack's props: they exist as soon as it is deployed
    max_boards: int  # boards POST /leaderboards may store (the stack's max_boards prop); beyond: 409
    function_name: str | None  # set by the Lambda runtime; None in local runs, tests and benchmarks (no metrics)
    # Page cursors are signed with a key of their own (cursors.py): given as is (local runs, tests) or read from
    # Secrets Manager as a ring (on AWS: the secret's ARN), whose previous version verifies cursors for their TTL.
    cursor_secret: str | None = field(default=None, repr=False)
    cursor_secret_arn: str | None = None
    cursor_ttl_seconds: int = 900  # a cursor older than this is refused: start again from the first page
    # How long a deleted board generation's evidence (logs, closing summaries) stays served (board_catalog.py).
    archive_retention_days: int = 365
    # The keyed hashes that name a player's items (digest_key.py): a key that never rotates, given as is (local runs,
    # tests) or its secret's ARN (on AWS).
    digest_key: str | None = field(default=None, repr=False)
    digest_key_secret_arn: str | None = None
    # Each key class's value, to tell the classes apart by the value API Gateway checked (api_key_classes.py): given as
    # is (local unit tests) or read from the class's secret (on AWS, and in the local stack: its Secrets Manager
    # stand-in), whose previous value stays valid while labelled AWSPREVIOUS (make rotate-key removes the label when
    # it retires the old key).
    game_api_key: str | None = field(default=None, repr=False)
    game_key_secret_arn: str | None = None
    admin_api_key: str | None = field(default=None, repr=False)
    admin_key_secret_arn: str | None = None
    # Player and run tokens (tokens.py): the signing key, given as is (local runs, tests) or its secret's ARN (on
    # AWS); a rotated-out key verifies token_key_grace_seconds more (a player token lives up to 24 h); the issuer.
    token_signing_key: str | None = field(default=None, repr=False)
    token_signing_secret_arn: str | None = None
    token_key_grace_seconds: int = 24 * 3600 + 600
    token_issuer: str = "leaderboard"
    # Receipts and closing summaries (receipt_keys.py): the Ed25519 key set, given as is (local runs, tests) or its
    # secret's ARN (on AWS).
    receipt_signing_key: str | None = field(default=None, repr=False)
    receipt_signing_secret_arn: str | None = None
    # Local runs and tests only (the stack never sets it): the Secrets Manager endpoint the functions read their
    # secrets from, a stand-in speaking AWS's protocol (moto's server); None: AWS's own endpoint.
    secrets_manager_endpoint: str | None = None
    # Where a closed period's event goes: the EventBridge bus (on AWS), else a JSON-lines file (local runs), else
    # only the log (tests).
    event_bus_name: str | None = None
    local_events_file: str | None = None
    # Live updates through AWS AppSync Events (live_channels.py): the Event API's HTTP endpoint the broadcaster
    # publishes to (POST <url>/event, IAM-signed; https://<http domain> on AWS, the local stand-in's URL in local
    # runs), its real-time WebSocket URL (wss://<realtime domain>/event/realtime) and the API key AppSync made
    # with the API (handed out to no one, accepted for neither connect nor subscribe: live_access.py).
    live_events_http_url: str | None = None
    live_events_realtime_url: str | None = None
    live_events_api_key: str | None = None
    # The period closer's scheduled renewal of that key (live_key.py): the Event API's id and the key's id, and
    # (local runs and tests only) the endpoint of AppSync's control plane, a stand-in; None: AWS's own endpoint.
    live_events_api_id: str | None = None
    live_events_api_key_id: str | None = None
    live_events_admin_endpoint: str | None = None
    # The function that hands out live subscribe tokens and is the Event API's authorizer (live_access.py): whether
    # live updates are on. A flag, not the API's URL: the API names this function, so it cannot name the API.
    live_tokens: bool = False
    # The edge's proof (the WAF's EdgeProofSecret): given as is (local runs, tests) or its secret's ARN (on AWS, with
    # the WAF); the function that hands out live tokens trusts the edge's viewer address only with it (live_access.py).
    edge_proof: str | None = field(default=None, repr=False)
    edge_proof_secret_arn: str | None = None
    # Live tokens one client gets of a board per token life (live_access.issue). The stack never sets it; `make run`
    # raises it, since every viewer of a local stack is one address (127.0.0.1).
    live_tokens_per_client: int = limits.LIVE_TOKENS_PER_CLIENT

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings a function's environment gives (default: the process's; the stack sets it on every
        function, local runs and tests pass their own)."""
        return _from_environment(os.environ if env is None else env)


def _required(env: Mapping[str, str], name: str) -> str:
    """What the stack always sets: missing means a broken deployment or test setup, which must not pass quietly."""
    value = env.get(name)
    if not value:
        raise RuntimeError(f"{name} is not set: the stack sets it on every function (tests: from the template)")
    return value


def _from_environment(env: Mapping[str, str]) -> Settings:
    origins = tuple(o.strip() for o in env.get("CORS_ALLOWED_ORIGINS", "*").split(",") if o.strip())
    return Settings(
        scores_table=_required(env, "SCORES_TABLE"),
        snapshots_table=_required(env, "SNAPSHOTS_TABLE"),
        rank_index=env.get("RANK_INDEX", schema.RANK_INDEX),
        cors_allowed_origins=origins or ("*",),
        enable_simulator=env.get("ENABLE_SIMULATOR", "false").lower() == "true",
        period_retention_days=int(env.get("PERIOD_RETENTION_DAYS", "35")),
        archive_retention_days=int(env.get("ARCHIVE_RETENTION_DAYS", "365")),
        bucket_capacity=int(env.get("BUCKET_CAPACITY", "512")),
        band_capacity=int(env.get("SEGMENT_CAPACITY", "64")),  # the variable's older name stays (deployments set it)
        recount_threads=int(env.get("RECOUNT_THREADS", "8")),
        declared_boards=tuple(json.loads(env.get("DECLARED_BOARDS") or "[]")),
        max_boards=int(env.get("MAX_BOARDS", str(DEFAULT_MAX_BOARDS))),
        function_name=env.get("AWS_LAMBDA_FUNCTION_NAME") or None,
        cursor_secret=env.get("CURSOR_SECRET") or None,
        cursor_secret_arn=env.get("CURSOR_SECRET_ARN") or None,
        cursor_ttl_seconds=int(env.get("CURSOR_TTL_SECONDS", "900")),
        digest_key=env.get("DIGEST_KEY") or None,
        digest_key_secret_arn=env.get("DIGEST_KEY_SECRET_ARN") or None,
        game_api_key=env.get("GAME_API_KEY") or None,
        game_key_secret_arn=env.get("GAME_KEY_SECRET_ARN") or None,
        admin_api_key=env.get("ADMIN_API_KEY") or None,
        admin_key_secret_arn=env.get("ADMIN_KEY_SECRET_ARN") or None,
        token_signing_key=env.get("TOKEN_SIGNING_KEY") or None,
        token_signing_secret_arn=env.get("TOKEN_SIGNING_SECRET_ARN") or None,
        token_key_grace_seconds=int(env.get("TOKEN_KEY_GRACE_SECONDS", str(24 * 3600 + 600))),
        token_issuer=env.get("TOKEN_ISSUER") or "leaderboard",
        receipt_signing_key=env.get("RECEIPT_SIGNING_KEY") or None,
        receipt_signing_secret_arn=env.get("RECEIPT_SIGNING_SECRET_ARN") or None,
        secrets_manager_endpoint=env.get("SECRETS_MANAGER_ENDPOINT") or None,
        event_bus_name=env.get("EVENT_BUS_NAME") or None,
        local_events_file=env.get("LOCAL_EVENTS_FILE") or None,
        live_events_http_url=env.get("LIVE_EVENTS_HTTP_URL") or None,
        live_events_realtime_url=env.get("LIVE_EVENTS_REALTIME_URL") or None,
        live_events_api_key=env.get("LIVE_EVENTS_API_KEY") or None,
        live_events_api_id=env.get("LIVE_EVENTS_API_ID") or None,
        live_events_api_key_id=env.get("LIVE_EVENTS_API_KEY_ID") or None,
        live_events_admin_endpoint=env.get("LIVE_EVENTS_ADMIN_ENDPOINT") or None,
        live_tokens=env.get("LIVE_TOKENS") == "1",
        edge_proof_secret_arn=env.get("EDGE_PROOF_SECRET_ARN") or None,
        live_tokens_per_client=int(env.get("LIVE_TOKENS_PER_CLIENT") or limits.LIVE_TOKENS_PER_CLIENT),
    )
