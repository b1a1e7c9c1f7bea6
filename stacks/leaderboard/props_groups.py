"""The grouped props: throttles, monitoring, live updates and the WAF, each a frozen dataclass whose fields have
their defaults here. LeaderboardProps (props.py) holds one of each; what a default depends on (the stage being
production) is resolved in one place there, its `effective_*` properties."""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType

# The launch defaults, sized from the benchmark's model (docs/PERFORMANCE.md, "What one stack takes with default
# settings"). One board period's rank index partition (a shard) takes 1,000 write units/s, and an improving
# submission moves its entry there (2 index write units): ~500 improving submissions/s per shard and period.
SUBMISSIONS_PER_SHARD_PER_SECOND = 500
# Reads one client IP may send in 5 minutes where the WAF is on: 10/s sustained, 20x what a player polling the top
# every 2 s sends, and room for a few dozen players behind one carrier NAT.
DEFAULT_WAF_READS_PER_5_MINUTES = 3_000
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")  # a typo here would mean alarms that reach nobody


@dataclass(frozen=True, kw_only=True)
class Throttles:
    """API Gateway's throttles and quotas: the stage's, the anonymous reads' and each API key's usage plan."""

    rate_limit: float = float(SUBMISSIONS_PER_SHARD_PER_SECOND)
    """Default throttle of every API method, requests/s, for ALL callers of a method together (each method has its
    own bucket): the keyed writes' ceiling beside their key's plan, so it matches `game_key_rate_limit`."""
    burst_limit: int = 2 * SUBMISSIONS_PER_SHARD_PER_SECOND
    """The stage's burst (requests at once) beside `rate_limit`."""
    public_read_rate_limit: float = 100.0
    """Anonymous reads' own per-method throttle at the origin (requests/s, all callers of a method together): a cost
    ceiling (at most ~260 million requests, ~910 USD of API Gateway, a month per method) that the edge keeps far
    from (a cached URL costs the origin about one request per max-age and edge cache); per-player URLs miss the
    cache, so raise it with the players who look themselves up each second."""
    public_read_burst_limit: int = 200
    """The anonymous reads' burst beside `public_read_rate_limit`."""
    game_key_rate_limit: float = float(SUBMISSIONS_PER_SHARD_PER_SECOND)
    """Per API key (usage plans): the game-server key submits scores, the admin key manages boards, snapshots and
    the simulator. Each key is refused on the other key's routes. The game key's default is what one board period
    takes on one shard (~500 improving submissions/s, see SUBMISSIONS_PER_SHARD_PER_SECOND); raise it with shards.
    The token routes (players' devices, no key) get the same per-method throttle."""
    game_key_burst_limit: int = 2 * SUBMISSIONS_PER_SHARD_PER_SECOND
    """The game key's burst beside `game_key_rate_limit`."""
    game_key_daily_quota: int = 20_000_000
    """Submissions a day (a leaked key's cost bound): 231/s on average, 11 hours at the full rate."""
    admin_key_rate_limit: float = 5.0
    """The admin key's usage plan (operators and the dashboard), requests/s."""
    admin_key_burst_limit: int = 10
    """The admin key's burst beside `admin_key_rate_limit`."""
    admin_key_daily_quota: int = 10_000
    """Admin requests a day."""


@dataclass(frozen=True, kw_only=True)
class Monitoring:
    """The alarms, the one SNS topic they notify and the CloudWatch operations dashboard."""

    enabled: bool = True
    """False: no alarms, alarm topic or CloudWatch dashboard (see README's cost table for what they cost)."""
    level: str | None = None
    """"full": every alarm, the CloudWatch operations dashboard and a KMS key for the alarm topic (about 8.60
    USD/month). "essential": only the alarms that page on what players feel or what is lost (API 5xx rate and p99
    latency, rank counters behind, a rank-counter batch given up on, the live key not renewed, the instance down: 6
    alarm metrics, 0.60 USD), no dashboard, the topic TLS-only without a key of its own. None: "full" in production,
    "essential" otherwise."""
    alarm_email: str | None = None
    """Every alarm notifies one SNS topic; this address gets an e-mail subscription (AWS asks it to confirm)."""

    def __post_init__(self) -> None:
        if self.alarm_email is not None and not _EMAIL.fullmatch(self.alarm_email):
            raise ValueError(f"alarm_email is not an e-mail address: {self.alarm_email!r}")
        if self.level not in (None, "full", "essential"):
            raise ValueError(f"monitoring level must be 'full' or 'essential', got {self.level!r}")


