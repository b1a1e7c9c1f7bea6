"""The live updates' subscribe-only API key in AppSync's control plane: UpdateApiKey moves its expiry
(https://docs.aws.amazon.com/appsync/latest/APIReference/API_UpdateApiKey.html, `POST /v1/apis/{apiId}/apikeys/{id}`
with `{"expires": <epoch s>}`, 1 to 365 days from the update, else 400 ApiKeyValidityOutOfBoundsException; a key
can be updated until AppSync deletes it, 60 days after it lapsed). The same key is extended, so its value, the one
discovery hands out and every connected client holds, never changes.

On AWS the client talks to AppSync's endpoint with the function's role; locally and in tests to the AppSync Events
stand-in (settings.live_events_admin_endpoint), which serves the same operation, signature check included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError


class KeyRenewalFailed(Exception):
    """AppSync did not take the new expiry: `code` is its error code (ApiKeyValidityOutOfBoundsException,
    NotFoundException, AccessDeniedException...) or None when there was no answer."""

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


def new_client(endpoint_url: str | None = None) -> Any:
    """An AppSync client: AWS's endpoint, or a stand-in's (local runs and tests only)."""
    return boto3.client(
        "appsync", endpoint_url=endpoint_url, config=Config(retries={"mode": "standard", "max_attempts": 3})
    )


class AppSyncApiKey:
    """One API key of one AppSync API (settings.live_events_api_id, settings.live_events_api_key_id), through the
    client `make_client` gives on first use (then kept)."""

    def __init__(self, api_id: str | None, key_id: str | None, make_client: Callable[[], Any]) -> None:
        self.api_id = api_id
        self.key_id = key_id
        self._make_client = make_client
        self._client: Any = None

    def extend(self, expires: int) -> dict[str, int]:
        """Set the key's expiry to `expires` (epoch s); AppSync's answer {"expires", "deletes"} (epoch s, rounded
        down to the hour)."""
        if not self.api_id or not self.key_id:
            raise KeyRenewalFailed(
                "LIVE_EVENTS_API_ID and LIVE_EVENTS_API_KEY_ID are not set: the stack sets them on the period closer"
            )
        if self._client is None:
            self._client = self._make_client()
        try:
            answer = self._client.update_api_key(apiId=self.api_id, id=self.key_id, expires=expires)
        except ClientError as err:
            error = err.response.get("Error", {})
            code = error.get("Code")
            raise KeyRenewalFailed(f"AppSync refused the new expiry: {code}: {error.get('Message')}", code) from err
        except BotoCoreError as err:
            raise KeyRenewalFailed(f"AppSync did not answer the renewal: {err}") from err
        key = answer.get("apiKey") or {}
        return {"expires": int(key.get("expires", 0)), "deletes": int(key.get("deletes", 0))}
