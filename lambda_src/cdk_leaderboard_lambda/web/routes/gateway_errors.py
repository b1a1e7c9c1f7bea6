"""The errors API Gateway itself answers, before a handler runs."""

from __future__ import annotations

from dataclasses import dataclass


# Errors that API Gateway itself answers before a handler runs. The CDK stack turns
# them into gateway responses and the local gateway answers them the same way.
@dataclass(frozen=True)
class GatewayError:
    status: int
    message: str


INVALID_API_KEY = GatewayError(403, "Forbidden: this route needs a valid x-api-key header")
UNKNOWN_ROUTE = GatewayError(404, "Not found: no such route")
METHOD_NOT_ALLOWED = GatewayError(405, "Method not allowed on this route")
# API Gateway's own message for a throttled request, through the deployed document's DEFAULT_4XX response.
THROTTLED = GatewayError(429, "Too Many Requests")


# API Gateway's request validator on a required header that is absent or blank (it looks at nothing else): the
# bearer routes' Authorization is the only request parameter the stack makes it require (query parameters are the
# function's to check: tests/infra/test_stack.py), so its BAD_REQUEST_PARAMETERS response always means "no
# credential" and answers as RFC 6750 asks, 401 with WWW-Authenticate, before anything is invoked.
MISSING_CREDENTIALS = GatewayError(401, "Unauthorized: this route needs an Authorization: Bearer <token> header")
BEARER_CHALLENGE = ("WWW-Authenticate", "Bearer")
