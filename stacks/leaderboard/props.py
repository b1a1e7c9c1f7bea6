"""Everything a user of the construct may set, each with a default; and the typed board declarations.

Related settings come in groups (props_groups.py): `throttles=Throttles(...)`, `monitoring=Monitoring(...)`,
`live=Live(...)`, `waf=Waf(...)`. The reference page docs/CONFIGURATION.md is generated from the docstrings here
(`make docs-config`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as ddb
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_events as events
from aws_cdk import aws_logs as logs

from .paths import board_validation, errors, limits, routes
from .props_groups import (
    DEFAULT_WAF_READS_PER_5_MINUTES,
    GROUPS,
    SUBMISSIONS_PER_SHARD_PER_SECOND,
    Live,
    Monitoring,
    Throttles,
    Waf,
)
from .regions import zone_id_problem

__all__ = [
    "DEFAULT_WAF_READS_PER_5_MINUTES",
    "SUBMISSIONS_PER_SHARD_PER_SECOND",
    "Board",
    "LeaderboardProps",
    "Live",
    "Monitoring",
    "Throttles",
    "Waf",
]

_DOMAIN = re.compile(r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}")
_US_EAST_1_CERTIFICATE = re.compile(r"arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate/[0-9a-f-]{36}")
# Secrets Manager's names, and a secret's complete ARN: its name and the hyphen and six characters it appends.
_SECRET_NAME = re.compile(r"[A-Za-z0-9/_+=.@-]{1,512}")
_SECRET_COMPLETE_ARN = re.compile(
    r"arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}"
)


@dataclass(frozen=True, kw_only=True)
class Board:
    """A board that exists as soon as the stack is deployed: the fields of a POST /leaderboards body.

    Checked at synth by the Lambda code's own validation, so a bad declaration fails `cdk synth`, not the deploy.
    """

    board_id: str
    """Letters, digits, `-` and `_`; part of every URL of the board."""
    name: str | None = None
    """Shown on the dashboard; None: the board id."""
    order: str = "desc"
    """"desc": higher scores rank first; "asc": lower first (times)."""
    operator: str = "best"
    """"best" keeps a player's best score, "latest" the last one, "increment" adds each submission."""
    periods: Sequence[str] = ("all-time",)
    """Which rankings to keep: any of "all-time", "daily", "weekly", "monthly"."""
    min_score: int = 0
    """The lowest score the board accepts (a submission outside min_score..max_score is refused)."""
    max_score: int | None = None
    """None: the largest integer a JSON number carries exactly."""
    shards: int = 1
    """Rank index partitions per board period: more for boards that take more writes per second than one takes."""
    submissions: str = "server"
    """"server": only the game key submits; "client": players' devices too, each score with the token of a run
    (POST /players/{player_id}/tokens, then POST /leaderboards/{board}/runs)."""

    def __post_init__(self) -> None:
        try:
            board_validation.parse_new_board(self.as_body(), created_at=None)
        except errors.BadRequest as error:
            raise ValueError(f"board {self.board_id!r}: {error}") from None

    def as_body(self) -> dict[str, Any]:
        """The POST /leaderboards body (the handlers read declared boards in this form)."""
        body = {k: v for k, v in asdict(self).items() if v is not None}
        body["periods"] = list(self.periods)
        return body


