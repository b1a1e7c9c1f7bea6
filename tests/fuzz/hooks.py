"""schemathesis hooks: the rules that JSON Schema cannot state (docs/API.md and the operations' descriptions state
them in words).

A page cursor is opaque and signed by the server: no value a generator makes from the document is one the server
issued, so any is a 400 as documented. A request generated to be valid is sent without one (first pages).

It refuses min_score > max_score; a tournament window that is not a real one (a date the pattern lets through
that does not exist, or ends_at not after starts_at; that they come together and never with periods, and the
years, the document states); a reward whose first rank is after
its last; tiers sharing a name or a minimum; on an increment board (it stores totals), the rules that compare a score
with a stored one (max_improvement, max_over_leader). A generated body that the document calls valid is put right on
those points before it is sent, in every phase; bodies generated to be invalid are sent as they are.
"""

from __future__ import annotations

import schemathesis

TOURNAMENT_WINDOW = {"starts_at": "2030-01-01T00:00:00Z", "ends_at": "2030-01-08T00:00:00Z"}


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    if isinstance(case.query, dict):
        case.query.pop("cursor", None)
    if (case.method, case.path) != ("POST", "/leaderboards") or not isinstance(case.body, dict):
        return
    low, high = case.body.get("min_score"), case.body.get("max_score")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        case.body["min_score"], case.body["max_score"] = high, low
    if "starts_at" in case.body and "ends_at" in case.body:  # never with periods: the document says so
        case.body.update(TOURNAMENT_WINDOW)
    for reward in case.body.get("rewards") or []:
        if isinstance(reward, dict) and isinstance(reward.get("ranks"), list):
            reward["ranks"] = sorted(reward["ranks"])
    if case.body.get("operator") == "increment" and isinstance(case.body.get("rules"), dict):
        for rule in ("max_improvement", "max_over_leader"):
            case.body["rules"].pop(rule, None)
    if isinstance(case.body.get("tiers"), list):
        names, minimums, kept = set(), set(), []
        for tier in case.body["tiers"]:
            if tier["name"] not in names and tier["min_percentile"] not in minimums:
                names.add(tier["name"])
                minimums.add(tier["min_percentile"])
                kept.append(tier)
        case.body["tiers"] = kept