@dataclass(frozen=True, kw_only=True)
class Live:
    """Live updates through AppSync Events: subscribers connect with short-lived live subscribe tokens (POST
    /leaderboards/{board}/scores) that a Lambda authorizer counts; a spend alarm and a kill switch."""

    enabled: bool = True
    """False: no live updates. No AppSync Event API, subscribe key or key renewal schedule, no live-broadcaster
    stream mapping or failure queue (the scores stream has one reader, the rank counters), no live statements on
    the shared role, no live alarms or graphs. Discovery (GET /leaderboards/{board}) has no `live` field and the
    dashboard polls; the construct's `live_api` and `live_url` are None. Turning it off or on again is an update."""
    api_key_generation: int = 1
    """Raise it to replace the API key AppSync made with the Event API (a new key, the old one deleted). The key
    admits nothing since subscribers connect with live subscribe tokens (docs/SECURITY.md, "Live updates")."""
    hourly_budget_usd: float = 2.0
    """The LiveSpend alarm's threshold: what AppSync Events' connection-minutes and operations (deliveries,
    connects) cost an hour, modelled from the Event API's metrics at list price, for 15 minutes in a row
    (docs/OPERATIONS.md, "Live spend and the kill switch"). 2 USD/hour is about 550 viewers of a board that changes
    every second; raise it for a larger audience."""
    waf: bool | None = None
    """A regional WAF web ACL on the Event API with a per-address rate rule on WebSocket connects (about 6 USD/month
    idle, plus 0.60 USD per million requests). None: as the REST API's WAF (`Waf(enabled=...)`: on in production,
    off in dev for its cost)."""
    connects_per_5_minutes_per_ip: int = 300
    """WebSocket connects (HTTP requests to the real-time endpoint) one address may make in 5 minutes before the
    Event API's WAF blocks it; publishes (the broadcaster's POST /event) are not counted."""

    def __post_init__(self) -> None:
        if not isinstance(self.enabled, bool):
            raise ValueError(f"live enabled must be true or false: {self.enabled!r}")
        if self.waf is not None and not isinstance(self.waf, bool):
            raise ValueError(f"live waf must be true, false or null: {self.waf!r}")
        connects = self.connects_per_5_minutes_per_ip
        if isinstance(connects, bool) or not isinstance(connects, int) or not 10 <= connects <= 2_000_000_000:
            raise ValueError("live connects_per_5_minutes_per_ip must be between 10 and 2,000,000,000 (WAF's range)")
        if isinstance(self.api_key_generation, bool) or not (
            isinstance(self.api_key_generation, int) and 1 <= self.api_key_generation <= 9999
        ):
            raise ValueError("live api_key_generation must be an integer from 1 to 9999")
        budget = self.hourly_budget_usd
        if isinstance(budget, bool) or not isinstance(budget, (int, float)) or not 0.01 <= budget <= 10_000:
            raise ValueError(f"live hourly_budget_usd must be a number from 0.01 to 10000: {budget!r}")


@dataclass(frozen=True, kw_only=True)
class Waf:
    """A regional WAF web ACL on the API stage with a per-client rate limit on reads and players' devices (about
    7.40 USD/month idle with the edge's proof secret, plus 0.60 USD per million requests)."""

    enabled: bool | None = None
    """None: on in production, off outside it (a dev stage's cost), unless `requests_per_5_minutes_per_ip` is set."""
    requests_per_5_minutes_per_ip: int | None = None
    """Counted requests (GETs, bearer-token requests, requests without an API key, any request to the token and run
    routes) one client may send in 5 minutes before WAF blocks it; a client is its connecting address, or through
    the edge the viewer's address the edge wrote (trusted only with the edge's secret proof header; never
    X-Forwarded-For). None: 3,000 (DEFAULT_WAF_READS_PER_5_MINUTES) where the WAF is on. A number turns the WAF on
    unless `enabled` is False."""

    def __post_init__(self) -> None:
        if self.requests_per_5_minutes_per_ip is not None and not (
            10 <= self.requests_per_5_minutes_per_ip <= 2_000_000_000
        ):
            raise ValueError("waf requests_per_5_minutes_per_ip must be between 10 and 2,000,000,000 (WAF's range)")


GROUPS: MappingProxyType[str, type] = MappingProxyType(
    {"throttles": Throttles, "monitoring": Monitoring, "live": Live, "waf": Waf}
)
