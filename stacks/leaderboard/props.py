"""Everything a user of the construct may set, each with a default; and the typed board declarations."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from aws_cdk import RemovalPolicy
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_logs as logs

from .paths import boards as board_rules
from .paths import errors, limits, routes

# The launch defaults, sized from the benchmark's model (docs/PERFORMANCE.md, "What one stack takes with default
# settings"). One board period's rank index partition (a shard) takes 1,000 write units/s, and an improving
# submission moves its entry there (2 index write units): ~500 improving submissions/s per shard and period.
SUBMISSIONS_PER_SHARD_PER_SECOND = 500
# Reads one client IP may send in 5 minutes where the WAF is on: 10/s sustained, 20x what a player polling the top
# every 2 s sends, and room for a few dozen players behind one carrier NAT.
DEFAULT_WAF_READS_PER_5_MINUTES = 3_000
# The live API key's expiry when the app gives none: a release of this package moves it forward (within AppSync's
# 365 days of the release). Apps deployed for longer set `live_api_key_expires` themselves.
DEFAULT_LIVE_API_KEY_EXPIRES = "2027-11-30"

_DOMAIN = re.compile(r"(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}")
_US_EAST_1_CERTIFICATE = re.compile(r"arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate/[0-9a-f-]{36}")
_ISO_DAY = re.compile(r"\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])")
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
    submissions: str = "server"
    """"server": only the game key submits; "client": players' devices too, each score with the token of a run
    (POST /players/{player_id}/tokens, then POST /leaderboards/{board}/runs)."""

    def __post_init__(self) -> None:
        try:
            board_rules.parse_new_board(self.as_body(), created_at=None)
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
    vpc: ec2.IVpc | None = None
    """An existing VPC for the dashboard's instance, with an internet gateway (CloudFront's VPC origins require one).
    The instance goes into its private subnets with egress if it has any, else into a public one. None: a small
    public-only VPC of its own (one AZ, no NAT gateway)."""
    cors_origins: Sequence[str] | None = None
    """None: any origin ("*"), but in production with a `domain_name` only https://<domain_name>. (The dashboard
    calls the API through its own same-origin proxy; the API's protection is its keys, not CORS.)"""
    throttle_rate_limit: float = float(SUBMISSIONS_PER_SHARD_PER_SECOND)
    """Default throttle of every API method, requests/s, for ALL callers of a method together (each method has its
    own bucket): the keyed writes' ceiling beside their key's plan, so it matches `game_key_rate_limit`."""
    throttle_burst_limit: int = 2 * SUBMISSIONS_PER_SHARD_PER_SECOND
    public_read_rate_limit: float = 100.0
    """Anonymous reads' own per-method throttle at the origin (requests/s, all callers of a method together): a cost
    ceiling (at most ~260 million requests, ~910 USD of API Gateway, a month per method) that the edge keeps far
    from (a cached URL costs the origin about one request per max-age and edge cache); per-player URLs miss the
    cache, so raise it with the players who look themselves up each second."""
    public_read_burst_limit: int = 200
    live_api_key_expires: str = DEFAULT_LIVE_API_KEY_EXPIRES
    """The day (ISO 8601, UTC midnight) the live updates' subscribe-only AppSync API key expires. AppSync takes 1 to
    365 days ahead at deploy time: move it forward at least once a year (an in-place update, the key stays the
    same, clients notice nothing). A fixed date, not "now + 365 days": synth gives the same template every day."""
    live_api_key_generation: int = 1
    """Raise it to rotate the subscribe-only key: the deploy makes a new key and deletes the old one; discovery
    (GET /leaderboards/{board}) hands out the new one at once, and clients that reconnect read it there."""
    game_key_rate_limit: float = float(SUBMISSIONS_PER_SHARD_PER_SECOND)
    """Per API key (usage plans): the game-server key submits scores, the admin key manages boards, snapshots and
    the simulator. Each key is refused on the other key's routes. The game key's default is what one board period
    takes on one shard (~500 improving submissions/s, see SUBMISSIONS_PER_SHARD_PER_SECOND); raise it with shards."""
    game_key_burst_limit: int = 2 * SUBMISSIONS_PER_SHARD_PER_SECOND
    game_key_daily_quota: int = 20_000_000
    """Submissions a day (a leaked key's cost bound): 231/s on average, 11 hours at the full rate."""
    admin_key_rate_limit: float = 5.0
    admin_key_burst_limit: int = 10
    admin_key_daily_quota: int = 10_000
    enable_simulator: bool | None = None
    """None: on outside production, off in production."""
    reserved_concurrency: Mapping[str, int] = field(default_factory=dict)
    """Reserved concurrency per function name (opt in, e.g. {"score-submit": 20}); a function left out has none,
    and by default none has: a new account's Lambda quota can be 10, and any reservation then fails the deploy
    (Lambda keeps 100 unreserved; `make preflight` checks the quota against what is asked here)."""
    waf: bool | None = None
    """A regional WAF web ACL on the API stage with a per-client rate limit on reads (about 7 USD/month idle plus
    0.60 USD per million requests). None: on in production, off outside it (a dev stage's cost), unless
    `waf_requests_per_5_minutes_per_ip` is set."""
    waf_requests_per_5_minutes_per_ip: int | None = None
    """Reads (GET) one client may send in 5 minutes before WAF blocks it; a client is the viewer's address
    (X-Forwarded-For, as CloudFront sends it) through the edge, the source address otherwise. None: 3,000
    (DEFAULT_WAF_READS_PER_5_MINUTES) where the WAF is on. A number turns the WAF on unless `waf` is False."""
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
    max_boards: int = limits.DEFAULT_MAX_BOARDS
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
            or not (1 <= self.max_boards <= limits.MAX_MAX_BOARDS)
        ):
            raise ValueError(f"max_boards must be an integer from 1 to {limits.MAX_MAX_BOARDS:,}")
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
        if not isinstance(self.live_api_key_expires, str) or not _ISO_DAY.fullmatch(self.live_api_key_expires):
            raise ValueError(f"live_api_key_expires must be a day such as 2027-11-30: {self.live_api_key_expires!r}")
        if isinstance(self.live_api_key_generation, bool) or not (
            isinstance(self.live_api_key_generation, int) and 1 <= self.live_api_key_generation <= 9999
        ):
            raise ValueError("live_api_key_generation must be an integer from 1 to 9999")

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
    def effective_waf_limit(self) -> int | None:
        """The WAF's reads per 5 minutes per client, or None for no WAF."""
        on = self.waf if self.waf is not None else (self.is_prod or self.waf_requests_per_5_minutes_per_ip is not None)
        return (self.waf_requests_per_5_minutes_per_ip or DEFAULT_WAF_READS_PER_5_MINUTES) if on else None

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
