"""Rotation of the two API keys and of the dashboard's admin password.

A key's value cannot change in API Gateway, and CloudFormation does not re-read a secret it resolved, so a rotation
makes a NEW key: it joins the key's usage plan, its value goes into the key's secret (AWSCURRENT; the old value becomes
AWSPREVIOUS), the rotation waits until the new key answers a keyed read through the API (API Gateway may take seconds
to honour a key just added to a usage plan), the dashboard re-reads its secrets (SSM Run Command restarts
leaderboard-secrets.service), and after a grace period (for game servers to fetch the new value) the old key leaves the
plan, so API Gateway refuses it, and its value loses the AWSPREVIOUS label, so the functions refuse it where API Gateway
checks no key (lambda_src/cdk_leaderboard_lambda/domain/api_key_classes.py). A key this tool made is then deleted; the
stack's own first key is disabled instead, since CloudFormation still owns it.

The clients, the stack's outputs and the dashboard refresh are given (`Rotator.for_stack` builds them for a
deployed stage): the local stack rotates its keys through this same code, against its stand-ins (local/keys.py).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import boto3
from cdk_leaderboard.paths import routes

from cdk_leaderboard_lambda.shared.item_keys import DEFAULT_BOARD_ID

from .outputs import require, stack_outputs

ROTATED_TAG = "leaderboard:rotated-key"  # on keys this tool creates: safe to delete later
REFRESH_COMMAND = "systemctl restart leaderboard-secrets.service"
KEY_CLASSES = {routes.GAME: "Game", routes.ADMIN: "Admin"}
PREVIOUS = "AWSPREVIOUS"
# A function instance re-reads a key class's secret for a value it does not know at most this often where API Gateway
# checks no key (lambda_src/cdk_leaderboard_lambda/domain/api_key_classes.py MIN_REFRESH_SECONDS): a rotation with a
# shorter grace returns only once that long has passed since the new value was put, so the new key works everywhere when
# it does.
NEW_KEY_PICKUP_S = 1.0
# How long a new key may take to answer before the rotation gives up (retiring nothing): API Gateway honours a key
# just added to a usage plan within seconds; the checks back off from the first delay to the longest.
NEW_KEY_TIMEOUT_S = 120.0
NEW_KEY_FIRST_DELAY_S, NEW_KEY_LONGEST_DELAY_S = 0.5, 10.0


@dataclass(frozen=True)
class KeyRead:
    """A request through the API that a key of one class opens and that changes nothing, with the answers that only
    come once API Gateway took the key (and the function knew its class): anything else (API Gateway's 403 for a key
    it does not honour yet, the function's 403 for a value it has not read yet) is asked again."""

    method: str
    path: str  # under the API's URL, query included
    body: bytes | None
    answers: frozenset[int]

    def route(self) -> routes.Route | None:
        """The route of the table this request matches (None: no route takes it)."""
        path = self.path.split("?")[0]
        return next((r for r in routes.ROUTES if r.method == self.method and r.match(path) is not None), None)


# The keyed read of each class. The admin key: the default board's hidden players (a GET; the default board always
# exists). No route of the game key reads: a player-token request for a player id the function refuses (400, its
# first check, after the key's class) passes API Gateway on the key alone (its validator checks the body, `{}`, not
# the path parameter's form) and neither reads nor writes anything, nor mints a token.
KEY_READS = {
    routes.ADMIN: KeyRead("GET", f"/leaderboards/{DEFAULT_BOARD_ID}/hidden?limit=1", None, frozenset({200})),
    routes.GAME: KeyRead("POST", "/players/key-check!/tokens", b"{}", frozenset({400})),
}


class KeyNotHonoured(Exception):
    """A new key did not answer within the time allowed: nothing was retired."""


def send_request(url: str, method: str, key: str, body: bytes | None) -> int:
    """The HTTP status of one request with `key` as its x-api-key."""
    headers = {"x-api-key": key, **({"content-type": "application/json"} if body is not None else {})}
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:  # noqa: S310 (the stack's own https URL)
            return reply.status
    except urllib.error.HTTPError as err:
        return err.code


def plan_keys(apigw, plan_id: str) -> list[dict]:
    """Every key of a usage plan (API Gateway pages them)."""
    pages = apigw.get_paginator("get_usage_plan_keys").paginate(usagePlanId=plan_id)
    return [key for page in pages for key in page.get("items", [])]


class RefreshFailed(Exception):
    pass


@dataclass
class Rotator:
    apigw: Any  # API Gateway's control plane (a boto3 client)
    secrets: Any  # Secrets Manager (a boto3 client)
    outputs: dict[str, str]  # the stack's outputs: each class's usage plan id and secret ARN, the dashboard's instance
    stack: str
    out: Callable[[str], None] = print
    wait: Callable[[float], None] = time.sleep
    refresh_timeout_s: float = 300.0
    ssm: Any = None  # for the dashboard refresh on EC2 (SSM Run Command)
    # How the dashboard re-reads its secrets; None: SSM Run Command on the stack's dashboard instance.
    refresh: Callable[[], None] | None = field(default=None)
    # How a keyed read goes through the API (url, method, key, body) -> status; None: send_request, over HTTPS.
    send: Callable[[str, str, str, bytes | None], int] | None = None
    new_key_timeout_s: float | None = None  # None: NEW_KEY_TIMEOUT_S

    @classmethod
    def for_stack(cls, session: boto3.Session, stack: str, **kwargs: Any) -> Rotator:
        """The rotator of a deployed stage: its outputs and AWS's clients."""
        return cls(
            session.client("apigateway"),
            session.client("secretsmanager"),
            stack_outputs(session, stack),
            stack,
            ssm=session.client("ssm"),
            **kwargs,
        )

    # --- API keys -------------------------------------------------------------------------------

    def rotate_keys(self, accesses: list[str], grace_s: float) -> dict[str, str]:
        """Rotate the game and/or admin key; returns the new key ids. Values are only ever in the secrets.

        Each plan holds exactly the key its secret names: once the new keys are live (and the dashboard has
        the new admin key), every other key of the plan is retired. A run that stopped half-way (the
        dashboard refresh failed, or a new key never answered) leaves both keys valid, and running it again
        finishes the job. Whatever the grace, no old key goes before its new one answers a keyed read.
        """
        require(self.outputs, "ApiUrl")  # where the new keys must answer: known before anything changes
        added = {access: self._add_key(access) for access in accesses}
        new_keys = {access: key_id for access, (key_id, _) in added.items()}
        put_at = time.monotonic()
        for access, (_, value) in added.items():
            self._await_answer(access, value)
        if routes.ADMIN in accesses:
            self.refresh_dashboard()  # Nginx adds the admin key: it must send the new one before the old goes
        plans = {access: self.outputs[f"{KEY_CLASSES[access]}UsagePlanId"] for access in accesses}
        old = {a: [k["id"] for k in plan_keys(self.apigw, plans[a]) if k["id"] != new_keys[a]] for a in accesses}
        if any(old.values()) and grace_s > 0:
            self.out(f"the old key(s) stay valid for {grace_s:.0f} s while clients pick up the new values")
            self.wait(grace_s)
        for access in accesses:
            for key_id in old[access]:
                self._retire(plans[access], key_id)
            self._end_previous(access)
        pickup = NEW_KEY_PICKUP_S - (time.monotonic() - put_at)
        if grace_s < NEW_KEY_PICKUP_S and pickup > 0:
            self.wait(pickup)
        return new_keys

    def _add_key(self, access: str) -> tuple[str, str]:
        """A new key in the class's usage plan, its value in the class's secret: its id and value."""
        title = KEY_CLASSES[access]
        plan_id, secret_arn = require(self.outputs, f"{title}UsagePlanId", f"{title}KeySecretArn")
        value = self.secrets.get_random_password(PasswordLength=40, ExcludePunctuation=True)["RandomPassword"]
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        key = self.apigw.create_api_key(
            name=f"{self.stack}-{access}-{stamp}",
            description=f"{title} key of {self.stack}, rotated {stamp}; its value lives in {secret_arn}",
            enabled=True,
            value=value,
            tags={ROTATED_TAG: stamp},
        )
        self.apigw.create_usage_plan_key(usagePlanId=plan_id, keyId=key["id"], keyType="API_KEY")
        self.secrets.put_secret_value(SecretId=secret_arn, SecretString=value)
        self.out(f"{access} key: new key {key['id']} is in usage plan {plan_id}; its value is in {secret_arn}")
        return key["id"], value

    def _await_answer(self, access: str, value: str) -> None:
        """Until the new key answers its class's keyed read (KEY_READS) through the API, asked again with a growing
        delay; KeyNotHonoured once new_key_timeout_s of waiting has passed without an answer."""
        (api_url,) = require(self.outputs, "ApiUrl")
        read = KEY_READS[access]
        url = api_url.rstrip("/") + read.path
        send = self.send or send_request
        timeout = NEW_KEY_TIMEOUT_S if self.new_key_timeout_s is None else self.new_key_timeout_s
        delay, waited, last = NEW_KEY_FIRST_DELAY_S, 0.0, ""
        while True:
            try:
                status = send(url, read.method, value, read.body)
            except OSError as err:  # no answer at all (a network error): asked again, like a refusal
                last = f"no answer: {err}"
            else:
                if status in read.answers:
                    self.out(f"{access} key: the new key answers through the API ({read.method} {url}: {status})")
                    return
                last = f"HTTP {status}"
            if waited >= timeout:
                raise KeyNotHonoured(
                    f"the new {access} key did not answer {read.method} {url} within {waited:.0f} s (last: {last}) "
                    "-- no old key was retired, both stay valid; run the rotation again once the API takes the new key"
                )
            pause = min(delay, timeout - waited)
            self.wait(pause)
            waited += pause
            delay = min(delay * 2, NEW_KEY_LONGEST_DELAY_S)

    def _end_previous(self, access: str) -> None:
        """The old value loses its AWSPREVIOUS label: the functions refuse it where API Gateway checks no key (the
        score route that also takes run tokens), as API Gateway refuses the old key now out of its plan."""
        (secret_arn,) = require(self.outputs, f"{KEY_CLASSES[access]}KeySecretArn")
        versions = self.secrets.list_secret_version_ids(SecretId=secret_arn)["Versions"]
        for version in versions:
            if PREVIOUS in version.get("VersionStages", ()):
                self.secrets.update_secret_version_stage(
                    SecretId=secret_arn, VersionStage=PREVIOUS, RemoveFromVersionId=version["VersionId"]
                )
                self.out(f"{access} key: the old value is no longer accepted ({PREVIOUS} removed in {secret_arn})")

    def _retire(self, plan_id: str, key_id: str) -> None:
        """Out of the usage plan (API Gateway refuses it from then on); deleted if this tool made it."""
        self.apigw.delete_usage_plan_key(usagePlanId=plan_id, keyId=key_id)
        tags = self.apigw.get_api_key(apiKey=key_id).get("tags") or {}
        if ROTATED_TAG in tags:
            self.apigw.delete_api_key(apiKey=key_id)
            self.out(f"old key {key_id}: removed from the plan and deleted")
        else:
            # The stack's own key: CloudFormation owns it, so it is disabled rather than deleted.
            self.apigw.update_api_key(
                apiKey=key_id, patchOperations=[{"op": "replace", "path": "/enabled", "value": "false"}]
            )
            self.out(f"old key {key_id}: removed from the plan and disabled (the stack's own key)")

    # --- dashboard password ---------------------------------------------------------------------

    def rotate_password(self) -> None:
        (secret_arn,) = require(self.outputs, "DashboardPasswordSecretArn")
        current = json.loads(self.secrets.get_secret_value(SecretId=secret_arn)["SecretString"])
        password = self.secrets.get_random_password(PasswordLength=24, ExcludePunctuation=True)["RandomPassword"]
        self.secrets.put_secret_value(SecretId=secret_arn, SecretString=json.dumps({**current, "password": password}))
        self.out(f"dashboard password: new value in {secret_arn}")
        self.refresh_dashboard()
        self.out(f"read it with: aws secretsmanager get-secret-value --secret-id {secret_arn} --query SecretString")

    # --- the instance -------------------------------------------------------------------------

    def refresh_dashboard(self) -> None:
        """Restart the secrets unit through SSM Run Command and wait for its result (or the refresh given)."""
        if self.refresh is not None:
            self.refresh()
            return
        instance_id = self.outputs.get("DashboardInstanceId")
        if not instance_id:
            self.out("no dashboard in this stage: nothing to refresh")
            return
        ssm = self.ssm
        command = ssm.send_command(
            InstanceIds=[instance_id],
            DocumentName="AWS-RunShellScript",
            Comment=f"{self.stack}: re-read the dashboard's secrets",
            Parameters={"commands": [REFRESH_COMMAND]},
            TimeoutSeconds=int(self.refresh_timeout_s),
        )["Command"]
        deadline = time.monotonic() + self.refresh_timeout_s
        while True:
            try:
                result = ssm.get_command_invocation(CommandId=command["CommandId"], InstanceId=instance_id)
            except ssm.exceptions.InvocationDoesNotExist:
                result = {"Status": "Pending"}
            status = result["Status"]
            if status == "Success":
                self.out(f"dashboard {instance_id}: secrets re-read, Nginx reloaded")
                return
            if status in ("Failed", "Cancelled", "TimedOut", "Cancelling") or time.monotonic() > deadline:
                raise RefreshFailed(
                    f"the dashboard {instance_id} did not re-read its secrets ({status}): "
                    f"{result.get('StandardErrorContent', '').strip()[-500:]} -- no old key was retired, both "
                    "stay valid; once the instance is healthy, run the rotation again"
                )
            self.wait(2)
