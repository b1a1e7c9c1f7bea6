"""API Gateway's throttles, as the synthesized template sets them, for the local gateway.

API Gateway meters a request with token buckets (a bucket holds `burst` tokens and refills at `rate` per second; a
request takes one or is a 429): first the per-key bucket of the usage plan the request's API key belongs to (keyed
methods only), then the method's bucket in the stage (its own method setting, else the stage's default `/*` `*`),
which all callers of the method share. Each method has its own bucket, so callers of different methods never take
each other's tokens ("Throttle requests to your REST APIs", API Gateway developer guide: the usage plan's per-client
limits apply before the stage's per-method ones).

The buckets come from the template's AWS::ApiGateway::Stage MethodSettings and AWS::ApiGateway::UsagePlan Throttle:
the local gateway and the deployed API cannot disagree (tests/integration/test_route_buckets.py compares them).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

STAGE_TYPE, PLAN_TYPE = "AWS::ApiGateway::Stage", "AWS::ApiGateway::UsagePlan"
ANY = ("*", "/*")  # the stage's default method setting: HttpMethod "*" on ResourcePath "/*"


@dataclass(frozen=True)
class Limit:
    rate: float  # tokens per second
    burst: int  # the bucket's size


@dataclass(frozen=True)
class Throttles:
    """The template's throttles: the stage's default, each method's own, and each key class's usage plan."""

    stage: Limit | None
    methods: Mapping[tuple[str, str], Limit]  # (method, route path, e.g. /leaderboards/{board}/scores) -> limit
    plans: Mapping[str, Limit]  # access class (routes.GAME, routes.ADMIN) -> per-key limit

    def method_limit(self, method: str, path: str) -> Limit | None:
        return self.methods.get((method, path), self.stage)


def _limit(rate, burst) -> Limit | None:
    return None if rate is None or burst is None else Limit(float(rate), int(burst))


def _path(resource_path: str) -> str:
    """A method setting's ResourcePath (`/~1leaderboards~1{board}`: the path with "/" escaped as ~1) as a path."""
    return resource_path[1:].replace("~1", "/").replace("~0", "~")


def from_template(template: dict, plan_ids: Mapping[str, str]) -> Throttles:
    """The throttles of the template's one stage and of its usage plans (`plan_ids`: access class -> the construct
    id of its plan, e.g. "GamePlan", found in the plan's logical id)."""
    stages = [r for r in template["Resources"].values() if r["Type"] == STAGE_TYPE]
    if len(stages) != 1:
        raise ValueError(f"the template has {len(stages)} API Gateway stages; the local gateway mirrors one")
    stage, methods = None, {}
    for setting in stages[0]["Properties"].get("MethodSettings", []):
        limit = _limit(setting.get("ThrottlingRateLimit"), setting.get("ThrottlingBurstLimit"))
        if limit is None:
            continue
        if (setting["HttpMethod"], setting["ResourcePath"]) == ANY:
            stage = limit
        else:
            methods[(setting["HttpMethod"], _path(setting["ResourcePath"]))] = limit
    plans = {}
    for logical_id, resource in template["Resources"].items():
        if resource["Type"] != PLAN_TYPE:
            continue
        access = next((a for a, plan_id in plan_ids.items() if plan_id in logical_id), None)
        throttle = resource["Properties"].get("Throttle") or {}
        limit = _limit(throttle.get("RateLimit"), throttle.get("BurstLimit"))
        if access is not None and limit is not None:
            plans[access] = limit
    return Throttles(stage, methods, plans)


@dataclass
class _Bucket:
    limit: Limit
    tokens: float
    at: float

    def take(self, now: float) -> bool:
        self.tokens = min(float(self.limit.burst), self.tokens + (now - self.at) * self.limit.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


@dataclass
class Throttle:
    """The buckets of one running gateway: one per method, one per API key (its plan's limit)."""

    throttles: Throttles
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[tuple[str, ...], _Bucket] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def admit(self, method: str, path: str, key_id: str | None = None, access: str | None = None) -> bool:
        """Whether a request to the route (method, path) gets a token: from its key's plan bucket (when it has a
        key of a plan), then from the method's bucket. False: API Gateway's 429."""
        with self._lock:
            now = self.clock()
            plan = self.throttles.plans.get(access) if key_id is not None and access is not None else None
            if plan is not None and not self._take(("key", key_id or ""), plan, now):
                return False
            limit = self.throttles.method_limit(method, path)
            return limit is None or self._take(("method", method, path), limit, now)

    def _take(self, name: tuple[str, ...], limit: Limit, now: float) -> bool:
        bucket = self._buckets.get(name)
        if bucket is None:
            bucket = self._buckets[name] = _Bucket(limit, float(limit.burst), now)
        return bucket.take(now)

    def tokens(self, method: str, path: str) -> float | None:
        """The tokens left in a method's bucket (None: not used yet, so full)."""
        with self._lock:
            bucket = self._buckets.get(("method", method, path))
            return None if bucket is None else bucket.tokens
