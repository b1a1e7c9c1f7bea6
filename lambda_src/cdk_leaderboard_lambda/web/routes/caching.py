"""What the edge may keep of a route's answers, and the presets the routes use."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Caching:
    """What a shared cache (the edge: CloudFront on AWS, Nginx's proxy cache locally) may do with a route's answers.

    A success is kept `max_age` seconds (0: `no-store`, never kept), and served up to `stale_seconds` past that while
    one request refreshes it; an answer whose field `settled_when[0]` has the value `settled_when[1]` (a closed
    period) can no longer change and is kept `settled_max_age` seconds. http.cache_control turns it into the header.
    """

    max_age: int = 0
    settled_max_age: int = 0
    settled_when: tuple[str, str] | None = None
    stale_seconds: int = 2

    @property
    def cacheable(self) -> bool:
        return self.max_age > 0


NO_STORE = Caching()
# Live rankings: a new score shows at the edge within max_age + stale_seconds (+ one origin round trip).
LIVE = Caching(max_age=5)
# What cannot change once written: the OpenAPI document (until a deploy), a closed period's summary. Bounded
# anyway, because an erasure rewrites snapshots and summaries: the edge shows it within this time.
SETTLED_SECONDS = 300
SETTLED = Caching(max_age=SETTLED_SECONDS)
# A closed period is settled; an open one is live (GET .../periods/{period_id} answers both).
PERIOD = Caching(max_age=LIVE.max_age, settled_max_age=SETTLED_SECONDS, settled_when=("status", "closed"))
# The public keys (JWKS): a rotation's new key shows within a minute (the functions re-read the key set every 5).
KEYS = Caching(max_age=60)
# The snapshot archive only grows (POST /snapshot, the period closer): a new snapshot shows within a minute.
SNAPSHOTS = Caching(max_age=60)
