"""API Gateway REST (v1) proxy events and results, as AWS sends and expects them.

The model is chalice's local.py: turn an HTTP request into the event the Lambda
would receive, and the handler's result back into an HTTP response.
"""

from __future__ import annotations

import base64
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # decoded, without query string or trailing slash
    query: list[tuple[str, str]]  # decoded, in order; keys may repeat
    headers: list[tuple[str, str]]  # as sent; names may repeat
    body: bytes | None
    source_ip: str = "127.0.0.1"
    request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    def header(self, name: str) -> str | None:
        """The last value of a header, matched case-insensitively (like API Gateway)."""
        name = name.lower()
        values = [v for k, v in self.headers if k.lower() == name]
        return values[-1] if values else None


def _single_and_multi(pairs: list[tuple[str, str]]) -> tuple[dict | None, dict | None]:
    if not pairs:
        return None, None
    multi: dict[str, list[str]] = {}
    for k, v in pairs:
        multi.setdefault(k, []).append(v)
    return {k: vs[-1] for k, vs in multi.items()}, multi  # API Gateway keeps the last value


def build_event(
    req: Request,
    resource: str,
    path_params: dict[str, str],
    stage: str,
    api_key: str | None,
    api_key_id: str | None = None,
) -> dict:
    """The event for `req` matched to `resource` (the route's path template, e.g. /leaderboards/{board})."""
    headers, multi_headers = _single_and_multi(req.headers)
    query, multi_query = _single_and_multi(req.query)
    body, is_b64 = None, False
    if req.body:
        try:
            body = req.body.decode("utf-8")
        except UnicodeDecodeError:
            body, is_b64 = base64.b64encode(req.body).decode("ascii"), True
    now = datetime.now(UTC)
    return {
        "resource": resource,
        "path": req.path,
        "httpMethod": req.method,
        "headers": headers,
        "multiValueHeaders": multi_headers,
        "queryStringParameters": query,
        "multiValueQueryStringParameters": multi_query,
        "pathParameters": path_params or None,
        "stageVariables": None,
        "body": body,
        "isBase64Encoded": is_b64,
        "requestContext": {
            "accountId": "000000000000",
            "apiId": "local",
            "resourceId": "local",
            "resourcePath": resource,
            "httpMethod": req.method,
            "path": f"/{stage}{req.path}",
            "stage": stage,
            "protocol": "HTTP/1.1",
            "requestId": req.request_id,
            "extendedRequestId": req.request_id,
            "requestTime": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "requestTimeEpoch": int(now.timestamp() * 1000),
            "domainName": (headers or {}).get("Host", "localhost"),
            # apiKey and apiKeyId: the key API Gateway checked (keyed routes only).
            "identity": {
                "sourceIp": req.source_ip,
                "userAgent": req.header("user-agent"),
                "apiKey": api_key,
                "apiKeyId": api_key_id,
            },
        },
    }


@dataclass
class LambdaContext:
    """The attributes of the Lambda context object that handlers (and Powertools) read."""

    function_name: str
    aws_request_id: str
    timeout_seconds: int
    memory_limit_in_mb: int = 256
    function_version: str = "$LATEST"

    def __post_init__(self) -> None:
        self._deadline = time.monotonic() + self.timeout_seconds
        self.invoked_function_arn = f"arn:aws:lambda:us-east-1:000000000000:function:{self.function_name}"
        self.log_group_name = f"/aws/lambda/{self.function_name}"
        self.log_stream_name = "local"

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self._deadline - time.monotonic()) * 1000))


class MalformedResult(Exception):
    """The handler returned something API Gateway would answer with a 502."""


def http_response(result) -> tuple[int, list[tuple[str, str]], bytes]:
    """A proxy result as (status, headers, body); headers and multiValueHeaders merged like API Gateway."""
    if not isinstance(result, dict) or not isinstance(result.get("statusCode"), int):
        raise MalformedResult(f"not a proxy result: {str(result)[:200]}")
    multi = result.get("multiValueHeaders") or {}
    headers = [(k, str(v)) for k, v in (result.get("headers") or {}).items() if k not in multi]
    headers += [(k, str(v)) for k, vs in multi.items() for v in vs]
    body = result.get("body") or ""
    if not isinstance(body, str):
        raise MalformedResult("body must be a string")
    payload = base64.b64decode(body) if result.get("isBase64Encoded") else body.encode("utf-8")
    return result["statusCode"], headers, payload
