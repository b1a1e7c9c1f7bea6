"""The stand-in's API key, with AppSync's expiry rules, and the one control-plane operation the stack calls on it.

AppSync (https://docs.aws.amazon.com/appsync/latest/APIReference/API_ApiKey.html, API_UpdateApiKey.html): a key
created without an expiry expires 7 days later; `expires` is epoch seconds rounded down to the hour; CreateApiKey
and UpdateApiKey take 1 to 365 days ahead, else HTTP 400 `ApiKeyValidityOutOfBoundsException`; an expired key is
refused (modelled as a wrong key is: `UnauthorizedException`, AWS documents no other answer) and deleted 60 days
after it expired (`deletes`), after which UpdateApiKey answers 404 `NotFoundException`. The control plane speaks
restJson: `POST /v1/apis/{apiId}/apikeys/{id}` with `{"expires"}`, SigV4 for the service `appsync`, answered
`{"apiKey": {"id", "description", "expires", "deletes"}}`, errors as `{"message"}` with the code in
`x-amzn-ErrorType` (what botocore reads). The stand-in serves it on its one port: the functions' AppSync client is
pointed there (LIVE_EVENTS_ADMIN_ENDPOINT), as their Secrets Manager client is pointed at moto's server. Not
modelled: connections already open when the key lapses (AWS does not document whether it closes them).
"""

from __future__ import annotations

import http
import json
import re
import threading
import time
from collections.abc import Callable

from botocore.credentials import Credentials
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from local.appsync_signing import check_signature

HOUR, DAY = 3600, 86400
DEFAULT_DAYS = 7  # AppSync's expiry for a key created without one
MIN_DAYS, MAX_DAYS = 1, 365
DELETED_AFTER_DAYS = 60
KEY_PATH = re.compile(r"/v1/apis/(?P<api>[^/]+)/apikeys/(?P<key>[^/]+)")


class ApiKeyRecord:
    """One API key: its value, id, API and expiry, on a clock (epoch seconds) the tests may move."""

    def __init__(
        self,
        value: str,
        *,
        api_id: str = "local-events-api",
        key_id: str = "local-subscribe-key",
        expires: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.value, self.api_id, self.key_id, self.clock = value, api_id, key_id, clock
        created = int(clock())
        self.expires = _hour(expires if expires is not None else created + DEFAULT_DAYS * DAY)
        self._lock = threading.Lock()

    @property
    def deletes(self) -> int:
        return self.expires + DELETED_AFTER_DAYS * DAY

    def valid_now(self) -> bool:
        return self.clock() < self.expires

    def update(self, api_id: str, key_id: str, body: bytes) -> tuple[int, dict]:
        """UpdateApiKey's answer (status, body) to a signed request."""
        now = self.clock()
        if api_id != self.api_id:
            return 404, {"__code": "NotFoundException", "message": f"GraphQL API {api_id} not found."}
        if key_id != self.key_id or now >= self.deletes:
            return 404, {"__code": "NotFoundException", "message": f"API key {key_id} not found."}
        try:
            request = json.loads(body or b"{}")
        except ValueError:
            return 400, {"__code": "BadRequestException", "message": "Invalid JSON body"}
        expires = request.get("expires") if isinstance(request, dict) else None
        if expires is not None:
            if isinstance(expires, bool) or not isinstance(expires, int):
                return 400, {"__code": "BadRequestException", "message": "expires must be a number"}
            if expires - now < MIN_DAYS * DAY:
                return 400, {
                    "__code": "ApiKeyValidityOutOfBoundsException",
                    "message": "API key must be valid for a minimum of 1 days.",
                }
            if expires - now > MAX_DAYS * DAY:
                return 400, {
                    "__code": "ApiKeyValidityOutOfBoundsException",
                    "message": "API key can be valid for a maximum of 365 days.",
                }
            with self._lock:
                self.expires = _hour(expires)
        key = {"id": self.key_id, "description": "local subscribe key", "expires": self.expires}
        return 200, {"apiKey": {**key, "deletes": self.deletes}}


def update_key(record: ApiKeyRecord, credentials: Credentials, region: str, request: Request) -> Response:
    """AppSync's UpdateApiKey over HTTP (control plane, SigV4 for `appsync`), the key's renewal."""
    body: bytes = request.body  # type: ignore[attr-defined]
    path = KEY_PATH.fullmatch(request.path.split("?", 1)[0])
    assert path is not None  # the server routes only these paths here
    authorization = request.headers.get("Authorization")
    if authorization is None:
        return control_plane_response(403, {"__code": "UnauthorizedException", "message": "Missing Authorization"})
    refused = check_signature(credentials, region, request, authorization, body)
    if refused is not None:
        status, answer = refused
        first = answer["errors"][0]
        return control_plane_response(status, {"__code": first["errorType"], "message": first["message"]})
    return control_plane_response(*record.update(path["api"], path["key"], body))


def control_plane_response(status: int, body: dict) -> Response:
    """restJson's answer: errors carry their code in x-amzn-ErrorType, the body only the message."""
    code = body.pop("__code", None)
    data = json.dumps(body).encode()
    headers = Headers(
        [("Content-Type", "application/json"), ("Content-Length", str(len(data))), ("Connection", "close")]
    )
    if code:
        headers["x-amzn-ErrorType"] = code
    return Response(status, http.HTTPStatus(status).phrase, headers, data)


def _hour(epoch: int) -> int:
    return int(epoch) - int(epoch) % HOUR
