"""Errors that map to an HTTP status; anything else is a 500 with no details."""


class ApiError(Exception):
    status = 500
    retry_after: int | None = None  # seconds: answered as a Retry-After header

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    @property
    def details(self) -> dict:
        """Fields the error's JSON answer carries beside "error"."""
        return {}


class BadRequest(ApiError):
    status = 400


class BrokenRule(BadRequest):
    """Of the OpenAPI document's shape, refused by a rule it states in words because JSON Schema cannot (two fields
    compared, items unique by one field, a signed cursor, a board's own bounds): 422, so that a client and a fuzzer
    can tell it from a malformed request (400). A BadRequest still wherever refused input is handled."""

    status = 422


class Unauthorized(ApiError):
    """No valid credentials: a bearer token that is missing, malformed, altered, expired or not for this route."""

    status = 401


class Forbidden(ApiError):
    status = 403


class NotFound(ApiError):
    status = 404

    def __init__(self, message: str, extra: dict | None = None):
        super().__init__(message)
        self.extra = extra or {}

    @property
    def details(self) -> dict:
        return dict(self.extra)


class PayloadTooLarge(ApiError):
    status = 413


class Conflict(ApiError):
    status = 409


class Unprocessable(ApiError):
    status = 422


class Implausible(Unprocessable):
    """A board's plausibility rule with action reject refused the score (plausibility.py)."""

    def __init__(self, message: str, rule: str):
        super().__init__(message)
        self.rule = rule

    @property
    def details(self) -> dict:
        return {"rule": self.rule}


class TooManyRequests(ApiError):
    """A limit of the service's own (not API Gateway's throttle): the client may retry after `retry_after` s."""

    status = 429

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


class ServiceUnavailable(ApiError):
    status = 503


class TransactionBusy(ServiceUnavailable):
    """DynamoDB cancelled a transaction because another one was in progress on one of its items
    (TransactionConflict): nothing of it was written, and the same request may simply be sent again."""

    retry_after = 1

    def __init__(self, what: str):
        super().__init__(f"another write was in progress on {what}; nothing was changed, retry in a second")
