"""SigV4 for publishes: the `leaderboard` namespace publishes with IAM only, so POST /event must carry the signature
of the local fake credentials (service appsync), which botocore computes as AppSync would."""

from __future__ import annotations

import hmac
import re
import time
from datetime import UTC, datetime

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from websockets.http11 import Request

from local.appsync_protocol import NOT_AUTHORIZED, error

SIGNATURE_MAX_AGE_SECONDS = 300  # SigV4: a request dated more than 5 minutes off is refused
_AUTHORIZATION = re.compile(
    r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/,\s]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request,"
    r"\s*SignedHeaders=(?P<signed>[a-z0-9;-]+),\s*Signature=(?P<signature>[0-9a-f]{64})"
)


def check_signature(
    credentials: Credentials, region: str, request: Request, authorization: str, body: bytes
) -> tuple[int, dict] | None:
    """None when the request carries the SigV4 signature of these credentials, else AppSync's answer."""
    parsed = _AUTHORIZATION.fullmatch(authorization.strip())
    if parsed is None:
        return 401, {"errors": [error("UnauthorizedException", NOT_AUTHORIZED)]}
    if parsed["key"] != credentials.access_key or parsed["service"] != "appsync":
        return 403, {"errors": [error("UnrecognizedClientException", "The security token included is invalid.")]}
    amz_date = request.headers.get("X-Amz-Date", "")
    try:
        signed_at = datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError:
        return 403, {"errors": [error("BadRequestException", "Missing or invalid X-Amz-Date")]}
    if abs(time.time() - signed_at.timestamp()) > SIGNATURE_MAX_AGE_SECONDS:
        return 403, {"errors": [error("BadRequestException", "Signature expired")]}
    signed = parsed["signed"].split(";")
    if "host" not in signed:
        return 403, {"errors": [error("BadRequestException", "The host header must be signed")]}
    expected = _signature(
        credentials,
        parsed["region"],
        request.path,
        {name: request.headers.get(name, "") for name in signed},
        body,
        amz_date,
    )
    if parsed["region"] != region or not hmac.compare_digest(expected, parsed["signature"]):
        return 403, {
            "errors": [
                error(
                    "BadRequestException",
                    "The request signature we calculated does not match the signature you provided. "
                    "Check your AWS Secret Access Key and signing method.",
                )
            ]
        }
    return None


def _signature(credentials: Credentials, region: str, path: str, headers: dict, body: bytes, amz_date: str) -> str:
    """The SigV4 signature (service appsync) of a request with these signed headers, computed by botocore."""
    host = headers.get("host", "")
    request = AWSRequest(method="POST", url=f"http://{host}{path}", data=body, headers=headers)
    request.context["timestamp"] = amz_date
    signer = SigV4Auth(credentials, "appsync", region)
    canonical = signer.canonical_request(request)
    return signer.signature(signer.string_to_sign(request, canonical), request)
