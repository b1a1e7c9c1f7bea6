"""The local stack's API keys as AWS keeps them: API Gateway's keys and usage plans and the keys' secrets in
Secrets Manager, on moto's server (AWS's protocol: the same boto3 calls as on AWS), in a process of its own.

`make rotate-key` rotates through ops/rotation.py's Rotator; so does the local stack (`LocalKeys.rotator`), against
these stand-ins: a new key with a random id joins its plan and its value goes into the secret (it is honoured
`honour_after_s` after it joined: API Gateway may take seconds; 0 here unless a test asks), the old one leaves
the plan (the local gateway then refuses it, as API Gateway does) and loses its AWSPREVIOUS label (the functions
then refuse it where API Gateway checks no key). The local gateway asks `key_id` for each keyed request, as API
Gateway checks the key against the stage's usage plans.

A process of its own, not moto's in-process server: moto's backends are the process's, and a test that resets them
(POST /moto-api/reset) would take the stack's keys with it.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config

from local import ROOT, dynamodb_local
from local.processes import ProcessGroup, accepts
from ops import rotation

PROCESS_NAME = "aws-control-plane"
STAGE = "local"
# The gateway's view of the plans is read again this often, and at once after any change made through `rotator()`
# (a lookup over HTTP costs tens of milliseconds: too much for every request); a change made to the stand-in by
# other means shows within this.
VIEW_SECONDS = 5.0
MIN_KEY_CHARS, MAX_KEY_CHARS = 20, 128  # API Gateway's rule for a key's value (CreateApiKey refuses others)


class LocalKeys:
    """The two key classes of one local stack: each its secret, its usage plan and its key (the values given)."""

    def __init__(self, procs: ProcessGroup, log: Path, values: dict[str, str], name: str = "leaderboard-local"):
        self.procs, self.log, self.values, self.name = procs, log, values, name
        self.outputs: dict[str, str] = {}
        self._view: dict[str, str] | None = None  # value -> id of each enabled key of the plans
        self._classes: dict[str, str] = {}  # value -> access class of its plan, as last read with the view
        self._view_at = 0.0
        # A key that joined a plan through `rotator()` is honoured only this long after (API Gateway takes seconds).
        self.honour_after_s = 0.0
        self._joined: dict[str, float] = {}  # key id -> when it joined a plan
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._port = 0

    def spawn(self) -> LocalKeys:
        """The stand-in's process started (it takes seconds to import: start the rest meanwhile, then `start`)."""
        self._port = dynamodb_local.free_port()
        # moto's server, answering as AWS where the code depends on it (local/moto_fidelity.py)
        argv = [sys.executable, "-m", "local.moto_fidelity", "-H", "127.0.0.1", "-p", str(self._port)]
        self._proc = self.procs.spawn(PROCESS_NAME, argv, self.log, cwd=ROOT)
        return self

    def start(self, timeout: float = 60.0) -> LocalKeys:
        """Once the stand-in listens: the keys, plans and secrets deployed."""
        if self._proc is None:
            self.spawn()
        port, proc = self._port, self._proc
        assert proc is not None  # spawn() set it
        deadline = time.monotonic() + timeout
        while not accepts(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the API keys' stand-in (moto's server) did not start; see {self.log}")
            time.sleep(0.1)
        self.endpoint = f"http://127.0.0.1:{port}"
        self.apigw, self.secrets = self.client("apigateway"), self.client("secretsmanager")
        # The control plane's client, as an operator's: whatever it changes, the gateway's view is read again.
        self.control = self.client("apigateway")
        self.control.meta.events.register("after-call.apigateway", self._changed)
        self.control.meta.events.register("before-parameter-build.apigateway.CreateUsagePlanKey", self._joining)
        self._deploy()
        return self

    def _changed(self, **_: Any) -> None:
        with self._lock:
            self._view = None

    def _joining(self, params: dict, **_: Any) -> None:
        with self._lock:
            self._joined[params["keyId"]] = time.monotonic()

    def client(self, service: str) -> Any:
        creds = dynamodb_local.FAKE_CREDENTIALS
        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            region_name=creds["AWS_DEFAULT_REGION"],
            aws_access_key_id=creds["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=creds["AWS_SECRET_ACCESS_KEY"],
            config=Config(retries={"mode": "standard", "max_attempts": 3}, max_pool_connections=32),
        )

    def _deploy(self) -> None:
        """What `cdk deploy` leaves (stacks/leaderboard/api_keys.py): each class's secret, its key (value from the
        secret, an id API Gateway picks) in its usage plan on the stage; the outputs ops/rotation.py reads."""
        for access, value in self.values.items():
            if not MIN_KEY_CHARS <= len(value) <= MAX_KEY_CHARS:
                limits = f"{MIN_KEY_CHARS} to {MAX_KEY_CHARS}"
                raise SystemExit(f"the {access} key has {len(value)} characters: API Gateway takes {limits}")
        api = self.apigw.create_rest_api(name=self.name)
        root = {"restApiId": api["id"], "resourceId": api["rootResourceId"], "httpMethod": "ANY"}
        self.apigw.put_method(**root, authorizationType="NONE", apiKeyRequired=True)
        self.apigw.put_integration(**root, type="MOCK")
        self.apigw.create_deployment(restApiId=api["id"], stageName=STAGE)
        for access, title in rotation.KEY_CLASSES.items():
            value = self.values[access]
            arn = self.secrets.create_secret(Name=f"{self.name}-{title}KeySecret", SecretString=value)["ARN"]
            key = self.apigw.create_api_key(name=f"{self.name}-{title}Key", value=value, enabled=True)
            plan = self.apigw.create_usage_plan(
                name=f"{self.name}-{title}Plan", apiStages=[{"apiId": api["id"], "stage": STAGE}]
            )
            self.apigw.create_usage_plan_key(usagePlanId=plan["id"], keyId=key["id"], keyType="API_KEY")
            self.outputs[f"{title}KeySecretArn"], self.outputs[f"{title}UsagePlanId"] = arn, plan["id"]

    def secret_arn(self, access: str) -> str:
        return self.outputs[f"{rotation.KEY_CLASSES[access]}KeySecretArn"]

    def key_id(self, value: str | None) -> str | None:
        """API Gateway's check of a keyed method: the id of the enabled key with this value in a usage plan of the
        stage, or None (its 403 "Forbidden")."""
        if not value:
            return None
        with self._lock:
            if self._view is None or time.monotonic() - self._view_at >= VIEW_SECONDS:
                self._view, self._classes = self._read_view()
                self._view_at = time.monotonic()
            key_id = self._view.get(value)
            joined = self._joined.get(key_id or "")
            if joined is not None and time.monotonic() - joined < self.honour_after_s:
                return None  # in its plan, not honoured yet
            return key_id

    def key_class(self, value: str) -> str | None:
        """The access class of the plan of a key `key_id` accepted (whose per-key throttle meters it)."""
        with self._lock:
            return self._classes.get(value)

    def _read_view(self) -> tuple[dict[str, str], dict[str, str]]:
        view, classes = {}, {}
        for access, title in rotation.KEY_CLASSES.items():
            for key in rotation.plan_keys(self.apigw, self.outputs[f"{title}UsagePlanId"]):
                if self.apigw.get_api_key(apiKey=key["id"]).get("enabled"):
                    view[key["value"]], classes[key["value"]] = key["id"], access
        return view, classes

    def current(self, access: str) -> str:
        """The class's key value now (its secret's AWSCURRENT), as a client fetches it after a rotation."""
        return self.secrets.get_secret_value(SecretId=self.secret_arn(access))["SecretString"]

    def restore(self, values: dict[str, str]) -> None:
        """Tests only: each class back to its key of `values` (the stack's first key, enabled again and alone in
        its plan, its value current in the secret with no previous one), as before any rotation."""
        keys = self.control.get_api_keys(includeValues=True, limit=500)["items"]
        for access, title in rotation.KEY_CLASSES.items():
            plan_id, arn = self.outputs[f"{title}UsagePlanId"], self.secret_arn(access)
            (first,) = [k for k in keys if k.get("value") == values[access]]
            patch = [{"op": "replace", "path": "/enabled", "value": "true"}]
            self.control.update_api_key(apiKey=first["id"], patchOperations=patch)
            in_plan = {k["id"] for k in rotation.plan_keys(self.apigw, plan_id)}
            if first["id"] not in in_plan:
                self.control.create_usage_plan_key(usagePlanId=plan_id, keyId=first["id"], keyType="API_KEY")
            for key_id in in_plan - {first["id"]}:
                self.control.delete_usage_plan_key(usagePlanId=plan_id, keyId=key_id)
                self.control.delete_api_key(apiKey=key_id)
            if self.current(access) != values[access]:
                self.secrets.put_secret_value(SecretId=arn, SecretString=values[access])
            for version in self.secrets.list_secret_version_ids(SecretId=arn)["Versions"]:
                if "AWSPREVIOUS" in version.get("VersionStages", ()):
                    self.secrets.update_secret_version_stage(
                        SecretId=arn, VersionStage="AWSPREVIOUS", RemoveFromVersionId=version["VersionId"]
                    )

    def rotator(
        self,
        api_url: str,
        refresh: Callable[[], None] | None = None,
        out: Callable[[str], None] = print,
        wait: Callable[[float], None] = time.sleep,
    ) -> rotation.Rotator:
        """ops/rotation.py's Rotator on these stand-ins; `api_url`: the local gateway's, where a new key must answer
        before an old one goes; `refresh`: how the local dashboard re-reads the admin key (None: there is none to
        refresh)."""
        outputs = {**self.outputs, "ApiUrl": api_url}
        return rotation.Rotator(
            self.control, self.secrets, outputs, self.name, out=out, wait=wait, refresh=refresh or _nothing
        )


def _nothing() -> None:
    pass


def key_titles() -> dict[str, str]:
    """Access class -> the title of its key, plan and secret (stacks/leaderboard/api_keys.py names them so)."""
    return dict(rotation.KEY_CLASSES)


def kept_digest_key(persist_dir: Path) -> str:
    """The digest key of data kept across runs: made once and kept beside the tables, as the deployment's secret
    outlives its functions (a new key per run would lose every hashed item: runs, counters, erasure items)."""
    path = persist_dir / "digest-key"
    if not path.exists():
        persist_dir.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_urlsafe(32))
    return path.read_text().strip()
