"""Rotation of the two API keys and of the dashboard's admin password.

A key's value cannot change in API Gateway, and CloudFormation does not re-read a secret it resolved, so a
rotation makes a NEW key: it joins the key's usage plan, its value goes into the key's secret, the dashboard
re-reads its secrets (SSM Run Command restarts leaderboard-secrets.service), and after a grace period (for
game servers to fetch the new value) the old key leaves the plan, so API Gateway refuses it. A key this tool
made is then deleted; the stack's own first key is disabled instead, since CloudFormation still owns it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import boto3
from cdk_leaderboard.paths import routes

from .outputs import require, stack_outputs

ROTATED_TAG = "leaderboard:rotated-key"  # on keys this tool creates: safe to delete later
REFRESH_COMMAND = "systemctl restart leaderboard-secrets.service"
KEY_CLASSES = {routes.GAME: "Game", routes.ADMIN: "Admin"}


class RefreshFailed(Exception):
    pass


@dataclass
class Rotator:
    session: boto3.Session
    stack: str
    out: Callable[[str], None] = print
    wait: Callable[[float], None] = time.sleep
    refresh_timeout_s: float = 300.0

    def __post_init__(self) -> None:
        self.outputs = stack_outputs(self.session, self.stack)
        self.apigw = self.session.client("apigateway")
        self.secrets = self.session.client("secretsmanager")

    # --- API keys -------------------------------------------------------------------------------

    def rotate_keys(self, accesses: list[str], grace_s: float) -> dict[str, str]:
        """Rotate the game and/or admin key; returns the new key ids. Values are only ever in the secrets.

        Each plan holds exactly the key its secret names: once the new keys are live (and the dashboard has
        the new admin key), every other key of the plan is retired. A run that stopped half-way (the
        dashboard refresh failed) leaves both keys valid, and running it again finishes the job.
        """
        new_keys = {access: self._add_key(access) for access in accesses}
        if routes.ADMIN in accesses:
            self.refresh_dashboard()  # Nginx adds the admin key: it must send the new one before the old goes
        plans = {access: self.outputs[f"{KEY_CLASSES[access]}UsagePlanId"] for access in accesses}
        old = {a: [k["id"] for k in self._plan_keys(plans[a]) if k["id"] != new_keys[a]] for a in accesses}
        if any(old.values()):
            self.out(f"the old key(s) stay valid for {grace_s:.0f} s while clients pick up the new values")
            self.wait(grace_s)
        for access in accesses:
            for key_id in old[access]:
                self._retire(plans[access], key_id)
        return new_keys

    def _add_key(self, access: str) -> str:
        """A new key in the class's usage plan, its value in the class's secret."""
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
        return key["id"]

    def _plan_keys(self, plan_id: str) -> list[dict]:
        keys, position = [], None
        while True:
            page = self.apigw.get_usage_plan_keys(usagePlanId=plan_id, **({"position": position} if position else {}))
            keys += page.get("items", [])
            position = page.get("position")
            if not position:
                return keys

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
        """Restart the secrets unit through SSM Run Command and wait for its result."""
        instance_id = self.outputs.get("DashboardInstanceId")
        if not instance_id:
            self.out("no dashboard in this stage: nothing to refresh")
            return
        ssm = self.session.client("ssm")
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
