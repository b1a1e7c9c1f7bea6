"""The AppSync Event API's Lambda authorizer (AWS_LAMBDA on connect and subscribe): a live subscribe token checked
and counted (live_access.authorize). A function of its own, so that what any string in a connect header invokes is
this small function, never one that takes game servers' scores; the Event API refuses a string that is not shaped
like a token before calling it (IdentityValidationExpression: live_access.TOKEN_SHAPE)."""

from __future__ import annotations

from ..composition import Handler, Runtime, entry_point
from ..operations import live_access


def handler_for(runtime: Runtime) -> Handler:
    """This function's Lambda handler, serving with `runtime` (tests and the local stack pass theirs)."""

    def authorize(event: dict, context: object = None) -> dict:
        return live_access.authorize(runtime, event)

    return entry_point(runtime, authorize)


handler = handler_for(Runtime.from_environment())  # once per cold start, from the function's environment