@dataclass(frozen=True, kw_only=True)
class LeaderboardProps:
    """Everything a user of the construct may set. Every field has a default: `Leaderboard(self, "Leaderboard")`
    deploys a working non-production leaderboard."""

    stage: str = "dev"
    """The API stage name (the last path segment of the API URL) and a label in descriptions."""
    production: bool = False
    """True: tables, log groups and secrets are retained on deletion, tables have deletion protection, the score
    simulator is off and, with a `domain_name`, CORS allows only the dashboard's origin. Nothing is inferred from
    the stage's name."""
    removal_policy: RemovalPolicy | None = None
    """None: DESTROY outside production, RETAIN in production (tables, log groups, secrets). RETAIN is applied as
    RETAIN_ON_UPDATE_OR_DELETE (DeletionPolicy RetainExceptOnCreate): a first create that rolls back leaves nothing."""
    instance_type: str = "t4g.nano"
    """The dashboard's instance. Graviton nano (0.5 GiB): the dashboard is static files and a proxy; first boot
    adds a 1 GiB swap file so that dnf fits. About 3 USD/month."""
    existing_vpc: ec2.IVpc | None = None
    """A VPC of your own for the dashboard's instance, with an internet gateway (CloudFront's VPC origins require
    one), used as it is: no VPC, subnet or flow log is made (its flow logs are its owner's). The instance goes into
    its private subnets with egress if it has any, else into a public one. None: a small public-only VPC of the
    stack's own (one AZ, no NAT gateway, rejected traffic logged). Only with `dashboard` (nothing else has a VPC)."""
    existing_scores_table: ddb.ITable | None = None
    """A live scores table of your own, used as it is: no table is made and nothing on it is changed; the functions'
    role gets the same statements on its ARN, on its rank index's (`<arn>/index/leaderboard-rank-index`) and on its
    stream, and the rank counters and live updates read that stream. It must have: partition key `player_id` and
    sort key `leaderboard_id` (strings); the global secondary index `leaderboard-rank-index` with partition key
    `leaderboard_id` and sort key `rank_key` (strings), projecting `score`, `player_name`, `metadata` and
    `reached_at` (INCLUDE) or ALL; a stream of NEW_AND_OLD_IMAGES; TTL on `expires_at` (daily and weekly entries
    expire by it). Imported, it needs its stream's ARN, `Table.from_table_attributes(table_arn=...,
    table_stream_arn=...)` (without one these props are refused); a `Table` of the same app is checked at synth
    (key schema, index, stream, TTL), an imported one or a TableV2 cannot be. Point-in-time recovery (the
    construct's backup), encryption, deletion protection, its removal policy and `table_overrides` are its owner's;
    the alarms on the table's metrics stay. Its stream then has the construct's two readers, and a DynamoDB stream
    takes at most two readers per shard (more may be throttled): it must have no reader of its own. None: a table
    of the stack's own (output ScoresTableName either way)."""
    existing_snapshots_table: ddb.ITable | None = None
    """A snapshot archive table of your own, used as it is, as `existing_scores_table` (the functions' role gets
    the same statements on its ARN). It must have partition key `leaderboard_id` and sort key `taken_at` (strings);
    no index, stream or TTL. A `Table` of the same app is checked at synth. None: a table of the stack's own."""
    existing_digest_key_secret: str | None = None
    """The digest-key secret of an earlier deployment, by its complete ARN (ending in the hyphen and six characters
    Secrets Manager adds to the name) or its name, used instead of a new one: the stack makes no digest key, changes
    nothing on this secret, and the functions may read its current value (GetSecretValue on it alone). The digest key
    names every hashed partition (runs, commitments, rate counters, erasure records): a stack re-created over its
    retained tables with a new one finds none of them (docs/OPERATIONS.md, "Re-creating a stack over retained
    tables"). Only for a stack that does not hold its own digest key yet: set on a deployed stack, it takes that
    stack's secret out of it (retained in production, deleted elsewhere). A secret encrypted with a customer managed
    KMS key needs that key's policy to let the functions' role decrypt. None: a secret of the stack's own (logical id
    CursorSecret, retained in production)."""
    cors_origins: Sequence[str] | None = None
    """None: any origin ("*"), but in production with a `domain_name` only https://<domain_name>. (The dashboard
    calls the API through its own same-origin proxy; the API's protection is its keys, not CORS.)"""
    throttles: Throttles = Throttles()
    """API Gateway's throttles and quotas (see Throttles)."""
    monitoring: Monitoring = Monitoring()
    """Alarms, their topic and the operations dashboard (see Monitoring)."""
    live: Live = Live()
    """Live updates: subscribe tokens, the spend alarm's budget, the unused API key's generation (see Live)."""
    waf: Waf = Waf()
    """The WAF on the API stage (see Waf)."""
    existing_event_bus: events.IEventBus | None = None
    """An EventBridge bus of your own for the "Leaderboard Period Closed" events (the functions get
    events:PutEvents on it). None: a bus of the stack's own (output EventBusName)."""
    enable_simulator: bool | None = None
    """None: on outside production, off in production."""
    reserved_concurrency: Mapping[str, int] = field(default_factory=dict)
    """Reserved concurrency per function name (opt in, e.g. {"score-submit": 20}); a function left out has none,
    and by default none has: a new account's Lambda quota can be 10, and any reservation then fails the deploy
    (Lambda keeps 100 unreserved; `make preflight` checks the quota against what is asked here)."""
    account_has_api_gateway_logging_role: bool = False
    """False: the stack sets the account's API Gateway CloudWatch role (account-wide, kept on deletion). True: the
    account already has one (`make preflight` checks it), the stack leaves it alone. Set it on all but one
    leaderboard of a stack."""
    powertools_layer_arn: str | None = None
    """None: the Powertools layer's ARN is read from AWS's public SSM parameter at deploy time."""
    domain_name: str | None = None
    """The dashboard's own domain name (e.g. "scores.example.com") for its CloudFront distribution, with
    `certificate_arn`; CloudFront then requires TLS 1.2 or newer (TLSv1.2_2021). Point the name at the
    distribution (a CNAME or a Route 53 alias) yourself. None: CloudFront's default *.cloudfront.net name."""
    certificate_arn: str | None = None
    """An ACM certificate in us-east-1 (CloudFront's region) that covers `domain_name`."""
    cloudfront_prefix_list_id: str | None = None
    """The id of CloudFront's origin-facing managed prefix list (com.amazonaws.global.cloudfront.origin-facing) in
    the stack's region, which alone may reach the dashboard's port. None: the id from the construct's table
    (regions.py), which has 17 of the 33 regions with VPC origins: in the others this prop is required (a concrete
    region fails `cdk synth` without it; an env-agnostic template's Rules stop the deploy and say so)."""
    availability_zone_id: str | None = None
    """The AZ ID (e.g. "use1-az2", not a zone name) of the subnet of the construct's own VPC. None: the region's
    az1 (regions.py), as CloudFront offers VPC origins in every zone of the 33 regions that have them but use1-az3,
    usw1-az2, apne1-az3 and cac1-az3 (refused here). With `existing_vpc` the subnets are yours: their zones must be
    ones with VPC origins (not checked at synth)."""
    period_retention_days: int = 35
    """Daily and weekly entries are deleted by TTL this many days after their period ends."""
    archive_retention_days: int = 365
    """How long a deleted board's evidence (its logs and closing summaries, docs/PROVING.md "Deleted boards") stays
    served at its generation's URLs after the deletion; then its archive record expires by TTL."""
    log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH
    """How long the functions', the API's access and the dashboard's log groups keep their events."""
    lambda_memory_mb: int = 256
    """Memory of every function (MB); Lambda gives CPU in proportion."""
    dashboard: bool = True
    """False: API and tables only (no VPC, no instance, no dashboard distribution; the edge stays)."""
    edge: bool = True
    """A CloudFront distribution in front of the API's public reads (output EdgeUrl): each answer kept as long as
    its Cache-Control says (the route table). False: readers call the API itself, every read a Lambda call."""
    boards: Sequence[Board] = ()
    """Boards that exist as soon as the stack is deployed."""
    max_boards: int = limits.DEFAULT_MAX_BOARDS
    """Boards that POST /leaderboards may create (those being deleted count until purged; declared boards and the
    built-in one do not): beyond it a create answers 409. A cost bound: each board is a row of GET /leaderboards
    and of the dashboard's picker. At most 10,000."""
    table_overrides: Mapping[str, Any] = field(default_factory=dict)
    """Escape hatch: CloudFormation properties set on the tables the stack makes (`add_property_override`, not on
    an `existing_*` table), e.g. {"TableClass": "STANDARD_INFREQUENT_ACCESS"}."""
    function_overrides: Mapping[str, Any] = field(default_factory=dict)
    """Escape hatch: CloudFormation properties set on every function, e.g. {"Timeout": 10}."""

    def __post_init__(self) -> None:
        for name, group in GROUPS.items():
            if not isinstance(getattr(self, name), group):
                raise TypeError(f"{name} must be {group.__name__}(...)")
        if any(not isinstance(board, Board) for board in self.boards):
            raise TypeError("boards must be Board(...) declarations")
        known = {f.name for f in routes.FUNCTIONS}
        unknown = sorted(set(self.reserved_concurrency) - known)
        if unknown:
            raise ValueError(f"reserved_concurrency names unknown functions: {', '.join(unknown)}")
        if any(not isinstance(n, int) or n < 1 for n in self.reserved_concurrency.values()):
            raise ValueError("reserved_concurrency values must be integers >= 1 (leave a function out for none)")
        if (
            isinstance(self.max_boards, bool)
            or not isinstance(self.max_boards, int)
            or not (1 <= self.max_boards <= limits.MAX_MAX_BOARDS)
        ):
            raise ValueError(f"max_boards must be an integer from 1 to {limits.MAX_MAX_BOARDS:,}")
        self._check_existing_resources()
        adopted = self.existing_digest_key_secret
        if adopted is not None and not (
            _SECRET_COMPLETE_ARN.fullmatch(adopted) if adopted.startswith("arn:") else _SECRET_NAME.fullmatch(adopted)
        ):
            raise ValueError(
                "existing_digest_key_secret must be a secret's complete ARN (arn:aws:secretsmanager:REGION:ACCOUNT:"
                f"secret:NAME-AbCdEf, as describe-secret shows it) or its name: {adopted!r}"
            )
        if (self.domain_name is None) != (self.certificate_arn is None):
            raise ValueError("domain_name and certificate_arn go together: set both or neither")
        if self.domain_name is not None and not _DOMAIN.fullmatch(self.domain_name):
            raise ValueError(f"domain_name is not a domain name: {self.domain_name!r}")
        if self.certificate_arn is not None and not _US_EAST_1_CERTIFICATE.fullmatch(self.certificate_arn):
            raise ValueError(
                f"certificate_arn must be an ACM certificate in us-east-1 (CloudFront's): {self.certificate_arn!r}"
            )

    def _check_existing_resources(self) -> None:
        """What can be told of the `existing_*` resources before synth (tables.py checks a Table's schema at it)."""
        vpc = self.existing_vpc
        if vpc is not None and not hasattr(vpc, "vpc_id"):
            raise TypeError(f"existing_vpc must be an ec2.IVpc (e.g. ec2.Vpc.from_lookup(...)), got {vpc!r}")
        if self.availability_zone_id is not None:
            problem = zone_id_problem(self.availability_zone_id)
            if problem:
                raise ValueError(problem)
            if vpc is not None:
                raise ValueError("availability_zone_id places the construct's own VPC: with existing_vpc leave it out")
        if self.existing_vpc is not None and not self.dashboard:
            raise ValueError("existing_vpc is the dashboard's: with dashboard=False nothing uses it (leave it out)")
        for name in ("existing_scores_table", "existing_snapshots_table"):
            table = getattr(self, name)
            if table is not None and not hasattr(table, "table_arn"):
                raise TypeError(f"{name} must be a dynamodb.ITable (e.g. Table.from_table_attributes(...)): {table!r}")
        scores = self.existing_scores_table
        if scores is not None and scores.table_stream_arn is None:
            raise ValueError(
                "existing_scores_table has no stream ARN, and the rank counters and live updates read its stream "
                "(NEW_AND_OLD_IMAGES): import it with Table.from_table_attributes(table_arn=..., "
                "table_stream_arn=...), or pass a Table made with stream=StreamViewType.NEW_AND_OLD_IMAGES"
            )
        if self.table_overrides and scores is not None and self.existing_snapshots_table is not None:
            raise ValueError("table_overrides apply to the tables the stack makes, and both tables are existing_*")

    @property
    def is_prod(self) -> bool:
        return self.production

    @property
    def effective_removal_policy(self) -> RemovalPolicy:
        """What is retained is retained except on create (CloudFormation's RetainExceptOnCreate): a first create
        that rolls back deletes what it made instead of leaving orphans that block the next try by their names."""
        policy = self.removal_policy
        if policy is None:
            policy = RemovalPolicy.RETAIN if self.is_prod else RemovalPolicy.DESTROY
        return RemovalPolicy.RETAIN_ON_UPDATE_OR_DELETE if policy == RemovalPolicy.RETAIN else policy

    @property
    def effective_monitoring_level(self) -> str:
        if self.monitoring.level is not None:
            return self.monitoring.level
        return "full" if self.is_prod else "essential"

    @property
    def effective_waf_limit(self) -> int | None:
        """The WAF's reads per 5 minutes per client, or None for no WAF."""
        waf = self.waf
        on = waf.enabled if waf.enabled is not None else (self.is_prod or waf.requests_per_5_minutes_per_ip is not None)
        return (waf.requests_per_5_minutes_per_ip or DEFAULT_WAF_READS_PER_5_MINUTES) if on else None

    @property
    def effective_live_waf_limit(self) -> int | None:
        """The Event API's WAF: WebSocket connects per 5 minutes per address, or None for no web ACL there."""
        on = self.live.waf if self.live.waf is not None else self.effective_waf_limit is not None
        return self.live.connects_per_5_minutes_per_ip if on and self.live.enabled else None

    @property
    def simulator_enabled(self) -> bool:
        return (not self.is_prod) if self.enable_simulator is None else self.enable_simulator

    @classmethod
    def from_context(cls, stage: str, overrides: dict[str, Any] | None) -> LeaderboardProps:
        """Props from cdk.json's `stages.<stage>` context block (plain JSON values)."""
        values = dict(overrides or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown leaderboard props in context for stage {stage}: {', '.join(unknown)}")
        if "removal_policy" in values:
            values["removal_policy"] = RemovalPolicy[values["removal_policy"].upper()]
        if "log_retention" in values:
            values["log_retention"] = logs.RetentionDays[values["log_retention"].upper()]
        values["boards"] = tuple(Board(**board) for board in values.get("boards", ()))
        if values.get("reserved_concurrency") is None and "reserved_concurrency" in values:
            values["reserved_concurrency"] = {}
        for name, group in GROUPS.items():  # a JSON object for a group: {"throttles": {"game_key_rate_limit": 50}}
            if isinstance(values.get(name), Mapping):
                values[name] = group(**values[name])
        return cls(stage=stage, **values)
