"""Everything a user of the construct may set, each with a default; and the typed board declarations."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs

from .paths import routes
from .runtime.leaderboard.boards import parse_new_board
from .runtime.leaderboard.errors import BadRequest
from .runtime.leaderboard.limits import DEFAULT_MAX_BOARDS, MAX_MAX_BOARDS

# Upper bounds on each function's concurrency: a cost bound per function, and isolation (a flood of anonymous
# reads cannot take the concurrency that score submissions need). Lambda keeps 100 of the account's quota
# unreserved, so an account needs a quota of at least 100 + the sum (`make preflight` checks it).
DEFAULT_RESERVED_CONCURRENCY: Mapping[str, int] = {
    "score-submit": 20,
    "leaderboard-query": 20,
    "player-stats": 10,
    "leaderboard-snapshot": 2,
    "score-simulator": 2,
    "leaderboard-admin": 5,
    # One invocation per stream shard and parallelization slot (2): 5 covers a table of a few partitions.
    "rank-counter": 5,
    # The schedule's runs are minutes apart; one at a time is all a closing needs.
    "period-closer": 1,
    # Client messages are a few small requests each; one push per board period and second at most.
    "live-connections": 10,
    "live-broadcaster": 5,
}

_DOMAIN = re.compile(r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}")
_US_EAST_1_CERTIFICATE = re.compile(r"arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate/[0-9a-f-]{36}")
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")  # a typo here would mean alarms that reach nobody


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
    max_score: int | None = None
    """None: the largest integer a JSON number carries exactly."""
    shards: int = 1
    """Rank index partitions per board period: more for boards that take more writes per second than one takes."""

    def __post_init__(self) -> None:
        try:
            parse_new_board(self.as_body(), created_at=None)
        except BadRequest as error:
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
    simulator is off and CORS allows only the dashboard's origin. Nothing is inferred from the stage's name."""
    removal_policy: RemovalPolicy | None = None
    """None: DESTROY outside production, RETAIN in production (tables, log groups, secrets). RETAIN is applied as
    RETAIN_ON_UPDATE_OR_DELETE (DeletionPolicy RetainExceptOnCreate): a first create that rolls back leaves nothing."""
    instance_type: str = "t4g.nano"
    """The dashboard's instance. Graviton nano (0.5 GiB): the dashboard is static files and a proxy; first boot
    adds a 1 GiB swap file so that dnf fits. About 3 USD/month."""
    vpc: ec2.IVpc | None = None
    """An existing VPC for the dashboard's instance (it needs a public subnet). None: a small public-only VPC of its
    own (one AZ, no NAT gateway)."""
    cors_origins: Sequence[str] | None = None
    """None: any origin outside production; in production only the dashboard's own (HTTPS) origin."""
    throttle_rate_limit: float = 50.0
    """Default throttle of every API method (each method has its own bucket), requests/s."""
    throttle_burst_limit: int = 100
    public_read_rate_limit: float = 25.0
    """Anonymous reads get their own, lower per-method throttle (requests/s)."""
    public_read_burst_limit: int = 50
    live_rate_limit: float = 25.0
    """The WebSocket API (live updates): new connections and client messages per second, stage-wide."""
    live_burst_limit: int = 50
    game_key_rate_limit: float = 50.0
    """Per API key (usage plans): the game-server key submits scores, the admin key manages boards, snapshots and
    the simulator. Each key is refused on the other key's routes."""
    game_key_burst_limit: int = 100
    game_key_daily_quota: int = 1_000_000
    admin_key_rate_limit: float = 5.0
    admin_key_burst_limit: int = 10
    admin_key_daily_quota: int = 10_000
    enable_simulator: bool | None = None
    """None: on outside production, off in production."""
    reserved_concurrency: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_RESERVED_CONCURRENCY))
    """Reserved concurrency per function name; a function left out has none. {} reserves nothing."""
    waf_requests_per_5_minutes_per_ip: int | None = None
    """None: no WAF. A number: a regional web ACL on the API stage that blocks an IP address sending more than
    this many requests in 5 minutes (about 6 USD/month, see README)."""
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
    """None: CloudFront's origin-facing managed prefix list id from the region table in dashboard.py."""
    period_retention_days: int = 35
    """Daily and weekly entries are deleted by TTL this many days after their period ends."""
    log_retention: logs.RetentionDays = logs.RetentionDays.ONE_MONTH
    lambda_memory_mb: int = 256
    dashboard: bool = True
    """False: API and tables only (no VPC, no instance, no dashboard distribution; the edge stays)."""
    edge: bool = True
    """A CloudFront distribution in front of the API's public reads (output EdgeUrl): each answer kept as long as
    its Cache-Control says (the route table). False: readers call the API itself, every read a Lambda call."""
    boards: Sequence[Board] = ()
    """Boards that exist as soon as the stack is deployed."""
    max_boards: int = DEFAULT_MAX_BOARDS
    """Boards that POST /leaderboards may create (those being deleted count until purged; declared boards and the
    built-in one do not): beyond it a create answers 409. A cost bound: each board is a row of GET /leaderboards
    and of the dashboard's picker. At most 10,000."""
    monitoring: bool = True
    """False: no alarms, alarm topic or CloudWatch dashboard (see README's cost table for what they cost)."""
    monitoring_level: str | None = None
    """"full": every alarm, the CloudWatch operations dashboard and a KMS key for the alarm topic (about 8.30
    USD/month). "essential": only the alarms that page on what players feel or what is lost (API 5xx rate and p99
    latency, rank counters behind, a stream batch given up on, the instance down: 6 alarm metrics, 0.60 USD), no
    dashboard, the topic TLS-only without a key of its own. None: "full" in production, "essential" otherwise."""
    alarm_email: str | None = None
    """Every alarm notifies one SNS topic; this address gets an e-mail subscription (AWS asks it to confirm)."""
    table_overrides: Mapping[str, Any] = field(default_factory=dict)
    """Escape hatch: CloudFormation properties set on both tables (`add_property_override`), e.g.
    {"TableClass": "STANDARD_INFREQUENT_ACCESS"}."""
    function_overrides: Mapping[str, Any] = field(default_factory=dict)
    """Escape hatch: CloudFormation properties set on every function, e.g. {"Timeout": 10}."""

    def __post_init__(self) -> None:
        if self.alarm_email is not None and not _EMAIL.fullmatch(self.alarm_email):
            raise ValueError(f"alarm_email is not an e-mail address: {self.alarm_email!r}")
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
            or not (1 <= self.max_boards <= MAX_MAX_BOARDS)
        ):
            raise ValueError(f"max_boards must be an integer from 1 to {MAX_MAX_BOARDS:,}")
        if self.monitoring_level not in (None, "full", "essential"):
            raise ValueError(f"monitoring_level must be 'full' or 'essential', got {self.monitoring_level!r}")
        if (self.domain_name is None) != (self.certificate_arn is None):
            raise ValueError("domain_name and certificate_arn go together: set both or neither")
        if self.domain_name is not None and not _DOMAIN.fullmatch(self.domain_name):
            raise ValueError(f"domain_name is not a domain name: {self.domain_name!r}")
        if self.certificate_arn is not None and not _US_EAST_1_CERTIFICATE.fullmatch(self.certificate_arn):
            raise ValueError(
                f"certificate_arn must be an ACM certificate in us-east-1 (CloudFront's): {self.certificate_arn!r}"
            )
        if self.waf_requests_per_5_minutes_per_ip is not None and not (
            10 <= self.waf_requests_per_5_minutes_per_ip <= 2_000_000_000
        ):
            raise ValueError("waf_requests_per_5_minutes_per_ip must be between 10 and 2,000,000,000 (WAF's range)")

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
        if self.monitoring_level is not None:
            return self.monitoring_level
        return "full" if self.is_prod else "essential"

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
        return cls(stage=stage, **values)
