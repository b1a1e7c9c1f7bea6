"""Publishing to AWS AppSync Events over HTTP (live updates): the broadcaster's one client, on AWS and locally.

AppSync's documented form (https://docs.aws.amazon.com/appsync/latest/eventapi/publish-http.html):
`POST https://<http domain>/event`, `content-type: application/json`, body
`{"channel": "/<namespace>/<part>...", "events": ["<JSON string>", ...]}` with at most 5 events, each a
stringified JSON value; authorized here with AWS IAM, a SigV4 signature for the service `appsync` in the function's
region (https://docs.aws.amazon.com/appsync/latest/eventapi/configure-event-api-auth.html). A 200 answer lists
the events AppSync took (`successful`) and refused (`failed`): a refused one is an error here too. Locally the
same request goes to the stand-in (settings.live_events_http_url), which checks the signature the same way.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import boto3
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest

SERVICE = "appsync"
MAX_EVENTS = 5  # AppSync's batch limit per publish request
TIMEOUT_SECONDS = 3.0  # one slow publish must not hold a batch (and the stream shard) for long
_ANSWER_SHOWN = 500  # characters of an error answer kept in the exception


class PublishFailed(Exception):
    """AppSync (or the local stand-in) did not take the events: a non-2xx answer, a refused event, or no answer."""

    def __init__(self, message: str, status: int | None = None):
        super().__init__(message)
        self.status = status


class LivePublisher:
    """A runtime's AppSync Events client: the Event API's HTTP URL (settings.live_events_http_url) and the
    credentials and region it signs with (the function's; locally the runner's fake ones)."""

    def __init__(self, http_url: str | None, session: boto3.Session | None = None) -> None:
        self._url = http_url
        self._session = session  # made on the first publish (only the live broadcaster publishes), then kept

    def endpoint(self) -> str:
        if not self._url:
            raise RuntimeError("LIVE_EVENTS_HTTP_URL is not set: the stack sets it on the live broadcaster")
        return self._url.rstrip("/") + "/event"

    def signed_request(self, channel: str, events: list[dict[str, Any]]) -> AWSRequest:
        """The publish request, SigV4-signed (Authorization, X-Amz-Date and, with temporary credentials,
        X-Amz-Security-Token)."""
        if not 1 <= len(events) <= MAX_EVENTS:
            raise ValueError(f"a publish carries 1 to {MAX_EVENTS} events, not {len(events)}")
        body = json.dumps(
            {"channel": channel, "events": [json.dumps(e, separators=(",", ":")) for e in events]},
            separators=(",", ":"),
        ).encode()
        request = AWSRequest(
            method="POST", url=self.endpoint(), data=body, headers={"content-type": "application/json"}
        )
        if self._session is None:
            self._session = boto3.Session()
        credentials = self._session.get_credentials()
        if credentials is None:
            raise RuntimeError("no AWS credentials to sign the publish with")
        region = self._session.region_name
        if not region:
            raise RuntimeError("no AWS region to sign the publish for (AWS_REGION)")
        SigV4Auth(credentials.get_frozen_credentials(), SERVICE, region).add_auth(request)
        return request

    def publish(self, channel: str, events: list[dict[str, Any]]) -> None:
        """Publish `events` (JSON objects, at most 5) to `channel`; raises PublishFailed unless AppSync took them
        all."""
        signed = self.signed_request(channel, events)
        request = urllib.request.Request(signed.url, data=signed.body, headers=dict(signed.headers), method="POST")
        if urlsplit(signed.url).scheme not in ("https", "http"):  # urllib would also open file: and ftp: URLs
            raise RuntimeError(f"LIVE_EVENTS_HTTP_URL must be an http(s) URL, not {signed.url!r}")
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:  # noqa: S310 (scheme checked)
                text = answer.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as err:
            text = err.read().decode("utf-8", "replace")[:_ANSWER_SHOWN]
            raise PublishFailed(f"publish to {channel} answered {err.code}: {text}", err.code) from err
        except (urllib.error.URLError, TimeoutError, OSError) as err:
            raise PublishFailed(f"publish to {channel} got no answer: {err}") from err
        try:
            failed = json.loads(text).get("failed") if text else None
        except (ValueError, AttributeError):
            failed = None
        if failed:
            raise PublishFailed(
                f"publish to {channel}: AppSync refused events {json.dumps(failed)[:_ANSWER_SHOWN]}", 200
            )
