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
THROTTLED = GatewayError(429, "Too many requests: slow down")


def missing_parameters(names: list[str] | tuple[str, ...]) -> GatewayError:
    """API Gateway's request validator on a required query parameter or header that is absent or blank (it looks
    at nothing else): a 400 before anything is invoked."""
    return GatewayError(400, f"Missing required request parameters: [{', '.join(names)}]")
