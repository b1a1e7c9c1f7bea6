"""schemathesis hooks: the one rule of the API that JSON Schema cannot state.

POST /leaderboards refuses min_score > max_score (the OpenAPI document says so in words). A generated
body that the document calls valid gets its bounds put in order before it is sent, in every phase;
bodies generated to be invalid are sent as they are.
"""

from __future__ import annotations

import schemathesis


@schemathesis.hook
def before_call(ctx, case, **kwargs):
    if (case.method, case.path) != ("POST", "/leaderboards") or not isinstance(case.body, dict):
        return
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    low, high = case.body.get("min_score"), case.body.get("max_score")
    if isinstance(low, int) and isinstance(high, int) and low > high:
        case.body["min_score"], case.body["max_score"] = high, low
